package invariant

import (
	"context"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// TestAccountKeySplits: a key splits into account, kind and the kind's
// elements; a key that ends after the account has no kind.
func TestAccountKey(t *testing.T) {
	acct, kind, rest, err := accountKey(tuple.New("Qa").Str("acct").Raw("m").Str("jobs"), "Qa")
	var queue string
	if err == nil {
		queue, err = rest.Str()
	}
	if err != nil || acct != "acct" || kind != 'm' || queue != "jobs" {
		t.Errorf("AccountKey: %q, %q, %q, %v", acct, kind, queue, err)
	}
	if _, _, _, err := accountKey(tuple.New("Qa").Str("acct"), "Qa"); err == nil {
		t.Error("a key without a kind split without an error")
	}
}

// TestCheck: no violation is no error; violations recorded while reading
// and when finishing are counted, the first ten spelled out; a key fn
// refuses is named; a failed read is the read's error, not a violation.
func TestCheck(t *testing.T) {
	ctx := context.Background()
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	if err := store.Update(ctx, func(tx kv.Txn) error {
		for _, k := range []string{"xa", "xb", "y"} {
			if err := tx.Set([]byte(k), []byte(k)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	quiet := func(kv.Reader, *Violations) error { return nil }
	if err := Check(ctx, store, "quiet", quiet, nil); err != nil {
		t.Errorf("no violation: %v", err)
	}
	err := Check(ctx, store, "noisy", func(r kv.Reader, v *Violations) error {
		return v.Scan(r, []byte("x"), func(k, _ []byte) error {
			if string(k) == "xb" {
				return tuple.ErrMalformed
			}
			return nil
		})
	}, func(v *Violations) {
		for i := range 11 {
			v.Add("then %02d", i) // shown after the key's, in sorted order
		}
	})
	if err == nil || !strings.HasPrefix(err.Error(), "noisy invariants: 12 violations:") || !strings.Contains(err.Error(), `key "xb": `+tuple.ErrMalformed.Error()) || strings.Count(err.Error(), "\n\t") != 10 || strings.Contains(err.Error(), "then 10") {
		t.Errorf("violations: %v", err)
	}
	broken := func(kv.Reader, *Violations) error { return kv.ErrClosed }
	if err := Check(ctx, store, "read", broken, nil); err == nil || !strings.HasSuffix(err.Error(), kv.ErrClosed.Error()) {
		t.Errorf("a failed read: %v", err)
	}
}
