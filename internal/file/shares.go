package file

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/lease"
)

const (
	// DefaultQuota is the quota, in GiB, of a share created without one:
	// Azure's 5 TiB for a standard share.
	DefaultQuota = 5120
	// MaxQuota is the largest quota a share may have, in GiB (100 TiB).
	MaxQuota = 102400
)

// ShareSpec is what Create Share asks for: quota 0 means DefaultQuota,
// tier "" DefaultAccessTier.
type ShareSpec struct {
	Quota      int
	AccessTier string
	Metadata   azhttp.Metadata
	// Protocol is ProtocolSMB ("" too) or ProtocolNFS; NFS applies to an
	// NFS share only (nfs.go).
	Protocol string
	NFS      ShareNFSOptions
}

// DefaultAccessTier is a standard share's tier when none is asked for.
const DefaultAccessTier = "TransactionOptimized"

// AccessTiers are the tiers a standard share may have, as Azure spells
// them.
var AccessTiers = []string{"TransactionOptimized", "Hot", "Cool"}

// CreateShare creates a share with its root directory.
// A deleted share of the name (shares_softdelete.go) whose keys a crash
// left half moved is moved aside first: the new share starts empty.
func (s *Service) CreateShare(ctx context.Context, ref ShareRef, spec ShareSpec) (*Share, error) {
	if err := s.finishMoves(ctx, ref.Account, ref.Share); err != nil {
		return nil, err
	}
	if spec.Quota == 0 {
		spec.Quota = s.defaultQuota // 0: DefaultQuota
	}
	return kv.Returning(ctx, s.Update, func(t *Tx) (*Share, error) { return t.CreateShare(ref, spec) })
}

// CreateShare creates a share inside t's transaction.
func (t *Tx) CreateShare(ref ShareRef, spec ShareSpec) (*Share, error) {
	acct, name := ref.Account, ref.Share
	if _, err := loadShare(t.r, acct, name); err == nil {
		return nil, azerr.ErrShareAlreadyExists
	} else if !errors.Is(err, azerr.ErrShareNotFound) {
		return nil, err
	}
	// While a deleted share of the name moves, its keys are under the
	// name: Azure answers ShareBeingDeleted right after a delete.
	if err := checkNotMoving(t.r, acct, name); err != nil {
		return nil, err
	}
	sh := &Share{Version: t.tx.Version(), Created: t.now, Modified: t.now, Quota: cmp.Or(spec.Quota, DefaultQuota),
		Metadata: spec.Metadata, AccessTier: cmp.Or(spec.AccessTier, DefaultAccessTier), TierChanged: t.now}
	root := &Node{ID: rootID, Dir: true, Version: t.tx.Version(), Created: t.now, Modified: t.now,
		SMB: SMB{Attributes: "Directory", CreationTime: t.now, LastWriteTime: t.now, ChangeTime: t.now}}
	switch {
	case spec.Protocol == ProtocolNFS:
		sh.NFS = &ShareNFS{RootSquash: RootSquashes[0]}
		spec.NFS.apply(sh.NFS)
		root.SMB.Attributes = ""
		root.NFS = (*NFSChange)(nil).properties(defaultDirMode)
	case !spec.NFS.empty():
		return nil, errNFSOnly(spec.NFS)
	}
	if err := record.Store(t.tx, shareKey(acct, name), sh); err != nil {
		return nil, err
	}
	return sh, record.Store(t.tx, rootKey(acct, name), root)
}

// GetShare returns a share or ErrShareNotFound. A non-empty leaseID must
// be the share's active lease (ShareLeaseCodes otherwise).
func (s *Service) GetShare(ctx context.Context, ref ShareRef, leaseID string) (*Share, error) {
	acct, name := ref.Account, ref.Share
	return kv.Returning(ctx, s.view, func(t *Tx) (*Share, error) { return t.share(acct, name, leaseID, false) })
}

