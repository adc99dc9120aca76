package file

import (
	"context"
	"math"
	"sort"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/background"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/lease"
	"github.com/cerulean-db/cerulean/internal/softdelete"
)

// Share soft delete (WithShareRetention) keeps a deleted share, with its
// snapshots, restorable for the retention days, as an account whose
// shareDeleteRetentionPolicy the management plane enabled does. Azure's
// FileREST has no switch for it: Get File Service Properties on such an
// account says nothing of it (the Go SDK's TestAccountProperties, on the
// account its TestServiceCreateDeleteRestoreShare lists deleted shares
// of), and the SDKs' tests enable it through the resource provider.
//
// One transaction removes the share record (so the share is gone for
// every operation: ShareNotFound), closes its open handles and records
// the share under "Fa acct D name version" in the state moving; then its
// keys, and its snapshots' namespaces, move in transactions of bounded
// size (kv.MovePrefix) to the share name "name/version", which no share
// can take (a share name has no slash), and the state becomes at rest.
// Several deleted generations of a name can so be kept at once, and a
// new share of the name starts empty, as Azure allows (the Python SDK's
// test_restore_to_existing_share).
//
// Restore Share reverses it: state restoring, the keys move back, and one
// last transaction writes the share record with a new ETag and drops the
// deleted one. A move a crash interrupted is finished by the next Create
// Share or Restore Share of the name, or by PurgeExpired, which also
// removes the deleted shares whose retention has passed; a deleted share
// past its retention is neither listed nor restored even before that.
// While a move runs, Create Share of the name answers ShareBeingDeleted.
//
// The states, moves and crash rules are package softdelete's; this file
// keeps the record, its keys' moves and the wire errors.

// deletedShare is a soft-deleted share.
type deletedShare struct {
	Share   Share
	Deleted time.Time
	Purge   time.Time
	State   string `json:",omitempty"`
}

func (d *deletedShare) Stage() string      { return d.State }
func (d *deletedShare) SetStage(st string) { d.State = st }
func (d *deletedShare) PurgeAt() time.Time { return d.Purge }

func deletedSharesPrefix(acct string) tuple.Key { return accountKey(acct).Raw("D") }

// deletedKeys are where the deleted shares are stored.
var deletedKeys = softdelete.Keys[deletedShare, *deletedShare]{Prefix: deletedSharesPrefix}

// deleted is the shared soft delete state machine over the deleted
// shares.
func (s *Service) deleted() *softdelete.Kept[deletedShare, *deletedShare] {
	return &softdelete.Kept[deletedShare, *deletedShare]{
		Keys:      deletedKeys,
		Store:     s.store,
		View:      s.viewStore,
		MoveAside: s.moveShareKeys,
		FinishRestore: func(ctx context.Context, acct, name, version string) error {
			_, err := s.completeRestore(ctx, acct, name, version)
			return err
		},
	}
}

// deletedAlias is the share name a deleted share's keys live under.
func deletedAlias(name, version string) string { return softdelete.Alias(name, version) }

// movedShareTags are the key families that move with a deleted share;
// its open handles and their locks ("h", "l") are closed instead.
var movedShareTags = []string{"r", nodesTag, legacyNodesTag, inodesTag, "x", clearMarksTag, "d", "S", "k", "u", "P"}

// retireShare soft-deletes the share sh (its snapshots go with it); the
// caller's commit hides it, and finishMoves moves its keys aside.
func (t *Tx) retireShare(acct, name string, sh *Share) error {
	kept := *sh
	kept.Lease = lease.Lease{}
	d := &deletedShare{Share: kept, Deleted: t.now, Purge: t.now.AddDate(0, 0, t.retention)}
	if err := deletedKeys.Retire(t.tx, acct, name, t.now, d); err != nil {
		return err
	}
	for _, tag := range []string{"h", "l"} {
		p := accountKey(acct).Raw(tag).Str(name)
		if err := t.tx.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
			return err
		}
	}
	return t.tx.Delete(shareKey(acct, name))
}

