package svcprops

import (
	"encoding/xml"
	"errors"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
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
		want *azerr.Error // nil: valid
	}{
		{"empty", ServiceProperties{}, nil},
		{"retention 1 day", ServiceProperties{DeleteRetentionPolicy: &RetentionXML{Enabled: true, Days: days(1)}}, nil},
		{"retention 365 days", ServiceProperties{DeleteRetentionPolicy: &RetentionXML{Enabled: true, Days: days(365)}}, nil},
		{"retention disabled", ServiceProperties{DeleteRetentionPolicy: &RetentionXML{}}, nil},
		{"retention 0 days", ServiceProperties{DeleteRetentionPolicy: &RetentionXML{Enabled: true, Days: days(0)}}, azerr.ErrInvalidXmlDocument},
		{"retention 366 days", ServiceProperties{DeleteRetentionPolicy: &RetentionXML{Enabled: true, Days: days(366)}}, azerr.ErrInvalidXmlDocument},
		{"retention enabled without days", ServiceProperties{DeleteRetentionPolicy: &RetentionXML{Enabled: true}}, azerr.ErrInvalidXmlDocument},
		{"logging 0 days", ServiceProperties{Logging: &LoggingXML{Version: "1.0", RetentionPolicy: RetentionXML{Enabled: true, Days: days(0)}}}, azerr.ErrInvalidXmlDocument},
		{"hour metrics 400 days", ServiceProperties{HourMetrics: &MetricsXML{Version: "1.0", RetentionPolicy: RetentionXML{Enabled: true, Days: days(400)}}}, azerr.ErrInvalidXmlDocument},
		{"minute metrics enabled without days", ServiceProperties{MinuteMetrics: &MetricsXML{Version: "1.0", RetentionPolicy: RetentionXML{Enabled: true}}}, azerr.ErrInvalidXmlDocument},
		{"a valid rule", rule(nil), nil},
		{"every method", rule(func(r *CorsRuleXML) { r.AllowedMethods = "DELETE,GET,HEAD,MERGE,POST,OPTIONS,PUT,PATCH" }), nil},
		{"six rules", ServiceProperties{Cors: &CorsXML{Rules: make([]CorsRuleXML, 6)}}, azerr.ErrInvalidXmlDocument},
		{"unknown method", rule(func(r *CorsRuleXML) { r.AllowedMethods = "GET,FETCH" }), azerr.ErrInvalidXmlNodeValue},
		{"lower-case method", rule(func(r *CorsRuleXML) { r.AllowedMethods = "get" }), azerr.ErrInvalidXmlNodeValue},
		{"negative max age", rule(func(r *CorsRuleXML) { r.MaxAgeInSeconds = -1 }), azerr.ErrInvalidXmlNodeValue},
		{"65 origins", rule(func(r *CorsRuleXML) { r.AllowedOrigins = strings.Repeat("http://a.example,", 65) }), azerr.ErrInvalidXmlNodeValue},
		{"64 origins", rule(func(r *CorsRuleXML) { r.AllowedOrigins = strings.Repeat("http://a.example,", 64) }), nil},
		{"three prefixed headers", rule(func(r *CorsRuleXML) { r.AllowedHeaders = "x-a*,x-b*,x-c*" }), azerr.ErrInvalidXmlNodeValue},
		{"65 exposed headers", rule(func(r *CorsRuleXML) { r.ExposedHeaders = strings.Repeat("x-h,", 65) }), azerr.ErrInvalidXmlNodeValue},
		{"header of 257 characters", rule(func(r *CorsRuleXML) { r.AllowedHeaders = strings.Repeat("h", 257) }), azerr.ErrInvalidXmlNodeValue},
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

// TestElementOrder: Get Service Properties writes Logging's and each
// CorsRule's children in Azure's order. Azure's answers in the
// recordings under test/parity/testdata (blob
// go-storage-StorageSuite-TestSetServiceProperties.yaml, queue
// net-ServiceClientTests-SetPropertiesAsync.json, table
// go-aztables-TestSetCors.json) all write <Logging><Version>, Read, Write,
// Delete, RetentionPolicy and <CorsRule><AllowedMethods>, AllowedOrigins,
// AllowedHeaders, ExposedHeaders, MaxAgeInSeconds. The replay checks
// the same in ten recordings; this test says why without a server.
func TestElementOrder(t *testing.T) {
	days := 7
	p := ServiceProperties{
		Logging: &LoggingXML{Version: "1.0", Read: true, Write: true, Delete: true, RetentionPolicy: RetentionXML{Enabled: true, Days: &days}},
		Cors:    &CorsXML{Rules: []CorsRuleXML{{AllowedOrigins: "*", AllowedMethods: "GET,PUT", AllowedHeaders: "x-ms-meta-a", ExposedHeaders: "x-ms-meta-b", MaxAgeInSeconds: 500}}},
	}
	out, err := xml.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"<Logging><Version>1.0</Version><Read>true</Read><Write>true</Write><Delete>true</Delete><RetentionPolicy><Enabled>true</Enabled><Days>7</Days></RetentionPolicy></Logging>",
		"<CorsRule><AllowedMethods>GET,PUT</AllowedMethods><AllowedOrigins>*</AllowedOrigins><AllowedHeaders>x-ms-meta-a</AllowedHeaders><ExposedHeaders>x-ms-meta-b</ExposedHeaders><MaxAgeInSeconds>500</MaxAgeInSeconds></CorsRule>",
	} {
		if !strings.Contains(string(out), want) {
			t.Errorf("Get Service Properties writes\n%s\nwant it to hold\n%s", out, want)
		}
	}
}