// share loads a share and checks the lease ID a request carries against
// its lease: only a delete (write) needs one to proceed on a leased share.
func (t *Tx) share(acct, name, leaseID string, write bool) (*Share, error) {
	sh, err := loadShare(t.r, acct, name)
	if err != nil {
		return nil, err
	}
	if err := sh.Lease.CheckUse(t.now, leaseID, write); err != nil {
		return nil, azerr.LeaseError(err, azerr.ShareLeaseCodes)
	}
	return sh, nil
}

// SetShareMetadata replaces a share's metadata.
func (s *Service) SetShareMetadata(ctx context.Context, ref ShareRef, meta azhttp.Metadata, leaseID string) (*Share, error) {
	acct, name := ref.Account, ref.Share
	return s.updateShare(ctx, acct, name, leaseID, func(sh *Share) { sh.Metadata = meta })
}

// SetShareQuota changes a share's quota (GiB). A quota below the share's
// usage is accepted, as Azure does: growing writes are refused until
// files shrink or go.
func (s *Service) SetShareQuota(ctx context.Context, ref ShareRef, quota int, leaseID string) (*Share, error) {
	acct, name := ref.Account, ref.Share
	return s.updateShare(ctx, acct, name, leaseID, func(sh *Share) { sh.Quota = quota })
}

// SetShareProperties changes a share's quota (GiB; 0 keeps it) and
// access tier ("" keeps it) in one update.
func (s *Service) SetShareProperties(ctx context.Context, ref ShareRef, o SharePropertiesOptions) (*Share, error) {
	acct, name, quota, tier, leaseID := ref.Account, ref.Share, o.Quota, o.Tier, o.LeaseID
	return s.updateShareChecked(ctx, acct, name, leaseID, func(sh *Share) error {
		switch {
		case sh.NFS != nil:
			o.NFS.apply(sh.NFS)
		case !o.NFS.empty():
			return errNFSOnly(o.NFS)
		}
		if quota != 0 {
			sh.Quota = quota
		}
		if tier != "" && tier != sh.AccessTier {
			// updateShare stamps TierChanged with the commit time.
			sh.AccessTier, sh.TierChanged = tier, time.Time{}
		}
		return nil
	})
}

// SetShareACL replaces a share's stored access policies.
func (s *Service) SetShareACL(ctx context.Context, ref ShareRef, acl []azauth.SignedIdentifier, leaseID string) (*Share, error) {
	acct, name := ref.Account, ref.Share
	return s.updateShare(ctx, acct, name, leaseID, func(sh *Share) { sh.ACL = acl })
}

func (s *Service) updateShare(ctx context.Context, acct, name, leaseID string, change func(*Share)) (*Share, error) {
	return s.updateShareChecked(ctx, acct, name, leaseID, func(sh *Share) error { change(sh); return nil })
}

// updateShareChecked is updateShare with a change that may refuse.
func (s *Service) updateShareChecked(ctx context.Context, acct, name, leaseID string, change func(*Share) error) (*Share, error) {
	var out *Share
	err := s.Update(ctx, func(t *Tx) error {
		sh, err := t.share(acct, name, leaseID, false)
		if err != nil {
			return err
		}
		if err := change(sh); err != nil {
			return err
		}
		sh.Version, sh.Modified = t.tx.Version(), t.now
		if sh.TierChanged.IsZero() {
			sh.TierChanged = t.now
		}
		out = sh
		return record.Store(t.tx, shareKey(acct, name), sh)
	})
	return out, err
}

// DeleteShare deletes a share and everything in it; a leased share only
// for a request carrying its lease ID, and a share that has snapshots is
// refused (DeleteShareAndSnapshots deletes them too). Given a snapshot
// namespace, it deletes that one snapshot.
// With share soft delete on (WithShareRetention), the share is kept as a
// deleted share instead (shares_softdelete.go).
func (s *Service) DeleteShare(ctx context.Context, ref ShareRef, leaseID string) error {
	if err := s.Update(ctx, func(t *Tx) error { return t.DeleteShare(ref, leaseID) }); err != nil {
		return err
	}
	if _, _, ok := splitSnapshotNS(ref.Share); !ok {
		s.moveDeleted(ctx, ref)
	}
	return nil
}

