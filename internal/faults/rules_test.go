package faults

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestParseRoundTrip(t *testing.T) {
	for _, spec := range []string{
		"blob/PutBlob=busy@50%",
		"cosmos=throttle@10%;retry-after=20ms",
		"table=latency:200ms@100%",
		"queue/PutMessage=timeout@25%",
		"file=reset@5%",
	} {
		rules, err := Parse(spec)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if len(rules) != 1 || rules[0].String() != spec {
			t.Errorf("%s read back as %v", spec, rules)
		}
	}
	rules, err := Parse("blob=busy@0.5, search=timeout@1")
	if err != nil || len(rules) != 2 || rules[0].Rate != 0.5 || rules[1].Rate != 1 {
		t.Fatalf("fractions: %v, %v", rules, err)
	}
	for _, bad := range []string{"blob", "blob=busy", "blob=busy@0%", "blob=busy@101%", "smb=busy@1%", "blob=nap@1%",
		"blob=latency@1%", "blob=latency:2h@1%", "blob=busy@1%;retry=1s", "blob=busy@1%;retry-after=x"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// TestShareIsSpreadEvenly: a rate is an exact share of the matching
// requests, spread over them, and other services or operations are not
// touched.
func TestShareIsSpreadEvenly(t *testing.T) {
	rules, _ := Parse("blob/PutBlob=busy@25%")
	var counted int
	in, err := New(rules, nil, func(string, string, Kind) { counted++ })
	if err != nil {
		t.Fatal(err)
	}
	fault := in.For("blob")
	var pattern strings.Builder
	for range 12 {
		w := httptest.NewRecorder()
		if err := fault(w, httptest.NewRequest(http.MethodPut, "/", nil), "PutBlob"); err != nil {
			pattern.WriteByte('x')
		} else {
			pattern.WriteByte('.')
		}
		if err := fault(w, httptest.NewRequest(http.MethodGet, "/", nil), "GetBlob"); err != nil {
			t.Fatal("GetBlob got a PutBlob fault")
		}
	}
	if got := pattern.String(); got != "...x...x...x" {
		t.Errorf("faults at %q, want every fourth request", got)
	}
	if counted != 3 {
		t.Errorf("%d faults counted, want 3", counted)
	}
	if err := in.For("queue")(httptest.NewRecorder(), httptest.NewRequest(http.MethodPut, "/", nil), "PutBlob"); err != nil {
		t.Error("another service got the fault")
	}
}

func TestCosmosThrottleCarriesRetryAfter(t *testing.T) {
	rules, _ := Parse("cosmos=throttle@100%")
	in, _ := New(rules, nil, nil)
	w := httptest.NewRecorder()
	err := in.For("cosmos")(w, httptest.NewRequest(http.MethodPost, "/", nil), "CreateDocument")
	if err == nil || !strings.Contains(err.Error(), "TooManyRequests") {
		t.Fatalf("got %v", err)
	}
	if w.Header().Get("x-ms-retry-after-ms") != "100" || w.Header().Get("x-ms-substatus") != "3200" {
		t.Errorf("headers %v", w.Header())
	}
	if time.Duration(rules[0].RetryAfter) != 0 {
		t.Error("the rule was changed")
	}
}
