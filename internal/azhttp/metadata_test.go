package azhttp

import (
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

func TestParseMetadata(t *testing.T) {
	h := http.Header{}
	h.Set("x-ms-meta-Author", "Ada")
	h.Set("x-ms-meta-_v2", "x")
	m, err := ParseMetadata(h)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := m.Get("author"); v != "Ada" || len(m) != 2 {
		t.Fatalf("metadata %v", m)
	}
	for name, want := range map[string]error{
		"x-ms-meta-1abc":  azerr.ErrInvalidMetadata,
		"x-ms-meta-a-b":   azerr.ErrInvalidMetadata,
		"x-ms-meta-":      azerr.ErrEmptyMetadataKey,
		"x-ms-meta-large": azerr.ErrMetadataTooLarge,
	} {
		h := http.Header{}
		v := "v"
		if name == "x-ms-meta-large" {
			v = strings.Repeat("v", MaxMetadataSize+1)
		}
		h[name] = []string{v}
		if _, err := ParseMetadata(h); !errors.Is(err, want) {
			t.Errorf("%s: %v, want %v", name, err, want)
		}
	}
}
