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
//
// Handlers therefore name headers in Go's canonical form (X-Ms-Version,
// Content-Md5) whatever Azure's spelling: http.Header converts any other
// spelling on each Get and Set, and the conversion allocates a string.

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
		low, known := lowerAzureNames[k]
		if !known {
			low = strings.ToLower(k)
		}
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

// lowerAzureNames holds the lower-case form of the x-ms-* response
// headers most answers carry, so that rewriting them allocates nothing.
var lowerAzureNames = func() map[string]string {
	names := []string{
		"x-ms-request-id", "x-ms-client-request-id", "x-ms-version",
		"x-ms-error-code", "x-ms-request-server-encrypted",
		"x-ms-content-crc64", "x-ms-creation-time", "x-ms-blob-type",
		"x-ms-lease-state", "x-ms-lease-status", "x-ms-lease-duration",
		"x-ms-server-encrypted", "x-ms-access-tier",
		"x-ms-access-tier-inferred", "x-ms-version-id", "x-ms-is-current-version",
		"x-ms-blob-sequence-number", "x-ms-blob-committed-block-count",
		"x-ms-last-access-time", "x-ms-encryption-scope",
		"x-ms-encryption-key-sha256", "x-ms-continuation-nextpartitionkey",
		"x-ms-continuation-nextrowkey", "x-ms-continuation-nexttablename",
		"x-ms-popreceipt", "x-ms-time-next-visible", "x-ms-approximate-messages-count",
		"x-ms-file-attributes", "x-ms-file-creation-time", "x-ms-file-last-write-time",
		"x-ms-file-change-time", "x-ms-file-permission-key", "x-ms-file-id",
		"x-ms-file-parent-id", "x-ms-type", "x-ms-content-length",
	}
	m := make(map[string]string, len(names))
	for _, n := range names {
		m[http.CanonicalHeaderKey(n)] = n
	}
	return m
}()
