package testkit

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// KeySet is a set of a store's keys, each with its value.
type KeySet map[string][]byte

// Keys reads every key of store under prefix (nil: the whole store) in
// one snapshot: what a test compares before and after a deletion, a move
// or a restore, to see that nothing was left behind or lost.
func Keys(t testing.TB, store kv.Store, prefix []byte) KeySet {
	t.Helper()
	out := KeySet{}
	err := store.View(context.Background(), func(r kv.Reader) error {
		return r.Scan(prefix, kv.PrefixEnd(prefix), func(k, v []byte) error {
			out[string(k)] = append([]byte(nil), v...)
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// Without is the set less the keys skip reports.
func (s KeySet) Without(skip func(key string) bool) KeySet {
	out := KeySet{}
	for k, v := range s {
		if !skip(k) {
			out[k] = v
		}
	}
	return out
}

// DiffKeys describes how the keys of got differ from those of want (the
// keys only, not their values): the keys want has and got lacks, and
// those got has beyond want, quoted and sorted; "" when they are the same.
func DiffKeys(want, got KeySet) string {
	var missing, extra []string
	for k := range want {
		if _, ok := got[k]; !ok {
			missing = append(missing, fmt.Sprintf("%q", k))
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			extra = append(extra, fmt.Sprintf("%q", k))
		}
	}
	if len(missing) == 0 && len(extra) == 0 {
		return ""
	}
	slices.Sort(missing)
	slices.Sort(extra)
	var b strings.Builder
	if len(missing) > 0 {
		fmt.Fprintf(&b, "%d keys missing: %s", len(missing), strings.Join(missing, " "))
	}
	if len(extra) > 0 {
		if b.Len() > 0 {
			b.WriteString("; ")
		}
		fmt.Fprintf(&b, "%d keys left over: %s", len(extra), strings.Join(extra, " "))
	}
	return b.String()
}