// checkNotMoving fails with ShareBeingDeleted while a generation of the
// name is on the move.
func checkNotMoving(r kv.Reader, acct, name string) error {
	moving, err := deletedKeys.Moving(r, acct, name)
	if err == nil && moving {
		err = azerr.ErrShareBeingDeleted
	}
	return err
}

// finishMoves completes every interrupted or pending move of a name's
// deleted generations.
func (s *Service) finishMoves(ctx context.Context, acct, name string) error {
	return s.deleted().Finish(ctx, acct, name)
}

// moveShareKeys moves every key of share from, its snapshots' namespaces
// first, to share to. The snapshots are found from their records under
// from, which move last of a namespace's keys, so a move cut short and
// run again still finds every namespace left to move.
func (s *Service) moveShareKeys(ctx context.Context, acct, from, to string) error {
	var snaps []string
	err := s.store.View(ctx, func(r kv.Reader) error {
		var err error
		snaps, err = snapshotList(r, acct, from)
		return err
	})
	if err != nil {
		return err
	}
	for _, snap := range snaps {
		for _, tag := range namespaceTags {
			src := accountKey(acct).Raw(tag).Str(SnapshotNamespace(from, snap))
			dst := accountKey(acct).Raw(tag).Str(SnapshotNamespace(to, snap))
			if err := kv.MovePrefix(ctx, s.store, src, dst, nil); err != nil {
				return err
			}
		}
	}
	for _, tag := range movedShareTags {
		src := accountKey(acct).Raw(tag).Str(from)
		dst := accountKey(acct).Raw(tag).Str(to)
		if err := kv.MovePrefix(ctx, s.store, src, dst, nil); err != nil {
			return err
		}
	}
	return nil
}

// RestoreShare brings the soft-deleted share deleted, of the given
// version, back under its name with everything it held, its snapshots
// included: ShareNotFound when no such deleted share is kept (or its
// retention has passed), ShareAlreadyExists when a share of the name
// exists (the Python SDK's test_restore_to_existing_share).
func (s *Service) RestoreShare(ctx context.Context, acct, deleted, version string) (*Share, error) {
	if err := s.ready(ctx); err != nil {
		return nil, err
	}
	if err := s.finishMoves(ctx, acct, deleted); err != nil {
		return nil, err
	}
	err := s.Update(ctx, func(t *Tx) error {
		return deletedKeys.BeginRestore(t.tx, acct, deleted, version, t.now, shareKey(acct, deleted), softdelete.Errors{
			NotFound: azerr.ErrShareNotFound, Exists: azerr.ErrShareAlreadyExists, BeingDeleted: azerr.ErrShareBeingDeleted,
		})
	})
	if err != nil {
		return nil, err
	}
	return s.completeRestore(ctx, acct, deleted, version)
}

// completeRestore moves a restoring generation's keys back and makes it
// the share again, with a new ETag and Last-Modified (the Go SDK's
// TestServiceCreateDeleteRestoreShare).
func (s *Service) completeRestore(ctx context.Context, acct, name, version string) (*Share, error) {
	if err := s.moveShareKeys(ctx, acct, deletedAlias(name, version), name); err != nil {
		return nil, err
	}
	return kv.Returning(ctx, s.Update, func(t *Tx) (*Share, error) {
		d, err := deletedKeys.EndRestore(t.tx, acct, name, version)
		if err != nil {
			return nil, err
		}
		if d == nil {
			return nil, azerr.ErrShareNotFound
		}
		sh := d.Share
		sh.Version, sh.Modified = t.tx.Version(), t.now
		return &sh, record.Store(t.tx, shareKey(acct, name), &sh)
	})
}

