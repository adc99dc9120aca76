package svcprops

import (
	"context"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv/memory"
)

func TestSetMergesAndStripsBlobOnlyElements(t *testing.T) {
	ctx := context.Background()
	store := memory.Open()
	t.Cleanup(func() {
		if err := store.Close(); err != nil {
			t.Error(err)
		}
	})
	key := func(acct string) []byte { return []byte("p/" + acct) }
	q := New(store, "queue", key)
	p, err := q.Get(ctx, "a")
	if err != nil || p.Logging == nil || p.StaticWebsite != nil {
		t.Fatalf("defaults: %+v %v", p, err)
	}
	set := ServiceProperties{
		Cors:          &CorsXML{Rules: []CorsRuleXML{{AllowedOrigins: "*", AllowedMethods: "GET"}}},
		StaticWebsite: &StaticWebsiteXML{Enabled: true},
	}
	if err := q.Set(ctx, "a", set); err != nil {
		t.Fatal(err)
	}
	p, _ = q.Get(ctx, "a")
	if len(p.Cors.Rules) != 1 || p.StaticWebsite != nil || p.Logging == nil {
		t.Fatalf("after set: cors %v static %v logging %v", p.Cors, p.StaticWebsite, p.Logging)
	}
	if rules, _ := q.CORSRules(ctx, "a"); len(rules) != 1 || rules[0].AllowedOrigins[0] != "*" {
		t.Fatalf("CORS rules %+v", rules)
	}
	if p, _ := q.Get(ctx, "b"); len(p.Cors.Rules) != 0 {
		t.Fatal("properties leaked to another account")
	}
	tooMany := ServiceProperties{Cors: &CorsXML{Rules: make([]CorsRuleXML, 6)}}
	if err := q.Set(ctx, "a", tooMany); err == nil {
		t.Fatal("six CORS rules accepted")
	}
	b := New(store, "blob", func(acct string) []byte { return []byte("b/" + acct) })
	if err := b.Set(ctx, "a", set); err != nil {
		t.Fatal(err)
	}
	if p, _ := b.Get(ctx, "a"); p.StaticWebsite == nil || !p.StaticWebsite.Enabled {
		t.Fatal("blob lost its static website element")
	}
}

// TestDefaultHourMetrics: a new account's Table service keeps hour
// metrics with API-level statistics for 7 days, as Azure's recorded
// answers show (go-aztables TestGetProperties, go-storage StorageSuite
// TestGetServiceProperties), and minute metrics off.
func TestDefaultHourMetrics(t *testing.T) {
	p := DefaultServiceProperties("table")
	h, m := p.HourMetrics, p.MinuteMetrics
	if h == nil || !h.Enabled || h.IncludeAPIs == nil || !*h.IncludeAPIs || !h.RetentionPolicy.Enabled || h.RetentionPolicy.Days == nil || *h.RetentionPolicy.Days != 7 {
		t.Errorf("hour metrics %+v", h)
	}
	if m == nil || m.Enabled || m.IncludeAPIs != nil || m.RetentionPolicy.Enabled {
		t.Errorf("minute metrics %+v", m)
	}
	if err := p.Validate(); err != nil {
		t.Errorf("defaults do not validate: %v", err)
	}
}
