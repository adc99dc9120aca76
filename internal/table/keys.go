package table

import (
	"strings"

	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// Table names are case-insensitive (and case-preserving): keys use the
// lower-cased name, records keep the name as created.
func tableID(name string) string { return strings.ToLower(name) }

func accountKey(acct string) tuple.Key { return tuple.New(accountTag).Str(acct) }

func servicePropsKey(acct string) tuple.Key { return accountKey(acct).Raw("p") }

func tablesPrefix(acct string) tuple.Key { return accountKey(acct).Raw("t") }

func tableKey(acct, table string) tuple.Key { return tablesPrefix(acct).Str(tableID(table)) }

// entitiesPrefix covers every entity of a table; entities sort by
// PartitionKey, then RowKey, so one partition is one contiguous range.
func entitiesPrefix(acct, table string) tuple.Key {
	return accountKey(acct).Raw("e").Str(tableID(table))
}

func partitionPrefix(acct, table, pk string) tuple.Key { return entitiesPrefix(acct, table).Str(pk) }

// entityKey holds an entity's head record; an entity too large for one
// value continues in chunk keys entityKey+Uint(i), i >= 1, which sort
// right after the head and before the next entity (tuple strings are
// prefix-free), so a scan meets an entity's pieces in order.
func entityKey(acct, table, pk, rk string) tuple.Key {
	return partitionPrefix(acct, table, pk).Str(rk)
}

func chunkKey(head tuple.Key, i int) tuple.Key { return head.Uint(uint64(i)) }

// decodeEntityKey splits a key under prefix into PartitionKey, RowKey and
// chunk number (0 for the head).
func decodeEntityKey(key []byte, prefixLen int) (pk, rk string, chunk int, err error) {
	r, err := tuple.NewReader(key, prefixLen)
	if err != nil {
		return "", "", 0, err
	}
	if pk, err = r.Str(); err != nil {
		return "", "", 0, err
	}
	if rk, err = r.Str(); err != nil {
		return "", "", 0, err
	}
	headLen := prefixLen + len(tuple.Key(nil).Str(pk).Str(rk))
	switch len(key) {
	case headLen:
		return pk, rk, 0, nil
	case headLen + 8:
		n, err := r.Uint()
		if err != nil || n == 0 || n >= maxChunks {
			return "", "", 0, tuple.ErrMalformed
		}
		return pk, rk, int(n), nil
	}
	return "", "", 0, tuple.ErrMalformed
}

// accountTag starts every key of an account's resources.
const accountTag = keyspace.TableAccounts

// ObjectKey reports whether key is an entity's head record (a large
// entity continues in chunk keys after it). The metrics count objects
// with it.
func ObjectKey(key []byte) bool {
	r, ok := tuple.Tagged(key, accountTag, 'e')
	if !ok {
		return false
	}
	for range 3 { // table, PartitionKey, RowKey
		if _, err := r.Str(); err != nil {
			return false
		}
	}
	return r.Done()
}
