package file

import (
	"context"
	"errors"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// A share's usage is the sum of its files' sizes, as created (Azure counts
// a file's size, not the bytes written into it: Get Share Stats "may not
// include all recently created or recently resized files"), and the quota
// bounds it. One counter key would make every create and delete in a share
// conflict with every other, so the usage is a sharded counter (package
// counter), a file counting in the shard its record's key hashes to.
//
// Refusing a write past the quota needs the total, and reading every shard
// inside the transaction would bring the conflicts back. So a Service
// operation reads the total on a snapshot first (no conflict) and reads
// every shard inside its transaction only when the write could bring the
// share within quotaMargin of its quota, or is itself larger than
// quotaMargin. The quota can therefore be passed only by more than
// quotaMargin bytes of files created in the share during one operation;
// the usage itself is always exact.
const quotaMargin = 1 << 30

var errShareFull = azerr.ErrShareSizeLimitReached

// ShareStats is what Get Share Stats reports.
type ShareStats struct {
	Share *Share
	// UsageBytes is the sum of the sizes of the share's files.
	UsageBytes int64
}

// GetShareStats returns a share's usage. A non-empty leaseID must be the
// share's active lease.
func (s *Service) GetShareStats(ctx context.Context, ref ShareRef, leaseID string) (*ShareStats, error) {
	acct, name := ref.Account, ref.Share
	var out *ShareStats
	err := s.view(ctx, func(t *Tx) error {
		sh, err := t.share(acct, name, leaseID, false)
		if err != nil {
			return err
		}
		used, err := shareUsage(t.r, acct, name)
		out = &ShareStats{Share: sh, UsageBytes: used}
		return err
	})
	return out, err
}

// shareUsage sums a share's usage shards.
func shareUsage(r kv.Reader, acct, share string) (int64, error) {
	return usageCounter(acct, share).Sum(r)
}

// roomFor reports, from a snapshot, whether growing a share by delta bytes
// keeps it far enough below its quota that the transaction need not read
// the exact usage. A missing share is not roomy: the transaction answers.
func (s *Service) roomFor(ctx context.Context, acct, share string, delta int64) (bool, error) {
	switch {
	case delta <= 0: // nothing grows, nothing to check
		return true, nil
	case delta > quotaMargin:
		return false, nil
	}
	roomy := false
	err := s.viewStore(ctx, func(r kv.Reader) error {
		sh, err := loadShare(r, acct, share)
		if errors.Is(err, azerr.ErrShareNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		used, err := shareUsage(r, acct, share)
		roomy = used+delta <= quotaBytes(sh)-quotaMargin
		return err
	})
	return roomy, err
}

func quotaBytes(sh *Share) int64 { return int64(sh.Quota) << 30 }

// ChargeUsage adds delta bytes (negative when files shrink or go) to a
// share's usage, counting them in the shard that nodeKey (any key of the
// file: only the sum of the shards matters) picks. Growth past the share's quota is refused with
// ShareSizeLimitReached; t reads every shard to decide unless its
// Service found the share roomy first (Tx.roomy). Every operation that
// creates, resizes or deletes a file must call it in the same
// transaction: CheckInvariants verifies the usage equals the sizes.
func (t *Tx) ChargeUsage(acct, share string, nodeKey []byte, delta int64) error {
	if delta == 0 {
		return nil
	}
	if delta > 0 && !t.roomy {
		sh, err := loadShare(t.r, acct, share)
		if err != nil {
			return err
		}
		used, err := shareUsage(t.r, acct, share)
		if err != nil {
			return err
		}
		if used+delta > quotaBytes(sh) {
			return errShareFull
		}
	}
	return usageCounter(acct, share).Add(t.tx, nodeKey, delta)
}
