package extentstore

import (
	"bytes"
	"context"
	"fmt"

	"github.com/cerulean-db/cerulean/internal/invariant"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/chunk"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// Checker collects what a service's invariant check reads of its data
// objects (chunks, references, registrations) and verifies the content
// store's invariants: every referenced object is whole and holds the
// bytes its references need, none is referenced while registered as
// staged or freed, and every object is referenced, staged or freed.
// Service checks record their other violations with Fail too, and report
// them all with Err.
type Checker[O comparable] struct {
	layout     *Layout[O]
	objects    map[object[O]]*chunks
	refs       map[object[O]]*reference
	staged     map[object[O]]bool
	freed      map[object[O]]bool
	dropped    []dropped
	violations invariant.Violations
}

type object[O comparable] struct {
	owner O
	id    uint64
}

// chunks is what the chunks of one data object add up to.
type chunks struct {
	count, last, bytes int64
}

// reference is what the references to one data object need of it.
type reference struct {
	what  string // the first reference, to name in a violation
	need  int64  // bytes the object must hold at least
	exact int64  // the object's size, -1 when no reference knows it
}

// NewChecker returns an empty checker for layout's data objects.
func NewChecker[O comparable](layout *Layout[O]) *Checker[O] {
	return &Checker[O]{
		layout:  layout,
		objects: map[object[O]]*chunks{},
		refs:    map[object[O]]*reference{},
		staged:  map[object[O]]bool{},
		freed:   map[object[O]]bool{},
	}
}

// Fail records a violation.
func (c *Checker[O]) Fail(format string, args ...any) { c.violations.Add(format, args...) }

// Chunk records a chunk of size bytes, number idx, of object id of o.
func (c *Checker[O]) Chunk(o O, id, idx uint64, size int) {
	d := object[O]{o, id}
	ch := c.objects[d]
	if ch == nil {
		ch = &chunks{}
		c.objects[d] = ch
	}
	ch.count++
	ch.last = max(ch.last, int64(idx))
	ch.bytes += int64(size)
}

// Ref records that what references object id of o and reads its bytes
// up to need.
func (c *Checker[O]) Ref(o O, id uint64, what string, need int64) { c.ref(o, id, what, need, -1) }

// RefSized records that what references object id of o, which holds
// exactly size bytes.
func (c *Checker[O]) RefSized(o O, id uint64, what string, size int64) {
	c.ref(o, id, what, size, size)
}

func (c *Checker[O]) ref(o O, id uint64, what string, need, exact int64) {
	d := object[O]{o, id}
	r := c.refs[d]
	if r == nil {
		c.refs[d] = &reference{what: what, need: need, exact: exact}
		return
	}
	r.need = max(r.need, need)
	if exact >= 0 {
		r.exact = exact
	}
}

// Run checks a service's keyspace on one snapshot of store: it hands
// every key under prefix to file (an error is a violation of that key),
// reads the registries, calls verify once everything is read, and returns
// Err. Run it on a quiescent store: in-flight writes may be half-way.
func (c *Checker[O]) Run(ctx context.Context, store kv.Store, prefix []byte, file func(k, v []byte) error, verify func()) error {
	err := store.View(ctx, func(r kv.Reader) error {
		if err := c.violations.Scan(r, prefix, file); err != nil {
			return err
		}
		return c.Registries(r)
	})
	if err != nil {
		return fmt.Errorf("check invariants: %w", err)
	}
	verify()
	return c.Err()
}

// Violations are the violations recorded so far, unsorted.
func (c *Checker[O]) Violations() []string { return c.violations.List() }

// Registries reads the layout's staged, freed and dropped registries
// from r.
func (c *Checker[O]) Registries(r kv.Reader) error {
	if c.layout.Dropped != nil {
		if err := c.violations.Scan(r, c.layout.Dropped, c.droppedEntry); err != nil {
			return err
		}
	}
	if c.layout.Registrations == nil {
		return nil
	}
	for _, reg := range []struct {
		prefix tuple.Key
		file   func(k, v []byte) error
	}{
		{c.layout.Staged, c.stagedEntry},
		{c.layout.Freed, c.freedEntry},
	} {
		if err := c.violations.Scan(r, reg.prefix, reg.file); err != nil {
			return err
		}
	}
	return nil
}

func (c *Checker[O]) stagedEntry(k, v []byte) error {
	id, err := lastUint(k)
	if err != nil {
		return err
	}
	o, _, err := c.layout.Registrations.ParseStaged(v)
	if err != nil {
		return err
	}
	c.staged[object[O]{o, id}] = true
	return nil
}

func (c *Checker[O]) freedEntry(_, v []byte) error {
	o, ids, err := c.layout.Registrations.ParseFreed(v)
	if err != nil {
		return err
	}
	for _, id := range ids {
		c.freed[object[O]{o, id}] = true
	}
	return nil
}

func (c *Checker[O]) droppedEntry(_, v []byte) error {
	var d dropped
	if err := record.Decode(v, &d); err != nil {
		return err
	}
	c.dropped = append(c.dropped, d)
	return nil
}

// isDropped reports whether object d lies in a registered dropped range.
func (c *Checker[O]) isDropped(d object[O]) bool {
	if len(c.dropped) == 0 {
		return false
	}
	k := c.layout.object(d.owner, d.id)
	for _, r := range c.dropped {
		if d.id < r.Below && bytes.Compare(k, r.From) >= 0 && bytes.Compare(k, r.To) < 0 {
			return true
		}
	}
	return false
}

// verifyObjects checks the data objects against their references and
// registrations.
func (c *Checker[O]) verifyObjects() {
	for d, r := range c.refs {
		ch := c.objects[d]
		switch {
		case ch == nil && r.need > 0:
			c.Fail("%s: data object %d is missing", r.what, d.id)
		case ch != nil && ch.count != ch.last+1:
			c.Fail("%s: data object %d has chunks numbered up to %d, %d of them", r.what, d.id, ch.last, ch.count)
		case ch != nil && r.exact >= 0 && (ch.bytes != r.exact || ch.count != chunksFor(r.exact)):
			c.Fail("%s: data object %d has chunks holding %d bytes in %d chunks, want %d bytes in %d", r.what, d.id, ch.bytes, ch.count, r.exact, chunksFor(r.exact))
		case ch != nil && ch.bytes < r.need:
			c.Fail("%s: data object %d holds %d bytes, %d needed", r.what, d.id, ch.bytes, r.need)
		}
		if c.freed[d] || c.isDropped(d) {
			c.Fail("%s: data object %d is registered as garbage", r.what, d.id)
		}
		if c.staged[d] {
			c.Fail("%s: data object %d is still registered as staged", r.what, d.id)
		}
	}
	for d := range c.objects {
		if c.refs[d] == nil && !c.staged[d] && !c.freed[d] && !c.isDropped(d) {
			c.Fail("%v: data object %d is referenced by nothing", d.owner, d.id)
		}
	}
}

// chunksFor is how many chunks hold a data object of size bytes.
func chunksFor(size int64) int64 { return (size + chunk.Size - 1) / chunk.Size }

// Err verifies the data objects and describes the first violations
// recorded, in order, in an error naming the service; nil when there are
// none.
func (c *Checker[O]) Err() error {
	c.verifyObjects()
	return c.violations.Err(c.layout.Name)
}

// lastUint decodes the integer element that ends a registry key.
func lastUint(k []byte) (uint64, error) {
	rd, err := tuple.NewReader(k, max(len(k)-8, 0))
	if err != nil {
		return 0, err
	}
	return rd.Uint()
}
