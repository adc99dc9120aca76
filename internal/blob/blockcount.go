package blob

import (
	"context"
	"encoding/binary"
	"errors"
	"hash/fnv"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// A blob may have 100,000 uncommitted blocks. Counting them by scanning on
// every Put Block would cost 100,000 reads per block, and one counter key
// would make every concurrent Put Block to the blob conflict with every
// other. So the count is kept in blockCountShards keys, a block counting
// in the shard its ID hashes to: concurrent Put Blocks conflict only when
// their IDs share a shard. A Put Block reads the total outside its
// transaction (no conflict) and reads every shard inside it only once the
// total is within blockLimitMargin of the limit, where exactness matters.
// The limit can therefore be passed only by more than blockLimitMargin Put
// Blocks landing on one blob during one Put Block.
const (
	blockCountShards = 64
	blockLimitMargin = 1024
)

var errTooManyUncommitted = azhttp.ErrBlockCountExceedsLimit.WithMessage("The uncommitted block count cannot exceed the maximum limit of 100,000 blocks.")

// uncommittedCount sums the blob's count shards. It reads them one by one,
// not with a scan: an LSM engine keeps every overwritten version of a
// shard until compaction, and a scan steps over all of them where a point
// read seeks straight to the newest.
func uncommittedCount(r kv.Reader, acct, container, name string) (int64, error) {
	var total int64
	for shard := range uint32(blockCountShards) {
		v, err := r.Get(blockCountKey(acct, container, name, shard))
		switch {
		case err == nil:
			total += decodeCount(v)
		case !errors.Is(err, kv.ErrNotFound):
			return 0, err
		}
	}
	return total, nil
}

// nearBlockLimit reports, from a snapshot read, whether the blob's
// uncommitted blocks are close enough to the limit to need an exact count.
func (s *Service) nearBlockLimit(ctx context.Context, acct, container, name string) (bool, error) {
	var total int64
	err := s.store.View(ctx, func(r kv.Reader) error {
		var err error
		total, err = uncommittedCount(r, acct, container, name)
		return err
	})
	return total >= maxUncommittedBlocks-blockLimitMargin, err
}

// countBlock counts a new uncommitted block, refusing it past the limit.
func countBlock(tx kv.Txn, acct, container, name string, id []byte, exact bool) error {
	if exact {
		total, err := uncommittedCount(tx, acct, container, name)
		if err != nil {
			return err
		}
		if total >= maxUncommittedBlocks {
			return errTooManyUncommitted
		}
	}
	h := fnv.New32a()
	h.Write(id)
	key := blockCountKey(acct, container, name, h.Sum32()%blockCountShards)
	var n int64
	v, err := tx.Get(key)
	switch {
	case err == nil:
		n = decodeCount(v)
	case !errors.Is(err, kv.ErrNotFound):
		return err
	}
	return tx.Set(key, binary.BigEndian.AppendUint64(nil, uint64(n+1)))
}

func decodeCount(v []byte) int64 {
	if len(v) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}

// clearBlocks removes every uncommitted block record of the blob and its
// count: two range deletes, however many blocks there are.
func clearBlocks(tx kv.Txn, acct, container, name string) error {
	for _, p := range [][]byte{blocksPrefix(acct, container, name), blockCountPrefix(acct, container, name)} {
		if err := tx.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
			return err
		}
	}
	return nil
}
