package blob

import (
	"context"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/counter"
)

// A blob may have 100,000 uncommitted blocks. Counting them by scanning on
// every Put Block would cost 100,000 reads per block, and one counter key
// would make every concurrent Put Block to the blob conflict with every
// other. So the count is a sharded counter (package counter), a block
// counting in the shard its ID hashes to: concurrent Put Blocks conflict
// only when their IDs share a shard. A Put Block reads the total outside its
// transaction (no conflict) and reads every shard inside it only once the
// total is within blockLimitMargin of the limit, where exactness matters.
// The limit can therefore be passed only by more than blockLimitMargin Put
// Blocks landing on one blob during one Put Block.
const blockLimitMargin = 1024

var errTooManyUncommitted = azerr.ErrBlockCountExceedsLimit.WithMessage("The uncommitted block count cannot exceed the maximum limit of 100,000 blocks.")

// blockCount is the blob's count of uncommitted blocks.
func blockCount(acct, container, name string) counter.Counter {
	return counter.At(blockCountPrefix(acct, container, name))
}

// nearBlockLimit reports, from a snapshot read, whether the blob's
// uncommitted blocks are close enough to the limit to need an exact count.
func (s *Service) nearBlockLimit(ctx context.Context, acct, container, name string) (bool, error) {
	var total int64
	err := s.store.View(ctx, func(r kv.Reader) error {
		var err error
		total, err = blockCount(acct, container, name).Sum(r)
		return err
	})
	return total >= maxUncommittedBlocks-blockLimitMargin, err
}

// countBlock counts a new uncommitted block, refusing it past the limit.
func countBlock(tx kv.Txn, acct, container, name string, id []byte, exact bool) error {
	c := blockCount(acct, container, name)
	if exact {
		total, err := c.Sum(tx)
		if err != nil {
			return err
		}
		if total >= maxUncommittedBlocks {
			return errTooManyUncommitted
		}
	}
	return c.Add(tx, id, 1)
}

// clearBlocks removes every uncommitted block record of the blob, their
// count and the lease of a blob that had only them: two range deletes and
// a point delete, however many blocks there are.
func clearBlocks(tx kv.Txn, acct, container, name string) error {
	if err := kv.DeletePrefixes(tx, blocksPrefix(acct, container, name)); err != nil {
		return err
	}
	if err := tx.Delete(placeholderLeaseKey(acct, container, name)); err != nil {
		return err
	}
	return blockCount(acct, container, name).Clear(tx)
}
