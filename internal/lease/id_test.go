package lease

import (
	"errors"
	"testing"
	"time"
)

// Azure reads a lease ID as .NET reads a GUID: @azure/storage-blob's live
// lease tests (test/node/leaseclient.spec.ts) propose
// "ca761232ed4211cebacd00aa0057b223" and Azure accepts it; the replay of
// that recording (test/parity, js-leaseclient_from_container-…) checks
// the wire.
func TestIDForms(t *testing.T) {
	forms := []string{
		"ca761232ed4211cebacd00aa0057b223",
		"CA761232ED4211CEBACD00AA0057B223",
		"ca761232-ed42-11ce-bacd-00aa0057b223",
		"CA761232-ED42-11CE-BACD-00AA0057B223",
		"{ca761232-ed42-11ce-bacd-00aa0057b223}",
		"(CA761232-ED42-11CE-BACD-00AA0057B223)",
	}
	for _, a := range forms {
		if !ValidID(a) {
			t.Errorf("ValidID(%q) = false", a)
		}
		for _, b := range forms {
			if !SameID(a, b) {
				t.Errorf("SameID(%q, %q) = false", a, b)
			}
		}
	}
	for _, bad := range []string{
		"", "badbadbad", "ca761232ed4211cebacd00aa0057b22", "ca761232ed4211cebacd00aa0057b2233",
		"ca761232-ed42-11ce-bacd00aa0057b2233", "{ca761232-ed42-11ce-bacd-00aa0057b223)",
		"{ca761232ed4211cebacd00aa0057b223}", "ga761232ed4211cebacd00aa0057b223",
	} {
		if ValidID(bad) {
			t.Errorf("ValidID(%q) = true", bad)
		}
	}
	if SameID("ca761232ed4211cebacd00aa0057b223", "ca761232ed4211cebacd00aa0057b224") {
		t.Error("different GUIDs compared equal")
	}
}

// A lease acquired under one form of its ID is renewed, changed, used and
// released under another.
func TestIDFormsAcrossActions(t *testing.T) {
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	l, _, err := Lease{}.Apply(now, Request{Action: Acquire, Duration: 30, ProposedID: "ca761232ed4211cebacd00aa0057b223"}, fixedID)
	if err != nil {
		t.Fatal(err)
	}
	if err := l.CheckUse(now, "CA761232-ED42-11CE-BACD-00AA0057B223", true); err != nil {
		t.Errorf("write under the hyphenated upper-case form: %v", err)
	}
	if l, _, err = l.Apply(now, Request{Action: Renew, ID: "{ca761232-ed42-11ce-bacd-00aa0057b223}"}, fixedID); err != nil {
		t.Errorf("renew under the braced form: %v", err)
	}
	if _, _, err = l.Apply(now, Request{Action: Release, ID: "ca761232-ed42-11ce-bacd-00aa0057b223"}, fixedID); err != nil {
		t.Errorf("release under the hyphenated form: %v", err)
	}
	if err := l.CheckUse(now, "ca761232ed4211cebacd00aa0057b224", true); !errors.Is(err, ErrIDMismatch) {
		t.Errorf("another GUID: %v, want ErrIDMismatch", err)
	}
}
