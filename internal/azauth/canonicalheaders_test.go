package azauth

import (
	"math/rand/v2"
	"net/http"
	"slices"
	"sort"
	"strings"
	"testing"
)

// referenceCanonicalHeaders is canonicalHeaders written out plainly: every
// form built, duplicates dropped after. canonicalHeaders skips the forms
// it can tell are duplicates; both must give the same list.
func referenceCanonicalHeaders(h http.Header) []string {
	values := map[string][]string{}
	var names []string
	for k, v := range h {
		name := strings.ToLower(strings.TrimSpace(k))
		if strings.HasPrefix(name, "x-ms-") {
			if _, ok := values[name]; !ok {
				names = append(names, name)
			}
			values[name] = append(values[name], v...)
		}
	}
	if len(names) == 0 {
		return []string{"", "\n"}
	}
	ordinal := slices.Clone(names)
	sort.Strings(ordinal)
	sdk := slices.Clone(names)
	sort.SliceStable(sdk, func(i, j int) bool { return referenceSDKLess(sdk[i], sdk[j]) })
	var out []string
	for _, order := range [][]string{ordinal, sdk} {
		for _, collapse := range []bool{true, false} {
			var b strings.Builder
			for _, name := range order {
				v := strings.Join(values[name], ",")
				if collapse {
					v = strings.Join(strings.Fields(v), " ")
				}
				b.WriteString(name + ":" + v + "\n")
			}
			out = append(out, b.String())
		}
	}
	return uniq(out)
}

func referenceSDKLess(a, b string) bool {
	key := func(s string) []int {
		var k []int
		for i := 0; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '-' || c == '\'':
			case c >= 'a' && c <= 'z':
				k = append(k, 0x300+int(c-'a'))
			case c >= 'A' && c <= 'Z':
				k = append(k, 0x300+int(c-'A'))
			case c >= '0' && c <= '9':
				k = append(k, 0x200+int(c-'0'))
			case c == '+':
				k = append(k, 0x1ff)
			default:
				k = append(k, 0x100+int(c))
			}
		}
		return k
	}
	if c := slices.Compare(key(a), key(b)); c != 0 {
		return c < 0
	}
	return a < b
}

func TestCanonicalHeadersMatchesReference(t *testing.T) {
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 0))
	names := []string{"x-ms-date", "X-Ms-Version", "x-ms-blob-type", "x-ms-meta-a_b", "x-ms-meta-ab", "x-ms-meta-a-c",
		"x-ms-meta-A1", "x-ms-meta-a+", "x-ms-meta-a'b", "x-ms-client-request-id", "x-ms-meta-9", "Content-Type", " x-ms-pad "}
	values := []string{"v", "a b", "a  b", " lead", "trail ", "tab\there", "", "x,y", "nb\u00a0sp", "2026-11-22"}
	for range 2000 {
		h := http.Header{}
		for range rng.IntN(7) {
			n := names[rng.IntN(len(names))]
			h[n] = append(h[n], values[rng.IntN(len(values))])
		}
		got, want := canonicalHeaders(h), referenceCanonicalHeaders(h)
		if !slices.Equal(got, want) {
			t.Fatalf("canonicalHeaders(%q) = %q, want %q", h, got, want)
		}
	}
}
