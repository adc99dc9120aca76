// Package invariant is what the services' invariant checks share: one
// snapshot of the store to read, a list of the violations found, and the
// error that describes the first of them.
package invariant

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// maxReported is how many violations an error spells out.
const maxReported = 10

// Violations collects what a check finds wrong.
type Violations struct{ found []string }

// Add records one violation.
func (v *Violations) Add(format string, args ...any) {
	v.found = append(v.found, fmt.Sprintf(format, args...))
}

// Scan calls fn with every key under prefix and its value, recording an
// error fn returns as a violation of that key; the scan goes on.
func (v *Violations) Scan(r kv.Reader, prefix []byte, fn func(k, val []byte) error) error {
	return r.Scan(prefix, kv.PrefixEnd(prefix), func(k, val []byte) error {
		if err := fn(k, val); err != nil {
			v.Add("key %q: %v", k, err)
		}
		return nil
	})
}

// Check runs read on one snapshot of store and then finish (which may be
// nil) on what it gathered, and describes the violations they recorded:
// nil when there are none. A failure to read the store is returned as
// such, not as a violation. what names the service in the error.
func Check(ctx context.Context, store kv.Store, what string, read func(kv.Reader, *Violations) error, finish func(*Violations)) error {
	var v Violations
	if err := store.View(ctx, func(r kv.Reader) error { return read(r, &v) }); err != nil {
		return fmt.Errorf("check %s invariants: %w", what, err)
	}
	if finish != nil {
		finish(&v)
	}
	return v.Err(what)
}

// List is the violations recorded so far, in the order recorded.
func (v *Violations) List() []string { return v.found }

// Err describes the violations recorded, the first maxReported of them
// in sorted order (a check's maps visit in any order), in an error naming
// the service what; nil when there are none.
func (v *Violations) Err(what string) error {
	if len(v.found) == 0 {
		return nil
	}
	sorted := slices.Clone(v.found)
	slices.Sort(sorted)
	shown := sorted[:min(len(sorted), maxReported)]
	return fmt.Errorf("%s invariants: %d violations:\n\t%s", what, len(sorted), strings.Join(shown, "\n\t"))
}

// ScanAccounts scans a Storage service's account keyspace — prefix, then
// each account's records, as accountKey splits them — and calls fn with
// every record but the accounts' service properties (kind 'p', package
// svcprops's), recording its errors as Scan does.
func (v *Violations) ScanAccounts(r kv.Reader, prefix string, fn func(acct string, kind byte, rest *tuple.Reader, k, val []byte) error) error {
	return v.Scan(r, []byte(prefix), func(k, val []byte) error {
		acct, kind, rest, err := accountKey(k, prefix)
		if err != nil || kind == 'p' {
			return err
		}
		return fn(acct, kind, rest, k, val)
	})
}

// accountKey splits a key of a Storage service's account keyspace —
// prefix, the account, one byte naming the kind of record, then that
// kind's elements — into the account, the kind and a reader over the
// elements.
func accountKey(k []byte, prefix string) (acct string, kind byte, rest *tuple.Reader, err error) {
	rd, err := tuple.NewReader(k, len(prefix))
	if err == nil {
		acct, err = rd.Str()
	}
	at := len(tuple.New(prefix).Str(acct))
	if err == nil && at >= len(k) {
		err = tuple.ErrMalformed
	}
	if err == nil {
		rest, err = tuple.NewReader(k, at+1)
	}
	if err != nil {
		return "", 0, nil, err
	}
	return acct, k[at], rest, nil
}
