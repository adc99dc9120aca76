package azhttp

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestCORS(t *testing.T) {
	rules := []CORSRule{
		{AllowedOrigins: []string{"https://app.example"}, AllowedMethods: []string{"GET", "PUT"}, AllowedHeaders: []string{"x-ms-meta-*", "content-type"}, ExposedHeaders: []string{"x-ms-meta-*", "x-ms-request-id"}, MaxAgeInSeconds: 600},
		{AllowedOrigins: []string{"*"}, AllowedMethods: []string{"GET"}, AllowedHeaders: []string{"*"}, ExposedHeaders: []string{"etag"}, MaxAgeInSeconds: 60},
	}
	source := func(*http.Request) ([]CORSRule, error) { return rules, nil }
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("x-ms-meta-color", "blue")
		w.Header().Set("ETag", `"1"`)
		w.WriteHeader(http.StatusTeapot)
	})
	tests := []struct {
		name       string
		method     string
		header     map[string]string
		source     CORSSource
		wantStatus int
		want       map[string]string // "" means absent
	}{
		{"preflight exact origin with prefix header", "OPTIONS", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "x-ms-meta-a, Content-Type"}, source, 200,
			map[string]string{"Access-Control-Allow-Origin": "https://app.example", "Access-Control-Allow-Methods": "PUT", "Access-Control-Allow-Headers": "x-ms-meta-a,content-type", "Access-Control-Max-Age": "600", "Access-Control-Allow-Credentials": "true"}},
		{"preflight falls through to wildcard rule", "OPTIONS", map[string]string{"Origin": "https://other.example", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-anything"}, source, 200,
			map[string]string{"Access-Control-Allow-Origin": "https://other.example", "Access-Control-Max-Age": "60"}},
		{"preflight method not allowed", "OPTIONS", map[string]string{"Origin": "https://other.example", "Access-Control-Request-Method": "DELETE"}, source, 403,
			map[string]string{"x-ms-error-code": "CorsPreflightFailure", "Access-Control-Allow-Origin": ""}},
		{"preflight header not allowed", "OPTIONS", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "x-custom"}, source, 403,
			map[string]string{"x-ms-error-code": "CorsPreflightFailure"}},
		{"preflight without rules", "OPTIONS", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "GET"}, func(*http.Request) ([]CORSRule, error) { return nil, nil }, 403,
			map[string]string{"x-ms-error-code": "CorsPreflightFailure"}},
		{"preflight rules unavailable", "OPTIONS", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "GET"}, func(*http.Request) ([]CORSRule, error) { return nil, errors.New("db down") }, 500,
			map[string]string{"x-ms-error-code": "InternalError"}},
		{"options without Access-Control-Request-Method", "OPTIONS", map[string]string{"Origin": "https://app.example"}, source, 400,
			map[string]string{"x-ms-error-code": "InvalidHeaderValue", "Access-Control-Allow-Origin": ""}},
		{"options without Origin", "OPTIONS", map[string]string{"Access-Control-Request-Method": "GET"}, source, 400,
			map[string]string{"x-ms-error-code": "InvalidHeaderValue"}},
		{"preflight falls to the rule allowing every requested header", "OPTIONS", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "x-ms-meta-a,x-ms-version"}, source, 200,
			map[string]string{"Access-Control-Allow-Origin": "https://app.example", "Access-Control-Max-Age": "60", "Access-Control-Allow-Headers": "x-ms-meta-a,x-ms-version"}},
		{"preflight method of the first rule only, header of the second only", "OPTIONS", map[string]string{"Origin": "https://app.example", "Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "x-ms-version"}, source, 403,
			map[string]string{"x-ms-error-code": "CorsPreflightFailure", "Access-Control-Allow-Methods": ""}},
		{"preflight method is compared whole", "OPTIONS", map[string]string{"Origin": "https://other.example", "Access-Control-Request-Method": "GE"}, source, 403,
			map[string]string{"x-ms-error-code": "CorsPreflightFailure"}},
		{"actual request exact origin", "GET", map[string]string{"Origin": "https://app.example"}, source, http.StatusTeapot,
			map[string]string{"Access-Control-Allow-Origin": "https://app.example", "Access-Control-Allow-Credentials": "true", "Vary": "Origin", "Access-Control-Expose-Headers": "x-ms-request-id,x-ms-meta-color"}},
		{"actual request wildcard origin", "GET", map[string]string{"Origin": "https://other.example"}, source, http.StatusTeapot,
			map[string]string{"Access-Control-Allow-Origin": "*", "Access-Control-Allow-Credentials": "", "Vary": "", "Access-Control-Expose-Headers": "etag"}},
		{"actual request no match", "DELETE", map[string]string{"Origin": "https://other.example"}, source, http.StatusTeapot,
			map[string]string{"Access-Control-Allow-Origin": "", "Vary": "Origin"}},
		{"no origin", "GET", nil, source, http.StatusTeapot, map[string]string{"Access-Control-Allow-Origin": "", "Vary": ""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := httptest.NewRequest(tc.method, "/devstoreaccount1/c1", nil)
			for k, v := range tc.header {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			Wrap("blob", quietLogger, tc.source, WriteError, h).ServeHTTP(w, r)
			if w.Code != tc.wantStatus {
				t.Fatalf("status = %d, want %d (%s)", w.Code, tc.wantStatus, w.Body)
			}
			for k, v := range tc.want {
				if got := wireHeader(w).Get(k); got != v {
					t.Errorf("%s = %q, want %q", k, got, v)
				}
			}
		})
	}
}
