package testkit

import "testing"

// The response-header overrides the SAS override tests (Blob and Files)
// sign: rscc, rscd, rsce, rscl and rsct.
const (
	OverrideCacheControl       = "no-cache"
	OverrideContentDisposition = "attachment; filename=x.txt"
	OverrideContentEncoding    = "identity"
	OverrideContentLanguage    = "de"
	OverrideContentType        = "text/plain"
)

// CheckOverrides fails the test unless each of the answer's headers
// (Cache-Control, Content-Disposition, Content-Encoding,
// Content-Language, Content-Type, as an SDK response gives them) is the
// matching Override value; what names the answer.
func CheckOverrides(t testing.TB, what string, cc, cd, ce, cl, ct *string) {
	t.Helper()
	for _, h := range []struct {
		got  *string
		want string
	}{
		{cc, OverrideCacheControl}, {cd, OverrideContentDisposition}, {ce, OverrideContentEncoding}, {cl, OverrideContentLanguage}, {ct, OverrideContentType},
	} {
		if h.got == nil || *h.got != h.want {
			t.Errorf("%s: header %v, want %q", what, h.got, h.want)
		}
	}
}
