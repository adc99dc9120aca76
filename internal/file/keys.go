package file

import (
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/counter"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// rootID is the ID of every share's root directory.
const rootID = 0

func accountKey(acct string) tuple.Key { return tuple.New(accountTag).Str(acct) }

func servicePropsKey(acct string) tuple.Key { return accountKey(acct).Raw("p") }

func sharesPrefix(acct string) tuple.Key { return accountKey(acct).Raw("s") }

// shareKey is where a share's record lives; for a snapshot namespace
// (SnapshotNamespace) it is the snapshot's record.
func shareKey(acct, share string) tuple.Key {
	if base, snap, ok := splitSnapshotNS(share); ok {
		return snapshotKey(acct, base, snap)
	}
	return sharesPrefix(acct).Str(share)
}

func rootKey(acct, share string) tuple.Key { return accountKey(acct).Raw("r").Str(share) }

// nodesTag keys directory entries by their names' folds (nameKey), so
// that a lookup in any case finds one; legacyNodesTag keyed them by the
// names as given, before names were case-insensitive, and only the
// upgrade (names_upgrade.go) reads it.
const (
	nodesTag       = "N"
	legacyNodesTag = "n"
)

// childrenPrefix covers every entry of the directory with the given ID.
func childrenPrefix(acct, share string, parent uint64) tuple.Key {
	return accountKey(acct).Raw(nodesTag).Str(share).Uint(parent)
}

// nodeKey is where the entry called name (in any case) of a directory is.
func nodeKey(acct, share string, parent uint64, name string) tuple.Key {
	return childrenPrefix(acct, share, parent).Str(nameKey(name))
}

// inodesTag keys the records of hard-linked files by their IDs: a file
// with several directory entries lives there once, and each entry is a
// stub naming it (links.go).
const inodesTag = "i"

// inodeKey is where the record of the hard-linked file with the given ID
// lives.
func inodeKey(acct, share string, id uint64) tuple.Key {
	return accountKey(acct).Raw(inodesTag).Str(share).Uint(id)
}

func extentsPrefix(acct, share string, file uint64) tuple.Key {
	return accountKey(acct).Raw("x").Str(share).Uint(file)
}

// extentKey is where the extent ending at end is stored: a scan from
// start+1 finds the first extent that can overlap [start, ...).
func extentKey(acct, share string, file uint64, end int64) tuple.Key {
	return extentsPrefix(acct, share, file).Uint(uint64(end))
}

// filePayloadPrefix covers a file's data objects. They live under the
// live share even when a snapshot namespace reads them: a snapshot shares
// the data objects of the files it copied.
func filePayloadPrefix(acct, share string, file uint64) tuple.Key {
	return sharePayloadPrefix(acct, baseShare(share)).Uint(file)
}

// sharePayloadPrefix covers the data objects of a live share's files.
func sharePayloadPrefix(acct, share string) tuple.Key {
	return accountKey(acct).Raw("d").Str(share)
}

// handlesPrefix covers the open handles of the directory or file with
// the given ID.
func handlesPrefix(acct, share string, node uint64) tuple.Key {
	return accountKey(acct).Raw("h").Str(share).Uint(node)
}

func handleKey(acct, share string, node, handle uint64) tuple.Key {
	return handlesPrefix(acct, share, node).Uint(handle)
}

// shareRanges are every key range that belongs to one live share besides
// its record: its open handles and their byte-range locks, its
// snapshots' records and holds included; the records in a snapshot's namespace are deleteNamespace's.
func shareRanges(acct, share string) [][2][]byte {
	var out [][2][]byte
	for _, tag := range []string{"r", nodesTag, legacyNodesTag, inodesTag, "x", clearMarksTag, "d", "h", "l", "S", "k", "u", "P"} {
		p := accountKey(acct).Raw(tag).Str(share)
		out = append(out, [2][]byte{p, kv.PrefixEnd(p)})
	}
	return out
}

// usageCounter is a share's usage: the bytes its files hold, counted in
// the shards "Fa acct u share shard" (see usage.go).
func usageCounter(acct, share string) counter.Counter {
	return counter.At(accountKey(acct).Raw("u").Str(share))
}

// permissionKeyKey is where the SDDL a permission key names is stored.
func permissionKeyKey(acct, share, key string) tuple.Key {
	return accountKey(acct).Raw("P").Str(share).Str(key)
}

// locksPrefix covers the byte-range locks held on one file, through
// every handle: a transaction that reads or writes a range of the file
// scans exactly this range, so a concurrent Lock on the file conflicts
// with it and no other file's locks are read.
func locksPrefix(acct, share string, file uint64) tuple.Key {
	return accountKey(acct).Raw("l").Str(share).Uint(file)
}

// handleLocksPrefix covers the locks one handle holds on its file.
func handleLocksPrefix(acct, share string, file, handle uint64) tuple.Key {
	return locksPrefix(acct, share, file).Uint(handle)
}

// lockKey is where one (handle, range, mode) lock is counted: a handle
// may stack shared locks on one range, each released by one Unlock.
func lockKey(acct, share string, file, handle, offset, length uint64, exclusive bool) tuple.Key {
	var mode uint64
	if exclusive {
		mode = 1
	}
	return handleLocksPrefix(acct, share, file, handle).Uint(offset).Uint(length).Uint(mode)
}

// accountTag starts every key of an account's resources.
const accountTag = keyspace.FileAccounts

// ObjectKey reports whether key is a file or directory of a share's tree
// (the metrics count objects with it).
func ObjectKey(key []byte) bool {
	_, ok := tuple.Tagged(key, accountTag, nodesTag[0])
	return ok
}
