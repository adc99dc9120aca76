package cosmos

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// Large items. Cosmos DB takes items up to 2 MB, a kv value holds at most
// kv.MaxValueSize, so an item's JSON is cut into itemChunkSize pieces: the
// first stays under the item's key (Ci …), behind a head marker, and the
// others go under the item's chunk prefix (Cj …, the item key's elements
// then 0x01), numbered from 1. A body that fits one piece is stored as it
// is, so a stored value starting with '{' is a whole item and one starting
// with chunkedHead is a head:
//
//	chunkedHead  uvarint(total length)  uvarint(pieces)  first piece
//
// Every read of an item's key goes through itemBody, every write through
// putItemBody and every delete through deleteItemBody, all inside the
// item's transaction, so the pieces commit and vanish together.

const (
	// itemChunkSize is the bytes of an item per kv value.
	itemChunkSize = 64 << 10
	// maxItemSize is Cosmos DB's limit on an item, system properties
	// included.
	maxItemSize = 2 << 20
	chunkedHead = 0x00
	// maxItemIDBytes is Cosmos DB's limit on an item's id (UTF-8 bytes).
	maxItemIDBytes = 1023
)

func itemChunksTag() tuple.Key { return tuple.New(keyspace.CosmosItemChunks) }

// itemChunkPrefix is where the pieces of the item stored under key (an
// itemKey) live. The 0x01 after the id's terminator keeps one id's pieces
// from sharing a prefix with a longer id's (an escaped id byte after a
// 0x00 is always 0xff).
func itemChunkPrefix(key []byte) tuple.Key {
	return itemChunksTag().Raw(string(key[len(itemsTag()):])).Raw("\x01")
}

func itemsTag() string { return keyspace.CosmosItems }

func itemChunkKey(key []byte, i int) tuple.Key { return itemChunkPrefix(key).Uint(uint64(i)) }

// chunksOfContainer and chunksOfDatabase cover the pieces of every large
// item of a container or database, for deleting them with it.
func chunksOfContainer(db, coll string) tuple.Key { return itemChunksTag().Str(db).Str(coll) }

func chunksOfDatabase(db string) tuple.Key { return itemChunksTag().Str(db) }

func isChunkedHead(v []byte) bool { return len(v) > 0 && v[0] == chunkedHead }

