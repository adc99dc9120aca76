package blob

import (
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

func accountKey(acct string) tuple.Key { return tuple.New(accountTag).Str(acct) }

func servicePropsKey(acct string) tuple.Key { return accountKey(acct).Raw("p") }

func containerKey(acct, container string) tuple.Key {
	return accountKey(acct).Raw("c").Str(container)
}

func containersPrefix(acct string) tuple.Key { return accountKey(acct).Raw("c") }

// blobKey and friends: the tag comes before the container so that one range
// per tag covers a whole container.
func blobKey(acct, container, name string) tuple.Key {
	return accountKey(acct).Raw("o").Str(container).Str(name)
}

func blobsPrefix(acct, container string) tuple.Key {
	return accountKey(acct).Raw("o").Str(container)
}

// extentKey is where the extent page starting at extent idx of a block or
// append blob is stored (see extentpages.go).
func extentKey(acct, container, name string, idx int) tuple.Key {
	return extentsPrefix(acct, container, name).Uint(uint64(idx))
}

func extentsPrefix(acct, container, name string) tuple.Key {
	return accountKey(acct).Raw("x").Str(container).Str(name)
}

// contentPrefix is where the extents of the blob (snapshot "") or of one of
// its snapshots live.
func contentPrefix(acct, container, name, snapshot string) tuple.Key {
	if snapshot == "" {
		return extentsPrefix(acct, container, name)
	}
	if id, ok := versionOf(snapshot); ok {
		return versionExtentsPrefix(acct, container, name).Str(id)
	}
	return snapshotExtentsPrefix(acct, container, name).Str(snapshot)
}

func snapshotKey(acct, container, name, snapshot string) tuple.Key {
	return snapshotsPrefix(acct, container, name).Str(snapshot)
}

func snapshotsPrefix(acct, container, name string) tuple.Key {
	return accountKey(acct).Raw("n").Str(container).Str(name)
}

func snapshotExtentsPrefix(acct, container, name string) tuple.Key {
	return accountKey(acct).Raw("z").Str(container).Str(name)
}

func blockKey(acct, container, name string, id []byte) tuple.Key {
	return blocksPrefix(acct, container, name).Bytes(id)
}

func blocksPrefix(acct, container, name string) tuple.Key {
	return accountKey(acct).Raw("u").Str(container).Str(name)
}

func uncommittedPrefix(acct, container string) tuple.Key {
	return accountKey(acct).Raw("u").Str(container)
}

// placeholderLeaseKey holds the lease of a blob that has uncommitted
// blocks only (placeholder.go).
func placeholderLeaseKey(acct, container, name string) tuple.Key {
	return accountKey(acct).Raw("l").Str(container).Str(name)
}

// blockCountPrefix holds the shards of the blob's uncommitted block
// count (blockcount.go).
func blockCountPrefix(acct, container, name string) tuple.Key {
	return accountKey(acct).Raw("k").Str(container).Str(name)
}

// stagedPrefix holds the registrations of uploads staged but not yet
// committed, keyed by data object; garbagePrefix the pages of data
// objects a commit freed, keyed by its version and page number. Both
// registries belong to the content store (package extentstore).
func stagedPrefix() tuple.Key { return tuple.New(keyspace.BlobStaged) }

func garbagePrefix() tuple.Key { return tuple.New(keyspace.BlobGarbage) }

func droppedPrefix() tuple.Key { return tuple.New(keyspace.BlobDropped) }

// tagIndexKey is the tag index entry saying that the blob carries the tag
// key=value; Find Blobs by Tags scans it. It sits under the container, so
// that deleting a container drops its entries with one range.
func tagIndexKey(acct, container, key, value, name string) tuple.Key {
	return tagIndexPrefix(acct, container).Str(key).Str(value).Str(name)
}

func tagIndexPrefix(acct, container string) tuple.Key {
	return accountKey(acct).Raw("t").Str(container)
}

// containerRanges are every key range that belongs to one container but
// its data objects' (containerDataPrefix), which are dropped instead
// (deleteContainerKeys).
func containerRanges(acct, container string) [][2][]byte {
	var out [][2][]byte
	for _, tag := range []string{"o", "x", "u", "k", "l", "n", "z", "t", "v", "w"} {
		p := accountKey(acct).Raw(tag).Str(container)
		out = append(out, [2][]byte{p, kv.PrefixEnd(p)})
	}
	return out
}

// containerDataPrefix covers the data objects of every blob of a
// container.
func containerDataPrefix(acct, container string) tuple.Key {
	return accountKey(acct).Raw("d").Str(container)
}

// deleteContainerKeys deletes every key of a container. Its data objects
// are dropped (objects.DropObjects): deleted after the commit, a piece at
// a time, as a container may hold more than a store that counts stored
// bytes can read in one transaction; those of a container made anew
// under the name after the commit are spared.
func deleteContainerKeys(tx kv.Txn, acct, container string) error {
	for _, r := range containerRanges(acct, container) {
		if err := tx.DeleteRange(r[0], r[1]); err != nil {
			return err
		}
	}
	return objects.DropObjects(tx, containerDataPrefix(acct, container), tx.Version())
}

// blobRanges are every key range that belongs to one blob and its
// snapshots besides the blob's record and its data objects, which
// deleteBlobKeys drops. A blob with a record has no placeholder lease.
func blobRanges(acct, container, name string) [][2][]byte {
	var out [][2][]byte
	for _, tag := range []string{"x", "u", "k", "n", "z"} {
		p := accountKey(acct).Raw(tag).Str(container).Str(name)
		out = append(out, [2][]byte{p, kv.PrefixEnd(p)})
	}
	return out
}

// deleteBlobKeys deletes every key of a blob and its snapshots but its
// record. Its data objects are dropped (objects.DropObjects), so that a
// blob of gigabytes is deleted after the commit a piece at a time; a
// blob written anew under the name after the commit keeps its own.
func deleteBlobKeys(tx kv.Txn, acct, container, name string) error {
	for _, r := range blobRanges(acct, container, name) {
		if err := tx.DeleteRange(r[0], r[1]); err != nil {
			return err
		}
	}
	return objects.DropObjects(tx, objects.Objects(blobID{acct, container, name}), tx.Version())
}

// accountTag starts every key of an account's resources.
const accountTag = keyspace.BlobAccounts

// ObjectKey reports whether key is a blob's record (one per blob; its
// content, snapshots and versions are other keys). The metrics count
// objects with it.
func ObjectKey(key []byte) bool {
	_, ok := tuple.Tagged(key, accountTag, 'o')
	return ok
}
