package blob

import (
	"strings"
	"testing"
	"time"
)

// TestTierTransitions drives changeTier and settleTier through Azure's
// rules, and checkTier over every state they produce.
func TestTierTransitions(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	b := &Blob{Type: blockBlob}
	step := func(what, tier, priority string, now time.Time, wantPending bool, wantErr string) {
		t.Helper()
		pending, err := b.changeTier(tier, priority, now)
		switch {
		case wantErr != "" && (err == nil || !strings.Contains(err.Error(), wantErr)):
			t.Fatalf("%s: error %v, want %s", what, err, wantErr)
		case wantErr == "" && err != nil:
			t.Fatalf("%s: %v", what, err)
		case pending != wantPending:
			t.Fatalf("%s: pending %v, want %v", what, pending, wantPending)
		}
		var c checker
		checkTier(&c, what, b)
		if len(c.Violations()) != 0 {
			t.Fatalf("%s: %v", what, c.Violations())
		}
	}
	step("archive", tierArchive, "Standard", t0, false, "")
	step("rehydrate", tierCool, "Standard", t0, true, "")
	step("redirect", tierHot, "Standard", t0, false, "BlobBeingRehydrated")
	step("speed up", tierCool, "High", t0.Add(time.Minute), true, "")
	step("slow down", tierCool, "Standard", t0.Add(2*time.Minute), true, "")
	if want := t0.Add(time.Minute + rehydrateHigh); !b.Rehydrate.Done.Equal(want) || b.Rehydrate.Priority != "High" {
		t.Fatalf("after a later Standard request: done %v priority %s, want %v High", b.Rehydrate.Done, b.Rehydrate.Priority, want)
	}
	b.settleTier(t0.Add(time.Hour))
	if b.Tier != tierArchive {
		t.Fatal("settled before its time")
	}
	b.settleTier(t0.Add(time.Hour + time.Minute))
	if b.Tier != tierCool || b.Rehydrate != nil || !b.TierChanged.Equal(t0.Add(time.Hour+time.Minute)) {
		t.Fatalf("settled: %+v", b)
	}
	step("online move", tierHot, "", t0.Add(2*time.Hour), false, "")
}

// TestCheckTierFindsBadTiers: the invariant check refuses tier states no
// operation produces.
func TestCheckTierFindsBadTiers(t *testing.T) {
	now := time.Now()
	for _, tc := range []struct {
		rec  Blob
		want string
	}{
		{Blob{Type: appendBlob, Tier: tierCool, TierChanged: now}, "a AppendBlob with tier"},
		{Blob{Type: blockBlob, Tier: "Tepid", TierChanged: now}, "unknown tier"},
		{Blob{Type: blockBlob, Tier: tierHot}, "without its change time"},
		{Blob{Type: blockBlob, Tier: tierHot, TierChanged: now, Rehydrate: &rehydration{To: tierCool, Priority: "High"}}, "not Archive"},
		{Blob{Type: blockBlob, Tier: tierArchive, TierChanged: now, Rehydrate: &rehydration{To: tierArchive, Priority: "High"}}, "rehydrating to"},
		{Blob{Type: blockBlob, TierChanged: now}, "no tier but"},
	} {
		var c checker
		checkTier(&c, "b", &tc.rec)
		if len(c.Violations()) == 0 || !strings.Contains(c.Violations()[0], tc.want) {
			t.Errorf("%+v: violations %v, want one mentioning %q", tc.rec, c.Violations(), tc.want)
		}
	}
}
