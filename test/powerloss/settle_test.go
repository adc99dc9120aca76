package powerloss_test

import (
	"strings"
	"sync/atomic"
	"testing"
)

// TestSettleRejects shows the recovery check failing on each kind of
// damage a power loss could do: a lost acknowledged write, a half-applied
// batch, a changed ETag, a resurrected key and an ETag naming two
// contents.
func TestSettleRejects(t *testing.T) {
	acked := map[string]item{"a": {content: "a1", etag: "e1"}, "b": {content: "b1", etag: "e2"}}
	batch := map[string]string{"a": "a2", "b": ""}
	cases := []struct {
		name     string
		observed map[string]item
		want     string // "" when the state must be accepted
	}{
		{"acknowledged state", map[string]item{"a": {content: "a1", etag: "e1"}, "b": {content: "b1", etag: "e2"}}, ""},
		{"batch applied whole", map[string]item{"a": {content: "a2", etag: "e3"}}, ""},
		{"acknowledged write lost", map[string]item{"b": {content: "b1", etag: "e2"}}, "a missing"},
		{"batch half applied", map[string]item{"a": {content: "a2", etag: "e3"}, "b": {content: "b1", etag: "e2"}}, "neither"},
		{"ETag changed without a write", map[string]item{"a": {content: "a1", etag: "e9"}, "b": {content: "b1", etag: "e2"}}, "has ETag e9"},
		{"unknown key appears", map[string]item{"a": {content: "a1", etag: "e1"}, "b": {content: "b1", etag: "e2"}, "c": {content: "c0", etag: "e4"}}, "c exists"},
		{"ETag names two contents", map[string]item{"a": {content: "a2", etag: "e1"}}, "named a1 and now a2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorker("test", 0, 1, newETagRegistry())
			w.crashing = new(atomic.Bool)
			w.begin(map[string]string{"a": "a1", "b": "b1"})
			if err := w.commit(acked); err != nil {
				t.Fatal(err)
			}
			w.begin(batch)
			_, err := w.settle(tc.observed)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("rejected: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("accepted; want an error about %q", tc.want)
			case tc.want != "" && !strings.Contains(err.Error(), tc.want):
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

// TestSettleLateAcknowledgement: an operation acknowledged after the crash
// began may be lost, but if it survived it carries the ETag it was
// acknowledged with.
func TestSettleLateAcknowledgement(t *testing.T) {
	for _, tc := range []struct {
		name     string
		observed map[string]item
		fail     bool
	}{
		{"lost", map[string]item{}, false},
		{"kept", map[string]item{"a": {content: "a1", etag: "e1"}}, false},
		{"kept with another ETag", map[string]item{"a": {content: "a1", etag: "e2"}}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := newWorker("test", 0, 1, newETagRegistry())
			w.crashing = new(atomic.Bool)
			w.crashing.Store(true)
			w.begin(map[string]string{"a": "a1"})
			if err := w.commit(map[string]item{"a": {content: "a1", etag: "e1"}}); err != nil {
				t.Fatal(err)
			}
			if _, err := w.settle(tc.observed); (err != nil) != tc.fail {
				t.Fatalf("settle: %v; want failure %v", err, tc.fail)
			}
		})
	}
}
