package blob

import (
	"context"
	"errors"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// blockExpiry is how long a blob's uncommitted blocks outlive the last
// Put Block to it when no Put Block List commits them: Azure discards
// them, and a blob that has nothing else with them, a week after the
// last successful block upload ("Understanding block blobs, append
// blobs, and page blobs": "If you don't commit any block to this blob,
// it and its uncommitted blocks will be discarded one week after the
// last successful block upload"; the .NET SDK's CommitBlockList:
// "Uncommitted blocks will expire and be permanently deleted after 7
// days").
const blockExpiry = 7 * 24 * time.Hour

// stagedBlob is a blob whose uncommitted blocks PurgeExpired found
// expired.
type stagedBlob struct{ acct, container, name string }

// expiredBlocks lists the blobs of acct whose newest uncommitted block
// was staged blockExpiry or more before now. A block staged before
// blocks were dated (Staged zero) keeps its blob's blocks.
func expiredBlocks(r kv.Reader, acct string, now time.Time) ([]stagedBlob, error) {
	var out []stagedBlob
	var cur stagedBlob
	var newest time.Time
	var undated bool
	flush := func() {
		if cur.name != "" && !undated && !newest.Add(blockExpiry).After(now) {
			out = append(out, cur)
		}
	}
	p := accountKey(acct).Raw("u")
	err := r.Scan(p, kv.PrefixEnd(p), func(k, v []byte) error {
		rd, err := tuple.NewReader(k, len(p))
		if err != nil {
			return err
		}
		container, err := rd.Str()
		if err != nil {
			return err
		}
		name, err := rd.Str()
		if err != nil {
			return err
		}
		var b block
		if err := record.Decode(v, &b); err != nil {
			return err
		}
		if next := (stagedBlob{acct, container, name}); next != cur {
			flush()
			cur, newest, undated = next, time.Time{}, false
		}
		if b.Staged.IsZero() {
			undated = true
		} else if b.Staged.After(newest) {
			newest = b.Staged
		}
		return nil
	})
	flush()
	return out, err
}

// expireBlocks discards the uncommitted blocks of the blobs PurgeExpired
// found expired, each in its own transaction that finds them expired
// still (a Put Block meanwhile keeps them), with the lease of a blob
// that has only them and the data they alone hold. Blobs of a container
// that is soft-deleted wait for its purge or its restore.
func (s *Service) expireBlocks(ctx context.Context, blobs []stagedBlob) (int, error) {
	n := 0
	for _, e := range blobs {
		expired := false
		err := s.Update(ctx, func(t *Tx) error {
			expired = false
			if err := requireContainer(t.r, e.acct, e.container); errors.Is(err, azerr.ErrContainerNotFound) {
				return nil
			} else if err != nil {
				return err
			}
			blocks, err := loadBlocks(t.tx, e.acct, e.container, e.name)
			if err != nil || len(blocks) == 0 {
				return err
			}
			var newest time.Time
			doomed := make(map[uint64]bool, len(blocks))
			for _, b := range blocks {
				if b.Staged.IsZero() {
					return nil
				}
				if b.Staged.After(newest) {
					newest = b.Staged
				}
				doomed[b.Data] = true
			}
			if newest.Add(blockExpiry).After(t.now) {
				return nil
			}
			if err := clearBlocks(t.tx, e.acct, e.container, e.name); err != nil {
				return err
			}
			expired = true
			return dropUnreferenced(t.tx, e.acct, e.container, e.name, doomed, "", true)
		})
		if err != nil {
			return n, err
		}
		if expired {
			n++
		}
	}
	return n, nil
}