// itemBody returns the item JSON stored under key, whose value v is:
// v itself, or the reassembled pieces when v is a head.
func itemBody(rd kv.Reader, key, v []byte) ([]byte, error) {
	if !isChunkedHead(v) {
		return v, nil
	}
	total, n1 := binary.Uvarint(v[1:])
	pieces, n2 := binary.Uvarint(v[1+max(n1, 0):])
	if n1 <= 0 || n2 <= 0 || total > maxItemSize || pieces < 2 {
		return nil, fmt.Errorf("item %x: malformed head", key)
	}
	body := make([]byte, 0, total)
	body = append(body, v[1+n1+n2:]...)
	prefix := itemChunkPrefix(key)
	want := 1
	err := rd.Scan(itemChunkKey(key, 1), kv.PrefixEnd(prefix), func(k, p []byte) error {
		if len(k) != len(prefix)+8 || int(binary.BigEndian.Uint64(k[len(prefix):])) != want {
			return fmt.Errorf("item %x: piece %d missing", key, want)
		}
		body = append(body, p...)
		want++
		if want >= int(pieces) {
			return kv.ErrStopScan
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if want != int(pieces) || uint64(len(body)) != total {
		return nil, fmt.Errorf("item %x: %d of %d pieces, %d of %d bytes", key, want, pieces, len(body), total)
	}
	return body, nil
}

// bodyMode says what a new item body's key holds as the transaction
// sees it.
type bodyMode uint8

const (
	// bodyReplaces: an earlier version, whose pieces must go.
	bodyReplaces bodyMode = iota
	// bodyFresh: nothing (the transaction found nothing there, or has
	// just removed an expired item): nothing is read back or cleared,
	// and the keys are written as new (kv.Insert).
	bodyFresh
	// bodyCreates: nothing, as far as the transaction knows without
	// reading: the head is written with kv.Create, which fails when the
	// key holds anything, and the pieces as new.
	bodyCreates
)

// putItemBody stores body as the item under key, as mode says.
func putItemBody(tx kv.Txn, key, body []byte, mode bodyMode) error {
	set, setHead := tx.Set, tx.Set
	switch mode {
	case bodyFresh, bodyCreates:
		set = func(k, v []byte) error { return kv.Insert(tx, k, v) }
		setHead = set
		if mode == bodyCreates {
			setHead = func(k, v []byte) error { return kv.Create(tx, k, v) }
		}
	default:
		if err := deleteItemPieces(tx, key); err != nil {
			return err
		}
	}
	if len(body) <= itemChunkSize {
		return setHead(key, body)
	}
	pieces := (len(body) + itemChunkSize - 1) / itemChunkSize
	head := []byte{chunkedHead}
	head = binary.AppendUvarint(head, uint64(len(body)))
	head = binary.AppendUvarint(head, uint64(pieces))
	head = append(head, body[:itemChunkSize]...)
	if err := setHead(key, head); err != nil {
		return err
	}
	for i := 1; i < pieces; i++ {
		end := min(len(body), (i+1)*itemChunkSize)
		if err := set(itemChunkKey(key, i), body[i*itemChunkSize:end]); err != nil {
			return err
		}
	}
	return nil
}

// deleteItemBody removes the item under key and its pieces.
func deleteItemBody(tx kv.Txn, key []byte) error {
	if err := deleteItemPieces(tx, key); err != nil {
		return err
	}
	return tx.Delete(key)
}

// deleteItemPieces deletes the pieces of the item stored under key, which
// its head counts, one key each. Most items have no pieces, and then
// nothing is written: a range deletion per write would pile up range
// tombstones in the store's memtable, which every later write and read
// then pays for.
func deleteItemPieces(tx kv.Txn, key []byte) error {
	v, err := tx.Get(key)
	if errors.Is(err, kv.ErrNotFound) || (err == nil && !isChunkedHead(v)) {
		return nil
	}
	if err != nil {
		return err
	}
	_, n1 := binary.Uvarint(v[1:])
	pieces, n2 := binary.Uvarint(v[1+max(n1, 0):])
	if n1 <= 0 || n2 <= 0 || pieces > maxItemSize/itemChunkSize+1 {
		// A head this code did not write: clear every piece there may be.
		prefix := itemChunkPrefix(key)
		return tx.DeleteRange(prefix, kv.PrefixEnd(prefix))
	}
	for i := 1; i < int(pieces); i++ {
		if err := tx.Delete(itemChunkKey(key, i)); err != nil {
			return err
		}
	}
	return nil
}

// scanItems calls fn with the key and whole JSON of every item under
// prefix (a container's or a partition's), in key order, until fn returns
// an error, which it returns (kv.ErrStopScan stops without one). Large items are reassembled after the scan that found their head
// — a reader is not asked to scan inside its own scan — in batches, so
// memory stays bounded by the items of one batch.
func scanItems(rd kv.Reader, prefix, from []byte, fn func(key, body []byte) error) error {
	type entry struct{ k, v []byte }
	const batch = 256
	start := from
	if start == nil {
		start = prefix
	}
	end := kv.PrefixEnd(prefix)
	for {
		var got []entry
		err := rd.Scan(start, end, func(k, v []byte) error {
			got = append(got, entry{append([]byte(nil), k...), append([]byte(nil), v...)})
			if len(got) == batch {
				return kv.ErrStopScan
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, e := range got {
			body, err := itemBody(rd, e.k, e.v)
			if err != nil {
				return err
			}
			if err := fn(e.k, body); err != nil {
				if errors.Is(err, kv.ErrStopScan) {
					return nil
				}
				return err
			}
		}
		if len(got) < batch {
			return nil
		}
		start = append(got[len(got)-1].k, 0)
	}
}
