package azhttp

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

func TestServicePropertiesValidate(t *testing.T) {
	days := func(n int) *int { return &n }
	rule := func(mod func(*CorsRuleXML)) ServiceProperties {
		r := CorsRuleXML{AllowedOrigins: "*", AllowedMethods: "GET,PUT", AllowedHeaders: "x-ms-meta-*,x-a", ExposedHeaders: "*", MaxAgeInSeconds: 60}
		if mod != nil {
			mod(&r)
		}
		return ServiceProperties{Cors: &CorsXML{Rules: []CorsRuleXML{r}}}
	}
	tests := []struct {
		name string
		p    ServiceProperties
		want *Error // nil: valid
	}{
		{"empty", ServiceProperties{}, nil},
		{"retention 1 day", ServiceProperties{DeleteRetentionPolicy: &RetentionXML{Enabled: true, Days: days(1)}}, nil},
		{"retention 365 days", ServiceProperties{DeleteRetentionPolicy: &RetentionXML{Enabled: true, Days: days(365)}}, nil},
		{"retention disabled", ServiceProperties{DeleteRetentionPolicy: &RetentionXML{}}, nil},
		{"retention 0 days", ServiceProperties{DeleteRetentionPolicy: &RetentionXML{Enabled: true, Days: days(0)}}, ErrInvalidXmlDocument},
		{"retention 366 days", ServiceProperties{DeleteRetentionPolicy: &RetentionXML{Enabled: true, Days: days(366)}}, ErrInvalidXmlDocument},
		{"retention enabled without days", ServiceProperties{DeleteRetentionPolicy: &RetentionXML{Enabled: true}}, ErrInvalidXmlDocument},
		{"logging 0 days", ServiceProperties{Logging: &LoggingXML{Version: "1.0", RetentionPolicy: RetentionXML{Enabled: true, Days: days(0)}}}, ErrInvalidXmlDocument},
		{"hour metrics 400 days", ServiceProperties{HourMetrics: &MetricsXML{Version: "1.0", RetentionPolicy: RetentionXML{Enabled: true, Days: days(400)}}}, ErrInvalidXmlDocument},
		{"minute metrics enabled without days", ServiceProperties{MinuteMetrics: &MetricsXML{Version: "1.0", RetentionPolicy: RetentionXML{Enabled: true}}}, ErrInvalidXmlDocument},
		{"a valid rule", rule(nil), nil},
		{"every method", rule(func(r *CorsRuleXML) { r.AllowedMethods = "DELETE,GET,HEAD,MERGE,POST,OPTIONS,PUT,PATCH" }), nil},
		{"six rules", ServiceProperties{Cors: &CorsXML{Rules: make([]CorsRuleXML, 6)}}, ErrInvalidXmlDocument},
		{"unknown method", rule(func(r *CorsRuleXML) { r.AllowedMethods = "GET,FETCH" }), ErrInvalidXmlNodeValue},
		{"lower-case method", rule(func(r *CorsRuleXML) { r.AllowedMethods = "get" }), ErrInvalidXmlNodeValue},
		{"negative max age", rule(func(r *CorsRuleXML) { r.MaxAgeInSeconds = -1 }), ErrInvalidXmlNodeValue},
		{"65 origins", rule(func(r *CorsRuleXML) { r.AllowedOrigins = strings.Repeat("http://a.example,", 65) }), ErrInvalidXmlNodeValue},
		{"64 origins", rule(func(r *CorsRuleXML) { r.AllowedOrigins = strings.Repeat("http://a.example,", 64) }), nil},
		{"three prefixed headers", rule(func(r *CorsRuleXML) { r.AllowedHeaders = "x-a*,x-b*,x-c*" }), ErrInvalidXmlNodeValue},
		{"65 exposed headers", rule(func(r *CorsRuleXML) { r.ExposedHeaders = strings.Repeat("x-h,", 65) }), ErrInvalidXmlNodeValue},
		{"header of 257 characters", rule(func(r *CorsRuleXML) { r.AllowedHeaders = strings.Repeat("h", 257) }), ErrInvalidXmlNodeValue},
	}
	for _, tc := range tests {
		err := tc.p.Validate()
		switch {
		case tc.want == nil && err != nil:
			t.Errorf("%s: %v, want valid", tc.name, err)
		case tc.want != nil && !errors.Is(err, tc.want):
			t.Errorf("%s: %v, want %s", tc.name, err, tc.want.Code)
		}
	}
}

func TestMaxResults(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want int
		err  *Error
	}{
		{"", 5000, nil}, {"1", 1, nil}, {"5000", 5000, nil}, {"6000", 5000, nil},
		{"0", 0, ErrOutOfRangeQueryParameterValue}, {"-3", 0, ErrOutOfRangeQueryParameterValue},
		{"abc", 0, ErrInvalidQueryParameterValue}, {"1.5", 0, ErrInvalidQueryParameterValue},
	} {
		q := url.Values{}
		if tc.v != "" {
			q.Set("maxresults", tc.v)
		}
		n, err := MaxResults(q)
		if tc.err != nil {
			var e *Error
			if !errors.Is(err, tc.err) || !errors.As(err, &e) || e.Detail("QueryParameterName") != "maxresults" || e.Detail("QueryParameterValue") != tc.v {
				t.Errorf("maxresults=%q: %v, want %s naming it", tc.v, err, tc.err.Code)
			}
			continue
		}
		if err != nil || n != tc.want {
			t.Errorf("maxresults=%q: %d %v, want %d", tc.v, n, err, tc.want)
		}
	}
}

func TestWriteErrorKeepsContentRangeOn416(t *testing.T) {
	for _, tc := range []struct {
		err  *Error
		want string
	}{{ErrInvalidRange, "bytes */42"}, {ErrInvalidHeaderValue, ""}} {
		w := httptest.NewRecorder()
		w.Header().Set("Content-Range", "bytes */42")
		w.Header().Set("Content-Language", "en")
		WriteError(w, httptest.NewRequest(http.MethodGet, "/", nil), tc.err)
		if got := w.Header().Get("Content-Range"); got != tc.want {
			t.Errorf("%s: Content-Range %q, want %q", tc.err.Code, got, tc.want)
		}
		if w.Header().Get("Content-Language") != "" {
			t.Errorf("%s: Content-Language kept", tc.err.Code)
		}
	}
}
