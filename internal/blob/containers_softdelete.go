package blob

import (
	"context"
	"sort"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/lease"
	"github.com/cerulean-db/cerulean/internal/softdelete"
)

// Container soft delete (WithContainerRetention) retires a deleted
// container instead of removing it. One transaction removes the container
// record (so the container and its blobs are gone for every operation),
// drops its tag index entries and records it under "Ba acct r name
// version" in the state moving; then its keys move, in transactions of
// bounded size, to the container name "name/version" (never a real
// container name: it has a slash), its alias, and the state becomes
// retired. Several deleted generations of a name can so be kept at once,
// and a new container of the name starts empty.
//
// Restore Container reverses it: state restoring, the keys move back
// (re-indexing tags), and one last transaction writes the container
// record and drops the retired one. A move that a crash interrupted is
// finished by the next Create Container or Restore Container of the name
// or by PurgeExpired, which also removes retired containers whose
// retention has passed. While a move runs, Create Container of the name
// answers ContainerBeingDeleted, as Azure does right after a delete.
//
// The states, moves and crash rules are package softdelete's; this file
// keeps the record, its keys' moves and the wire errors.

// retiredContainer is a soft-deleted container.
type retiredContainer struct {
	Container Container
	Deleted   time.Time
	Purge     time.Time
	State     string `json:",omitempty"`
}

func (rc *retiredContainer) Stage() string      { return rc.State }
func (rc *retiredContainer) SetStage(st string) { rc.State = st }
func (rc *retiredContainer) PurgeAt() time.Time { return rc.Purge }

func retiredPrefix(acct string) tuple.Key { return accountKey(acct).Raw("r") }

// retiredKeys are where the retired containers are stored.
var retiredKeys = softdelete.Keys[retiredContainer, *retiredContainer]{Prefix: retiredPrefix}

// retired is the shared soft delete state machine over the retired
// containers.
func (s *Service) retired() *softdelete.Kept[retiredContainer, *retiredContainer] {
	return &softdelete.Kept[retiredContainer, *retiredContainer]{
		Keys:  retiredKeys,
		Store: s.store,
		View:  s.store.View,
		MoveAside: func(ctx context.Context, acct, name, alias string) error {
			return s.moveKeys(ctx, acct, name, alias, false)
		},
		FinishRestore: func(ctx context.Context, acct, name, version string) error {
			_, err := s.completeRestore(ctx, acct, name, version)
			return err
		},
	}
}

// retiredAlias is the container name a retired container's keys live under.
func retiredAlias(name, version string) string { return softdelete.Alias(name, version) }

// movedTags are the key families that move with a retired container; its
// tag index ("t") is dropped instead and rebuilt on restore.
var movedTags = []string{"o", "x", "u", "k", "l", "d", "n", "z", "v", "w"}

// retireContainer soft-deletes the container c; the caller's commit hides
// it, and finishMoves moves its keys to the alias.
func (t *Tx) retireContainer(acct, name string, c *Container) error {
	c.Lease = lease.Lease{}
	r := &retiredContainer{Container: *c, Deleted: t.now, Purge: t.now.AddDate(0, 0, t.dp.containerRetention)}
	if err := retiredKeys.Retire(t.tx, acct, name, t.now, r); err != nil {
		return err
	}
	p := tagIndexPrefix(acct, name)
	if err := t.tx.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
		return err
	}
	return t.tx.Delete(containerKey(acct, name))
}

// checkNotMoving fails with ContainerBeingDeleted while a generation of
// the name is on the move.
func checkNotMoving(r kv.Reader, acct, name string) error {
	moving, err := retiredKeys.Moving(r, acct, name)
	if err == nil && moving {
		err = azerr.ErrContainerBeingDeleted
	}
	return err
}

// finishMoves completes every interrupted or pending move of a name's
// retired generations.
func (s *Service) finishMoves(ctx context.Context, acct, name string) error {
	return s.retired().Finish(ctx, acct, name)
}

// moveKeys moves every key of container from to container to, in
// transactions of bounded size; index re-creates the tag index entries
// of the blobs it moves.
func (s *Service) moveKeys(ctx context.Context, acct, from, to string, index bool) error {
	for _, tag := range movedTags {
		var each func(tx kv.Txn, rest, value []byte) error
		if index && tag == "o" {
			each = func(tx kv.Txn, rest, value []byte) error { return reindex(tx, acct, to, rest, value) }
		}
		src := accountKey(acct).Raw(tag).Str(from)
		dst := accountKey(acct).Raw(tag).Str(to)
		if err := kv.MovePrefix(ctx, s.store, src, dst, each); err != nil {
			return err
		}
	}
	return nil
}

