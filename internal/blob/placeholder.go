package blob

import (
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// A blob of uncommitted blocks only has no record, yet Azure leases it:
// Lease Blob (acquire) answers 201 with the ETag "0x701CE1722770000" and
// Last-Modified Mon, 01 Jan 1601 00:00:00 GMT, an uncommitted blob's
// placeholder, and a Put Block List naming the lease then commits the blob
// (test/parity recording net-BlockBlobClientTests-CommitBlockListAsync_Lease).
// Such a lease is kept under a key of its own (placeholderLeaseKey) while
// the blob has uncommitted blocks and no record. It guards the blob's
// writes as a committed blob's lease does; the write that gives the blob a
// record takes it over (commitWithBlocks), and it goes with the blocks
// (clearBlocks).

// placeholderVersion is the placeholder's ETag value: 1601-01-01, where
// Windows file times begin, in .NET ticks.
const placeholderVersion = 0x701CE1722770000

// placeholderModified is the placeholder's Last-Modified.
var placeholderModified = time.Date(1601, time.January, 1, 0, 0, 0, 0, time.UTC)

// placeholderState is what conditional headers see of a blob of
// uncommitted blocks only when it is leased.
var placeholderState = conditions.State{Exists: true, ETag: azhttp.ETag(placeholderVersion), LastModified: placeholderModified}

// blockPresence is what a caller knows of a blob's uncommitted blocks.
type blockPresence uint8

const (
	blocksUnknown blockPresence = iota
	noBlocks
	someBlocks
)

func presenceOf(has bool) blockPresence {
	if has {
		return someBlocks
	}
	return noBlocks
}

// firstBlockID returns the ID of the blob's first uncommitted block, nil
// when it has none.
func firstBlockID(r kv.Reader, acct, container, name string) ([]byte, error) {
	p := blocksPrefix(acct, container, name)
	var first []byte
	err := r.Scan(p, kv.PrefixEnd(p), func(k, _ []byte) error {
		rd, err := tuple.NewReader(k, len(p))
		if err == nil {
			first, err = rd.Bytes()
		}
		if err != nil {
			return err
		}
		return kv.ErrStopScan
	})
	return first, err
}

// placeholderLease returns the lease of a blob that has no record (the
// zero lease when it has none); blocks is what the caller knows of its
// uncommitted blocks, without which it can have no lease.
func placeholderLease(r kv.Reader, acct, container, name string, blocks blockPresence) (lease.Lease, error) {
	if blocks == blocksUnknown {
		first, err := firstBlockID(r, acct, container, name)
		if err != nil {
			return lease.Lease{}, err
		}
		blocks = presenceOf(first != nil)
	}
	var l lease.Lease
	if blocks == noBlocks {
		return l, nil
	}
	_, err := record.Load(r, placeholderLeaseKey(acct, container, name), &l)
	return l, err
}

// leasePlaceholder runs a lease operation on a blob that has no record:
// BlobNotFound unless it has uncommitted blocks.
func (s *Service) leasePlaceholder(tx kv.Txn, acct, container, name string, req lease.Request, cond conditions.Conditions, ifTags *TagCondition) (*lease.Outcome, error) {
	first, err := firstBlockID(tx, acct, container, name)
	if err != nil {
		return nil, err
	}
	if first == nil {
		return nil, azerr.ErrBlobNotFound
	}
	if err := check(cond, conditions.Write, placeholderState, azerr.ErrConditionNotMet); err != nil {
		return nil, err
	}
	if err := checkTags(ifTags, nil); err != nil {
		return nil, err
	}
	l, err := placeholderLease(tx, acct, container, name, someBlocks)
	if err != nil {
		return nil, err
	}
	next, res, err := l.Apply(s.clock(), req, lease.NewID)
	if err != nil {
		return nil, azerr.LeaseError(err, azerr.BlobLeaseCodes)
	}
	if err := record.Store(tx, placeholderLeaseKey(acct, container, name), next); err != nil {
		return nil, err
	}
	return &lease.Outcome{Result: res, Version: placeholderVersion, Modified: placeholderModified}, nil
}
