package softdelete

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

type gen struct {
	Thing   string
	Deleted time.Time
	Purge   time.Time
	State   string `json:",omitempty"`
}

func (g *gen) Stage() string      { return g.State }
func (g *gen) SetStage(st string) { g.State = st }
func (g *gen) PurgeAt() time.Time { return g.Purge }

var errNotFound, errExists, errMoving = errors.New("not found"), errors.New("exists"), errors.New("moving")

func prefix(acct string) tuple.Key { return tuple.Key{}.Str(acct).Raw("D") }

func liveKey(acct, name string) tuple.Key { return tuple.Key{}.Str(acct).Raw("L").Str(name) }

// fixture is a service whose only keys are the live record and the
// deleted records; its moves record what they were asked to do.
type fixture struct {
	kept  *Kept[gen, *gen]
	moves []string
}

func newFixture(store kv.Store) *fixture {
	f := &fixture{}
	f.kept = &Kept[gen, *gen]{
		Keys:  Keys[gen, *gen]{Prefix: prefix},
		Store: store,
		View:  store.View,
		MoveAside: func(_ context.Context, _, name, alias string) error {
			f.moves = append(f.moves, name+" -> "+alias)
			return nil
		},
		FinishRestore: func(ctx context.Context, acct, name, version string) error {
			f.moves = append(f.moves, Alias(name, version)+" -> "+name)
			return store.Update(ctx, func(tx kv.Txn) error {
				g, err := f.kept.EndRestore(tx, acct, name, version)
				if err != nil || g == nil {
					return err
				}
				return record.Store(tx, liveKey(acct, name), g)
			})
		},
	}
	return f
}

// The state machine end to end: two deletes within one tick get two
// versions, a moving generation blocks and is finished, a restore runs
// its move back, and the sweep purges only what expired.
func TestLifecycle(t *testing.T) {
	ctx := context.Background()
	store := memory.Open()
	f := newFixture(store)
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	var versions []string
	for range 2 {
		err := store.Update(ctx, func(tx kv.Txn) error {
			return f.kept.Retire(tx, "a", "c", now, &gen{Thing: "x", Deleted: now, Purge: now.AddDate(0, 0, 1)})
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	err := store.View(ctx, func(r kv.Reader) error {
		gens, err := f.kept.Of(r, "a", "c")
		for v, g := range gens {
			versions = append(versions, v)
			if g.State != Moving {
				t.Errorf("version %s: state %q, want moving", v, g.State)
			}
		}
		if moving, _ := f.kept.Moving(r, "a", "c"); !moving {
			t.Error("a freshly retired generation is not moving")
		}
		return err
	})
	if err != nil || len(versions) != 2 || versions[0] == versions[1] {
		t.Fatalf("versions %v, err %v: want two distinct", versions, err)
	}
	if err := f.kept.Finish(ctx, "a", "c"); err != nil {
		t.Fatal(err)
	}
	if len(f.moves) != 2 {
		t.Fatalf("moves %v, want one per generation", f.moves)
	}
	v := versions[0]
	err = store.Update(ctx, func(tx kv.Txn) error {
		return f.kept.BeginRestore(tx, "a", "c", v, now, liveKey("a", "c"), Errors{errNotFound, errExists, errMoving})
	})
	if err != nil {
		t.Fatal(err)
	}
	// A restore a crash cut short blocks the name until finished.
	err = store.Update(ctx, func(tx kv.Txn) error {
		return f.kept.BeginRestore(tx, "a", "c", versions[1], now, liveKey("a", "c"), Errors{errNotFound, errExists, errMoving})
	})
	if !errors.Is(err, errMoving) {
		t.Fatalf("restore while another restores: %v, want %v", err, errMoving)
	}
	if err := f.kept.Finish(ctx, "a", "c"); err != nil {
		t.Fatal(err)
	}
	if want := Alias("c", v) + " -> c"; f.moves[2] != want {
		t.Fatalf("moves %v, want the restore finished: %s", f.moves, want)
	}
	err = store.Update(ctx, func(tx kv.Txn) error {
		return f.kept.BeginRestore(tx, "a", "c", versions[1], now, liveKey("a", "c"), Errors{errNotFound, errExists, errMoving})
	})
	if !errors.Is(err, errExists) {
		t.Fatalf("restore over a live one: %v, want %v", err, errExists)
	}
	purge := func(ctx context.Context, acct, name, version string) (bool, error) {
		return kv.Returning(ctx, store.Update, func(tx kv.Txn) (bool, error) {
			_, ok, err := f.kept.Purge(tx, acct, name, version, now.AddDate(0, 0, 1))
			return ok, err
		})
	}
	var refs []Ref
	for _, at := range []time.Time{now, now.AddDate(0, 0, 1)} {
		err = store.View(ctx, func(r kv.Reader) error {
			var err error
			refs, err = f.kept.Pending(r, "a", at)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		n, err := f.kept.Sweep(ctx, refs, purge)
		if err != nil {
			t.Fatal(err)
		}
		if want := map[bool]int{false: 0, true: 1}[at.After(now)]; n != want {
			t.Fatalf("sweep at %v purged %d, want %d", at, n, want)
		}
	}
	if err := store.View(ctx, func(r kv.Reader) error {
		gens, err := f.kept.Of(r, "a", "c")
		if len(gens) != 0 {
			t.Errorf("generations left after the purge: %d", len(gens))
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
}
