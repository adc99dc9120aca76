package guid_test

import (
	"regexp"
	"testing"

	"github.com/cerulean-db/cerulean/internal/guid"
)

// TestNewIsAVersion4GUID: 8-4-4-4-12 lower-case hex, version 4, RFC 4122
// variant, and no two alike.
func TestNewIsAVersion4GUID(t *testing.T) {
	form := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	seen := map[string]bool{}
	for range 100 {
		id := guid.New()
		if !form.MatchString(id) {
			t.Fatalf("%q is not a version-4 GUID", id)
		}
		if seen[id] {
			t.Fatalf("%q drawn twice", id)
		}
		seen[id] = true
	}
}

// TestParseDotNetForms: every form .NET's Guid.Parse reads comes back in
// the canonical form; near misses are refused.
func TestParseDotNetForms(t *testing.T) {
	const want = "ca761232-ed42-11ce-bacd-00aa0057b223"
	for _, s := range []string{
		"ca761232ed4211cebacd00aa0057b223",
		"CA761232ED4211CEBACD00AA0057B223",
		"ca761232-ed42-11ce-bacd-00aa0057b223",
		"CA761232-ED42-11CE-BACD-00AA0057B223",
		"{ca761232-ed42-11ce-bacd-00aa0057b223}",
		"(ca761232-ed42-11ce-bacd-00aa0057b223)",
		"{0xca761232,0xed42,0x11ce,{0xba,0xcd,0x00,0xaa,0x00,0x57,0xb2,0x23}}",
		"{0xca761232,0xed42,0x11ce,{0xba,0xcd,0x0,0xaa,0x0,0x57,0xb2,0x23}}",
		"  ca761232-ed42-11ce-bacd-00aa0057b223 ",
	} {
		got, ok := guid.Parse(s)
		if !ok || got != want {
			t.Errorf("Parse(%q) = %q, %v; want %q", s, got, ok, want)
		}
	}
	for _, s := range []string{
		"", "copynotstarted",
		"ca761232ed4211cebacd00aa0057b22",
		"ca761232ed4211cebacd00aa0057b22g",
		"ca761232-ed4211ce-bacd-00aa0057b223",
		"ca761232-ed42-11ce-bacd-00aa0057b2233",
		"{ca761232-ed42-11ce-bacd-00aa0057b223)",
		"{ca761232ed4211cebacd00aa0057b223}",
		"{0xca761232,0xed42,0x11ce,{0xba,0xcd,0x00,0xaa,0x00,0x57,0xb2}}",
		"{0xca761232,0xed42,0x11ce,{0xba,0xcd,0x00,0xaa,0x00,0x57,0xb2,0x123}}",
	} {
		if got, ok := guid.Parse(s); ok {
			t.Errorf("Parse(%q) = %q, accepted", s, got)
		}
	}
}
