package counter

import (
	"encoding/binary"
	"errors"
	"hash/fnv"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// Shards is how many keys one count is spread over.
const Shards = 64

// Counter is a count kept in the Shards keys prefix.Uint(0..Shards-1);
// each holds a signed big-endian 64-bit delta sum. A shard may be
// negative: a count that shrinks through another shard than the one it
// grew through.
type Counter struct{ prefix tuple.Key }

// At is the counter whose shards live under prefix.
func At(prefix tuple.Key) Counter { return Counter{prefix: prefix} }

// Shard is the key of one shard.
func (c Counter) Shard(shard uint32) tuple.Key { return c.prefix.Uint(uint64(shard)) }

// Sum adds up every shard. It reads them one by one, not with a scan: an
// LSM engine keeps every overwritten version of a shard until compaction,
// and a scan steps over all of them where a point read seeks straight to
// the newest.
func (c Counter) Sum(r kv.Reader) (int64, error) {
	var total int64
	for shard := range uint32(Shards) {
		n, err := get(r, c.Shard(shard))
		if err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// Add adds delta to the shard that by (any bytes that spread callers
// evenly: a block ID, a file's key) hashes to, in tx.
func (c Counter) Add(tx kv.Txn, by []byte, delta int64) error {
	h := fnv.New32a()
	h.Write(by)
	key := c.Shard(h.Sum32() % Shards)
	n, err := get(tx, key)
	if err != nil {
		return err
	}
	return tx.Set(key, binary.BigEndian.AppendUint64(nil, uint64(n+delta)))
}

// Clear deletes every shard: the count is zero again.
func (c Counter) Clear(w kv.Writer) error { return kv.DeletePrefixes(w, c.prefix) }

func get(r kv.Reader, key []byte) (int64, error) {
	v, err := r.Get(key)
	switch {
	case err == nil:
		return Decode(v), nil
	case errors.Is(err, kv.ErrNotFound):
		return 0, nil
	default:
		return 0, err
	}
}

// Decode reads one shard's value; a value that is not 8 bytes counts 0.
func Decode(v []byte) int64 {
	if len(v) != 8 {
		return 0
	}
	return int64(binary.BigEndian.Uint64(v))
}
