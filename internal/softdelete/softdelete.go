package softdelete

import (
	"context"
	"errors"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// The states of a deleted generation.
const (
	AtRest    = ""          // the keys are under the alias
	Moving    = "moving"    // the keys are moving name -> alias
	Restoring = "restoring" // the keys are moving alias -> name
)

// Gen is a pointer to a caller's record of a deleted generation.
type Gen[T any] interface {
	*T
	// Stage is the record's state.
	Stage() string
	// SetStage sets the record's state.
	SetStage(string)
	// PurgeAt is when the generation's retention ends.
	PurgeAt() time.Time
}

// Expired reports whether g's retention has passed at now.
func Expired[T any, P Gen[T]](g P, now time.Time) bool { return !now.Before(g.PurgeAt()) }

// Alias is the name a deleted generation's keys live under.
func Alias(name, version string) string { return name + "/" + version }

// Keys are where one service's deleted generations are stored: what a
// transaction reads and writes of them.
type Keys[T any, P Gen[T]] struct {
	// Prefix is the key prefix of an account's deleted generations.
	Prefix func(acct string) tuple.Key
}

// Kept is the deleted generations of one service's resources, with the
// moves of their keys.
type Kept[T any, P Gen[T]] struct {
	Keys[T, P]
	Store kv.Store
	// View reads one committed snapshot of Store.
	View func(ctx context.Context, fn func(kv.Reader) error) error
	// MoveAside moves every key of the resource name to alias.
	MoveAside func(ctx context.Context, acct, name, alias string) error
	// FinishRestore moves a restoring generation's keys back and makes
	// it the live resource again.
	FinishRestore func(ctx context.Context, acct, name, version string) error
}

// NamePrefix is the key prefix of a name's deleted generations.
func (k Keys[T, P]) NamePrefix(acct, name string) tuple.Key { return k.Prefix(acct).Str(name) }

// Key is the key of a deleted generation's record.
func (k Keys[T, P]) Key(acct, name, version string) tuple.Key {
	return k.NamePrefix(acct, name).Str(version)
}

// Of returns the deleted generations of a name by version.
func (k Keys[T, P]) Of(r kv.Reader, acct, name string) (map[string]P, error) {
	p := k.NamePrefix(acct, name)
	out := map[string]P{}
	err := r.Scan(p, kv.PrefixEnd(p), func(key, v []byte) error {
		var version string
		g, err := entry[T, P](key, len(p), v, &version)
		if err != nil {
			return err
		}
		out[version] = g
		return nil
	})
	return out, err
}

// Load returns a deleted generation's record, or nil.
func (k Keys[T, P]) Load(r kv.Reader, acct, name, version string) (P, error) {
	g := P(new(T))
	found, err := record.Load(r, k.Key(acct, name, version), g)
	if err != nil || !found {
		return nil, err
	}
	return g, nil
}

// Retire records g, in the state Moving, as a deleted generation of name
// deleted at now, in the caller's delete transaction.
func (k Keys[T, P]) Retire(tx kv.Txn, acct, name string, now time.Time, g P) error {
	gens, err := k.Of(tx, acct, name)
	if err != nil {
		return err
	}
	at := now
	version := azhttp.DeletedVersion(at)
	for gens[version] != nil { // two deletes within one tick
		at = at.Add(100 * time.Nanosecond)
		version = azhttp.DeletedVersion(at)
	}
	g.SetStage(Moving)
	return record.Store(tx, k.Key(acct, name, version), g)
}

// Moving reports whether a generation of the name is on the move.
func (k Keys[T, P]) Moving(r kv.Reader, acct, name string) (bool, error) {
	gens, err := k.Of(r, acct, name)
	if err != nil {
		return false, err
	}
	for _, g := range gens {
		if g.Stage() != AtRest {
			return true, nil
		}
	}
	return false, nil
}

// Finish completes every interrupted or pending move of a name's deleted
// generations.
func (k *Kept[T, P]) Finish(ctx context.Context, acct, name string) error {
	var gens map[string]P
	err := k.View(ctx, func(r kv.Reader) error {
		var err error
		gens, err = k.Of(r, acct, name)
		return err
	})
	if err != nil {
		return err
	}
	for version, g := range gens {
		switch g.Stage() {
		case Moving:
			err = k.moveAside(ctx, acct, name, version)
		case Restoring:
			err = k.FinishRestore(ctx, acct, name, version)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// moveAside moves a generation's keys name -> alias and marks it at
// rest, if it is still moving.
func (k *Kept[T, P]) moveAside(ctx context.Context, acct, name, version string) error {
	if err := k.MoveAside(ctx, acct, name, Alias(name, version)); err != nil {
		return err
	}
	return k.Store.Update(ctx, func(tx kv.Txn) error {
		g, err := k.Load(tx, acct, name, version)
		if err != nil || g == nil || g.Stage() != Moving {
			return err
		}
		g.SetStage(AtRest)
		return record.Store(tx, k.Key(acct, name, version), g)
	})
}

// Ref names a deleted generation Sweep acts on.
type Ref struct {
	Acct, Name, Version string
	// Expired is whether its retention had passed when it was found.
	Expired bool
}

// Pending returns an account's deleted generations that have expired at
// now or are on the move.
func (k Keys[T, P]) Pending(r kv.Reader, acct string, now time.Time) ([]Ref, error) {
	var out []Ref
	p := k.Prefix(acct)
	err := r.Scan(p, kv.PrefixEnd(p), func(key, v []byte) error {
		g := P(new(T))
		if err := record.Decode(v, g); err != nil {
			return err
		}
		expired := Expired(g, now)
		if !expired && g.Stage() == AtRest {
			return nil
		}
		rd, err := tuple.NewReader(key, len(p))
		if err != nil {
			return err
		}
		ref := Ref{Acct: acct, Expired: expired}
		if ref.Name, err = rd.Str(); err != nil {
			return err
		}
		if ref.Version, err = rd.Str(); err != nil {
			return err
		}
		out = append(out, ref)
		return nil
	})
	return out, err
}

// Sweep finishes the moves of the generations refs name, whether or not
// they expired, and calls purge on the expired ones; it reports how many
// purge removed. purge checks again, in its own transaction, that the
// generation is at rest and expired.
func (k *Kept[T, P]) Sweep(ctx context.Context, refs []Ref, purge func(ctx context.Context, acct, name, version string) (bool, error)) (int, error) {
	n := 0
	for _, ref := range refs {
		if err := k.Finish(ctx, ref.Acct, ref.Name); err != nil {
			return n, err
		}
		if !ref.Expired {
			continue
		}
		purged, err := purge(ctx, ref.Acct, ref.Name, ref.Version)
		if err != nil {
			return n, err
		}
		if purged {
			n++
		}
	}
	return n, nil
}

// Purge drops the record of a generation that is at rest and expired at
// now, in the caller's transaction, which then removes the keys under
// the alias it returns; ok is false, and nothing changes, otherwise.
func (k Keys[T, P]) Purge(tx kv.Txn, acct, name, version string, now time.Time) (alias string, ok bool, err error) {
	g, err := k.Load(tx, acct, name, version)
	if err != nil || g == nil || g.Stage() != AtRest || !Expired(g, now) {
		return "", false, err
	}
	return Alias(name, version), true, tx.Delete(k.Key(acct, name, version))
}

// Errors are what a caller answers when a restore cannot start.
type Errors struct {
	NotFound, Exists, BeingDeleted error
}

// BeginRestore marks the generation restoring, in the caller's
// transaction: e.NotFound when it is not kept or has expired at now,
// e.Exists when live (the resource record's key) exists, e.BeingDeleted
// while a generation of the name is on the move.
func (k Keys[T, P]) BeginRestore(tx kv.Txn, acct, name, version string, now time.Time, live []byte, e Errors) error {
	g, err := k.Load(tx, acct, name, version)
	if err != nil {
		return err
	}
	if g == nil || Expired(g, now) {
		return e.NotFound
	}
	if _, err := tx.Get(live); err == nil {
		return e.Exists
	} else if !errors.Is(err, kv.ErrNotFound) {
		return err
	}
	if moving, err := k.Moving(tx, acct, name); err != nil {
		return err
	} else if moving {
		return e.BeingDeleted
	}
	g.SetStage(Restoring)
	return record.Store(tx, k.Key(acct, name, version), g)
}

// EndRestore drops the record of a restoring generation, in the
// transaction that makes it live again, and returns it; nil, and nothing
// changes, when it is not restoring.
func (k Keys[T, P]) EndRestore(tx kv.Txn, acct, name, version string) (P, error) {
	g, err := k.Load(tx, acct, name, version)
	if err != nil || g == nil || g.Stage() != Restoring {
		return nil, err
	}
	return g, tx.Delete(k.Key(acct, name, version))
}

// List calls fn, in name and version order, on an account's generations
// kept at now whose names start with prefix, from marker on when it
// follows prefix, and stops after max+1 of them.
func (k Keys[T, P]) List(r kv.Reader, acct, prefix, marker string, max int, now time.Time, fn func(name, version string, g P)) error {
	p := k.Prefix(acct)
	start, end := p.StrPrefix(prefix), kv.PrefixEnd(p.StrPrefix(prefix))
	if marker > prefix {
		start = p.Str(marker)
	}
	listed := 0
	return r.Scan(start, end, func(key, v []byte) error {
		var name, version string
		g, err := entry[T, P](key, len(p), v, &name, &version)
		if err != nil {
			return err
		}
		if !Expired(g, now) {
			fn(name, version, g)
			listed++
		}
		if listed > max {
			return kv.ErrStopScan
		}
		return nil
	})
}

// entry decodes a stored record v and the names its key holds after skip.
func entry[T any, P Gen[T]](key []byte, skip int, v []byte, names ...*string) (P, error) {
	rd, err := tuple.NewReader(key, skip)
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		if *n, err = rd.Str(); err != nil {
			return nil, err
		}
	}
	g := P(new(T))
	return g, record.Decode(v, g)
}