// moveDeleted moves the keys of a share just soft-deleted aside. The
// share is gone already; the move may also be finished later
// (finishMoves), so its failure is only logged.
func (s *Service) moveDeleted(ctx context.Context, ref ShareRef) {
	if s.retention == 0 {
		return
	}
	if err := s.finishMoves(ctx, ref.Account, ref.Share); err != nil {
		s.log.Warn("moving a deleted share's data aside", "share", ref.Share, "err", err)
	}
}

// DeleteShare deletes a share, or one snapshot, inside t's transaction.
func (t *Tx) DeleteShare(ref ShareRef, leaseID string) error {
	acct, name := ref.Account, ref.Share
	if share, snap, ok := splitSnapshotNS(name); ok {
		return t.deleteSnapshot(acct, share, snap, leaseID)
	}
	sh, err := t.share(acct, name, leaseID, true)
	if err != nil {
		return err
	}
	snaps, err := snapshotList(t.r, acct, name)
	if err != nil {
		return err
	}
	if len(snaps) > 0 {
		return azerr.ErrShareHasSnapshots
	}
	if t.retention > 0 {
		return t.retireShare(acct, name, sh)
	}
	return t.deleteLiveShare(acct, name)
}

// deleteLiveShare deletes a live share's record and every key range it
// owns; its snapshots' namespaces must be gone already.
func (t *Tx) deleteLiveShare(acct, name string) error {
	if err := t.tx.Delete(shareKey(acct, name)); err != nil {
		return err
	}
	return t.deleteShareKeys(acct, name)
}

// deleteShareKeys deletes every key range a share owns (a live one, or
// a deleted one's alias). Its data objects are dropped: deleted after the
// commit, a piece at a time, as a share may hold more than a store that
// counts stored bytes can read in one transaction; those of a share made
// anew under the name are spared.
func (t *Tx) deleteShareKeys(acct, name string) error {
	data := sharePayloadPrefix(acct, name)
	for _, r := range shareRanges(acct, name) {
		if bytes.Equal(r[0], data) {
			continue
		}
		if err := t.tx.DeleteRange(r[0], r[1]); err != nil {
			return err
		}
	}
	return objects.DropObjects(t.tx, data, t.dataBound())
}

// LeaseShare runs a lease operation on a share: 15 to 60 s or infinite,
// with a break period, exactly as a container lease. Leasing never changes
// the share's ETag or Last-Modified.
func (s *Service) LeaseShare(ctx context.Context, ref ShareRef, req lease.Request) (*lease.Outcome, error) {
	acct, name := ref.Account, ref.Share
	var out *lease.Outcome
	err := s.Update(ctx, func(t *Tx) error {
		sh, err := loadShare(t.r, acct, name)
		if err != nil {
			return err
		}
		next, res, err := sh.Lease.Apply(t.now, req, lease.NewID)
		if err != nil {
			return azerr.LeaseError(err, azerr.ShareLeaseCodes)
		}
		sh.Lease = next
		out = &lease.Outcome{Result: res, Version: sh.Version, Modified: sh.Modified}
		return record.Store(t.tx, shareKey(acct, name), sh)
	})
	return out, err
}

// ListShares returns up to max shares whose names start with prefix, from
// marker on, and the marker of the next page ("" at the end).
func (s *Service) ListShares(ctx context.Context, acct, prefix, marker string, max int) ([]ShareItem, string, error) {
	var out []ShareItem
	next := ""
	err := s.viewStore(ctx, func(r kv.Reader) error {
		out = nil
		var err error
		next, err = record.Page(r, sharesPrefix(acct), prefix, marker, max, func(name string, sh *Share) {
			out = append(out, ShareItem{Name: name, Share: sh})
		})
		return err
	})
	return out, next, err
}