// PurgeExpired removes for good the deleted shares whose retention has
// passed, each in its own transaction, and reports how many it removed.
// Reads already treat them as gone; this frees their space. It also
// finishes the moves of deleted or restored shares a crash interrupted.
func (s *Service) PurgeExpired(ctx context.Context) (int, error) {
	if s.accounts == nil {
		return 0, nil // no accounts, nothing stored
	}
	var found []softdelete.Ref
	err := s.viewStore(ctx, func(r kv.Reader) error {
		found = nil
		now := s.clock()
		for _, acct := range s.accounts.Names() {
			refs, err := deletedKeys.Pending(r, acct, now)
			if err != nil {
				return err
			}
			found = append(found, refs...)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	return s.deleted().Sweep(ctx, found, s.purgeDeleted)
}

// purgeDeleted removes an expired deleted share and every key it kept.
func (s *Service) purgeDeleted(ctx context.Context, acct, name, version string) (bool, error) {
	return kv.Returning(ctx, s.Update, func(t *Tx) (bool, error) {
		alias, ok, err := deletedKeys.Purge(t.tx, acct, name, version, t.now)
		if err != nil || !ok {
			return false, err
		}
		snaps, err := snapshotList(t.r, acct, alias)
		if err != nil {
			return false, err
		}
		for _, snap := range snaps {
			if err := deleteNamespace(t.tx, acct, SnapshotNamespace(alias, snap)); err != nil {
				return false, err
			}
		}
		if err := t.deleteShareKeys(acct, alias); err != nil {
			return false, err
		}
		return true, nil
	})
}

// DeletedInfo describes a soft-deleted share in a listing.
type DeletedInfo struct {
	Version     string
	Time, Purge time.Time
}

// RemainingDays is what List Shares reports as a deleted share's
// RemainingRetentionDays at now: the retention days less the days begun
// since the deletion, counted in whole hours. Azure's answers: a share
// deleted a minute or two before keeps all its days (7 of 7, and 1 of 1,
// in the Python SDK's test_restore_to_existing_share and the Go SDK's
// TestShareRestoreSuccess), one deleted 4 h 42 min before has 6 of 7
// (the same Python listing), and one deleted 22 h 33 min before has 0 of
// 1 (the same Go listing).
func (d DeletedInfo) RemainingDays(now time.Time) int {
	days := int(math.Round(d.Purge.Sub(d.Time).Hours() / 24))
	hours := int(now.Sub(d.Time) / time.Hour)
	left := days - (hours+23)/24
	return max(left, 0)
}

// ListSharesOptions page a listing of shares; Snapshots lists each
// share's snapshots too.
type ListSharesOptions struct {
	Prefix, Marker string
	Max            int
	Snapshots      bool
}

// ListSharesWithDeleted is List Shares with include=deleted: the live
// shares (and, with snapshots, their snapshots) and the soft-deleted ones
// still within their retention, in name order, a name's deleted
// generations oldest first and before its live share, as Azure lists
// them (the Python SDK's test_restore_to_existing_share).
func (s *Service) ListSharesWithDeleted(ctx context.Context, acct string, o ListSharesOptions) ([]ShareItem, string, error) {
	prefix, marker, max := o.Prefix, o.Marker, o.Max
	list := s.ListShares
	if o.Snapshots {
		list = s.ListSharesAndSnapshots
	}
	live, _, err := list(ctx, acct, prefix, marker, max+1)
	if err != nil {
		return nil, "", err
	}
	var deleted []ShareItem
	err = s.viewStore(ctx, func(r kv.Reader) error {
		deleted = nil
		now := s.clock()
		return deletedKeys.List(r, acct, prefix, marker, max, now, func(name, version string, d *deletedShare) {
			sh := d.Share
			deleted = append(deleted, ShareItem{Name: name, Share: &sh, Deleted: &DeletedInfo{Version: version, Time: d.Deleted, Purge: d.Purge}})
		})
	})
	if err != nil {
		return nil, "", err
	}
	all := append(deleted, live...)
	sort.SliceStable(all, func(i, j int) bool { return all[i].Name < all[j].Name })
	if len(all) > max {
		next := all[max].Name
		if all[max].Snapshot != "" {
			next = SnapshotNamespace(next, all[max].Snapshot)
		}
		return all[:max], next, nil
	}
	return all, "", nil
}

// StartPurger runs PurgeExpired every interval until the returned stop
// is called.
func (s *Service) StartPurger(interval time.Duration) (stop func()) {
	return background.Every(interval, s.log, "deleted share purge", s.PurgeExpired)
}