// reindex adds the tag index entries of a blob record moved into
// container; rest is its key after the container.
func reindex(tx kv.Txn, acct, container string, rest, value []byte) error {
	rd, err := tuple.NewReader(rest, 0)
	if err != nil {
		return err
	}
	name, err := rd.Str()
	if err != nil {
		return err
	}
	var b Blob
	if err := record.Decode(value, &b); err != nil {
		return err
	}
	return indexTags(tx, acct, container, name, nil, b.Tags)
}

// RestoreContainer brings the soft-deleted container deleted, of the
// given version, back under its name with everything it held.
func (s *Service) RestoreContainer(ctx context.Context, acct, deleted, version string) (*Container, error) {
	if err := s.finishMoves(ctx, acct, deleted); err != nil {
		return nil, err
	}
	err := s.Update(ctx, func(t *Tx) error {
		return retiredKeys.BeginRestore(t.tx, acct, deleted, version, t.now, containerKey(acct, deleted), softdelete.Errors{
			NotFound: azerr.ErrContainerNotFound, Exists: azerr.ErrContainerAlreadyExists, BeingDeleted: azerr.ErrContainerBeingDeleted,
		})
	})
	if err != nil {
		return nil, err
	}
	return s.completeRestore(ctx, acct, deleted, version)
}

// completeRestore moves a restoring generation's keys back and makes it
// the container again.
func (s *Service) completeRestore(ctx context.Context, acct, name, version string) (*Container, error) {
	if err := s.moveKeys(ctx, acct, retiredAlias(name, version), name, true); err != nil {
		return nil, err
	}
	var out *Container
	err := s.Update(ctx, func(t *Tx) error {
		rc, err := retiredKeys.EndRestore(t.tx, acct, name, version)
		if err != nil {
			return err
		}
		if rc == nil {
			return azerr.ErrContainerNotFound
		}
		c := rc.Container
		c.Version, c.Modified = t.tx.Version(), t.now
		out = &c
		return record.Store(t.tx, containerKey(acct, name), c)
	})
	return out, err
}

// purgeRetired removes an expired retired generation and its keys.
func (s *Service) purgeRetired(ctx context.Context, acct, name, version string) (bool, error) {
	purged := false
	err := s.Update(ctx, func(t *Tx) error {
		purged = false
		alias, ok, err := retiredKeys.Purge(t.tx, acct, name, version, t.now)
		if err != nil || !ok {
			return err
		}
		if err := deleteContainerKeys(t.tx, acct, alias); err != nil {
			return err
		}
		purged = true
		return nil
	})
	return purged, err
}

// DeletedInfo describes a soft-deleted container in a listing.
type DeletedInfo struct {
	Version     string
	Time, Purge time.Time
}

// ListContainersWithDeleted is List Containers with include=deleted: the
// live and the soft-deleted containers in name order (a live one first
// when both have a name).
func (s *Service) ListContainersWithDeleted(ctx context.Context, acct, prefix, marker string, max int) ([]ContainerItem, string, error) {
	var out []ContainerItem
	next := ""
	now := s.clock()
	err := s.store.View(ctx, func(r kv.Reader) error {
		var all []ContainerItem
		_, err := record.Page(r, containersPrefix(acct), prefix, marker, max+1, func(name string, c *Container) {
			all = append(all, ContainerItem{Name: name, Container: c})
		})
		if err != nil {
			return err
		}
		// A name may have many retired generations: read until max+1
		// names beyond the live ones are certain.
		err = retiredKeys.List(r, acct, prefix, marker, max, now, func(name, version string, rc *retiredContainer) {
			c := rc.Container
			all = append(all, ContainerItem{Name: name, Container: &c, Deleted: &DeletedInfo{Version: version, Time: rc.Deleted, Purge: rc.Purge}})
		})
		if err != nil {
			return err
		}
		sort.SliceStable(all, func(i, j int) bool { return all[i].Name < all[j].Name })
		out, next = all, ""
		if len(all) > max {
			out, next = all[:max], all[max].Name
		}
		return nil
	})
	return out, next, err
}
