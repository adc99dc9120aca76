package memory

import (
	"bytes"

	"github.com/google/btree"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/occ"
)

type item struct{ key, value []byte }

func less(a, b item) bool { return bytes.Compare(a.key, b.key) < 0 }

// engine holds the current tree. Apply runs under the manager's exclusive
// commit lock and Snapshot under its shared lock; Clone mutates the tree it
// clones, so Apply takes the clone that concurrent Snapshots then share.
type engine struct {
	tree    *btree.BTreeG[item]
	frozen  *btree.BTreeG[item]
	version uint64
}

// Open returns an empty in-memory store.
func Open() kv.Store {
	e := &engine{tree: btree.NewG(32, less)}
	e.frozen = e.tree.Clone()
	m, err := occ.New(e)
	if err != nil {
		panic(err) // the memory engine's LoadVersion cannot fail
	}
	return m
}

func (e *engine) Snapshot() occ.Snapshot { return snapshot{e.frozen} }

func (e *engine) Apply(w *occ.WriteSet) (func() error, error) {
	for _, r := range w.Ranges() {
		var doomed []item
		ascend(e.tree, r.Start, r.End, func(it item) bool { doomed = append(doomed, it); return true })
		for _, it := range doomed {
			e.tree.Delete(it)
		}
	}
	w.Points(func(p occ.Write) {
		if p.Delete {
			e.tree.Delete(item{key: p.Key})
			return
		}
		e.tree.ReplaceOrInsert(item{key: p.Key, value: p.Value})
	})
	e.frozen = e.tree.Clone()
	return nil, nil
}

func (e *engine) LoadVersion() (uint64, error) { return e.version, nil }
func (e *engine) SaveVersion(v uint64) error   { e.version = v; return nil }

func ascend(t *btree.BTreeG[item], start, end []byte, fn func(item) bool) {
	if end == nil {
		t.AscendGreaterOrEqual(item{key: start}, fn)
		return
	}
	t.AscendRange(item{key: start}, item{key: end}, fn)
}

type snapshot struct{ tree *btree.BTreeG[item] }

func (s snapshot) Get(key []byte) ([]byte, error) {
	it, ok := s.tree.Get(item{key: key})
	if !ok {
		return nil, kv.ErrNotFound
	}
	return bytes.Clone(it.value), nil
}

func (s snapshot) Scan(start, end []byte, fn func(key, value []byte) error) error {
	var err error
	ascend(s.tree, start, end, func(it item) bool {
		err = fn(it.key, it.value)
		return err == nil
	})
	return err
}

func (s snapshot) Release() {}
