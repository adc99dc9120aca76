package testkit

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"sync/atomic"
)

var nameCounter atomic.Uint64

// Name returns a resource name unique within the test binary that starts
// with tag's letters and digits. The name is lower-case alphanumeric,
// starts with a letter and has 3 to 63 characters, so it is valid as a
// container, queue and table name alike (tables allow no hyphens). A
// random suffix keeps names apart across processes sharing a data
// directory.
func Name(tag string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(tag) {
		if ('a' <= r && r <= 'z') || ('0' <= r && r <= '9') {
			b.WriteRune(r)
		}
	}
	prefix := b.String()
	if prefix == "" || prefix[0] < 'a' {
		prefix = "r" + prefix
	}
	suffix := fmt.Sprintf("%dx%04x", nameCounter.Add(1), rand.Uint32()&0xffff)
	if room := 63 - len(suffix); len(prefix) > room {
		prefix = prefix[:room]
	}
	return prefix + suffix
}
