package liveness

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"log/slog"
	"time"

	"github.com/cerulean-db/cerulean/internal/background"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

const (
	// TTL is how long a process that stopped renewing counts as alive.
	TTL = 30 * time.Second
	// RenewEvery is how often a process renews its record.
	RenewEvery = 10 * time.Second
)

func key(id string) tuple.Key { return tuple.New(keyspace.ProcessLiveness).Str(id) }

func prefix() tuple.Key { return tuple.New(keyspace.ProcessLiveness) }

type lease struct {
	Expires time.Time
}

// Registry is this process's record and the way to ask about others.
type Registry struct {
	store kv.Store
	id    string
	now   func() time.Time
	stop  func()
}

// Register writes this process's record under a new random id and renews
// it every RenewEvery until Close.
func Register(ctx context.Context, store kv.Store, now func() time.Time, log *slog.Logger) (*Registry, error) {
	if now == nil {
		now = time.Now
	}
	b := make([]byte, 12)
	if _, err := rand.Read(b); err != nil {
		return nil, err
	}
	r := &Registry{store: store, id: hex.EncodeToString(b), now: now}
	if _, err := r.renew(ctx); err != nil {
		return nil, fmt.Errorf("register the process: %w", err)
	}
	r.stop = background.Every(RenewEvery, log, "process liveness renewal", r.renew)
	return r, nil
}

// ID is this process's id, to be recorded as the owner of unfinished work.
func (r *Registry) ID() string { return r.id }

// renew extends this process's record and removes the expired records of
// processes that are gone; it returns how many it removed.
func (r *Registry) renew(ctx context.Context) (int, error) {
	removed := 0
	err := r.store.Update(ctx, func(tx kv.Txn) error {
		removed = 0
		now := r.now()
		var expired [][]byte
		p := prefix()
		err := tx.Scan(p, kv.PrefixEnd(p), func(k, v []byte) error {
			var l lease
			if err := record.Decode(v, &l); err != nil {
				return err
			}
			if !now.Before(l.Expires) {
				expired = append(expired, append([]byte(nil), k...))
			}
			return nil
		})
		if err != nil {
			return fmt.Errorf("scan liveness records: %w", err)
		}
		for _, k := range expired {
			if err := tx.Delete(k); err != nil {
				return err
			}
		}
		removed = len(expired)
		return record.Store(tx, key(r.id), lease{Expires: now.Add(TTL)})
	})
	return removed, err
}

// Alive reports, in the snapshot rd, whether process id is running: this
// process, or one whose record has not expired.
func (r *Registry) Alive(rd kv.Reader, id string) (bool, error) {
	if id == r.id {
		return true, nil
	}
	if id == "" {
		return false, nil
	}
	var l lease
	found, err := record.Load(rd, key(id), &l)
	if err != nil {
		return false, err
	}
	return found && r.now().Before(l.Expires), nil
}

// Close stops the renewals and deletes this process's record, so that what
// it left behind is reclaimed at once.
func (r *Registry) Close(ctx context.Context) error {
	r.stop()
	return r.store.Update(ctx, func(tx kv.Txn) error { return tx.Delete(key(r.id)) })
}
