package kvtest

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// Counting wraps a kv.Store and records every Get and Scan that View and
// Update closures make, so that a test can pin how many reads an operation
// costs. A retried Update counts each attempt. A Get of a key the same
// transaction attempt has read before is recorded with a "held" mark: the
// embedded engines answer it from the transaction's read set, not from
// their store, so it costs no lookup there.
type Counting struct {
	kv.Store
	mu    sync.Mutex
	reads []string
}

// NewCounting wraps s.
func NewCounting(s kv.Store) *Counting { return &Counting{Store: s} }

// Reads returns the reads recorded since the last Reset, in order: "get KEY",
// "get KEY (held)" or "scan START..END", keys quoted.
func (c *Counting) Reads() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.reads...)
}

// Reset forgets the reads recorded so far.
func (c *Counting) Reset() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads = nil
}

func (c *Counting) note(format string, args ...any) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads = append(c.reads, fmt.Sprintf(format, args...))
}

// View implements kv.Store.
func (c *Counting) View(ctx context.Context, fn func(kv.Reader) error) error {
	return c.Store.View(ctx, func(r kv.Reader) error { return fn(countingReader{r, c}) })
}

// Update implements kv.Store.
func (c *Counting) Update(ctx context.Context, fn func(kv.Txn) error) error {
	return c.Store.Update(ctx, func(tx kv.Txn) error {
		return fn(countingTxn{Txn: tx, c: c, read: map[string]bool{}})
	})
}

// Lookups returns the reads that are not marked held.
func (c *Counting) Lookups() []string {
	var out []string
	for _, r := range c.Reads() {
		if !strings.HasSuffix(r, heldMark) {
			out = append(out, r)
		}
	}
	return out
}

const heldMark = " (held)"

type countingReader struct {
	kv.Reader
	c *Counting
}

func (r countingReader) Get(key []byte) ([]byte, error) {
	r.c.note("get %q", key)
	return r.Reader.Get(key)
}

func (r countingReader) Scan(start, end []byte, fn func(key, value []byte) error) error {
	r.c.note("scan %q..%q", start, end)
	return r.Reader.Scan(start, end, fn)
}

type countingTxn struct {
	kv.Txn
	c    *Counting
	read map[string]bool // keys this attempt has read with Get
}

func (t countingTxn) Get(key []byte) ([]byte, error) {
	if t.read[string(key)] {
		t.c.note("get %q"+heldMark, key)
	} else {
		t.read[string(key)] = true
		t.c.note("get %q", key)
	}
	return t.Txn.Get(key)
}

func (t countingTxn) Scan(start, end []byte, fn func(key, value []byte) error) error {
	t.c.note("scan %q..%q", start, end)
	return t.Txn.Scan(start, end, fn)
}
