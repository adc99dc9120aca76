package azhttp

import (
	"net/http"
	"strings"
)

// Azure sends its own x-ms-* response headers in lower case, and some
// clients (the legacy Python Cosmos SDK, scripts comparing raw header
// names) look them up case-sensitively. Go's http.Header canonicalises a
// key on Set, so the wire case is restored here, once, just before the
// header goes out: Wrap's writer calls AzureHeaderCase on every response.

// canonicalAzurePrefix is the form http.Header.Set gives an x-ms-* name.
const canonicalAzurePrefix = "X-Ms-"

// AzureHeaderCase rewrites, in place, every x-ms-* key of h that Go
// canonicalised to the lower case Azure sends, and each of the extra
// names (given in any case) to its lower-case form. The name part of an
// x-ms-meta-* header keeps its case: only the prefix is Azure's. Values
// already stored under the lower-case key are replaced by the canonical
// key's, the last one a handler set.
func AzureHeaderCase(h http.Header, extra ...string) {
	for k, v := range h {
		if !strings.HasPrefix(k, canonicalAzurePrefix) {
			continue
		}
		low := strings.ToLower(k)
		if strings.HasPrefix(low, metaPrefix) {
			low = metaPrefix + k[len(metaPrefix):]
		}
		delete(h, k)
		h[low] = v
	}
	for _, name := range extra {
		ck := http.CanonicalHeaderKey(name)
		low := strings.ToLower(name)
		if v, ok := h[ck]; ok && ck != low {
			delete(h, ck)
			h[low] = v
		}
	}
}
