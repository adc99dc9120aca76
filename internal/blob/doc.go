// Package blob serves Azure's Blob REST protocol over the kv store.
//
// Data model (keys built with package tuple, all under the tag "B"):
//
//	Ba acct p                         service properties
//	Ba acct c container               container record
//	Ba acct o container blob          blob record (properties, metadata)
//	Ba acct x container blob idx      block/append blob: page of extents idx..idx+899
//	Ba acct x container blob end      page blob: the extent ending at offset end
//	Ba acct n container blob snap     snapshot record
//	Ba acct z container blob snap ... snapshot extents (same suffixes as x)
//	Ba acct u container blob blockid  uncommitted block
//	Ba acct k container blob shard    uncommitted block count, one of 64 shards
//	Ba acct l container blob          lease of a blob that has only
//	                                  uncommitted blocks (placeholder.go)
//	Ba acct d container blob data off payload chunk of a data object
//	Ba acct t container key value blob tag index: the blob has tag key=value
//	Ba acct v container blob version  previous version record (versions.go)
//	Ba acct w container blob version ... previous version extents (as z)
//	Ba acct r container version       soft-deleted container; its keys live
//	                                  under the container "name/version"
//	Bs data                           data staged but not yet referenced
//	Bg version page                   data freed by commit version, to delete
//	Bd version n                      key range of the data objects a commit
//	                                  deleted with their blob or container,
//	                                  to delete after it (DropObjects)
//
// Payload bytes are written once into immutable data objects (numbered by a
// transaction version) and referenced by extents or uncommitted blocks. An
// upload too large for one transaction is staged in its own transactions
// and registered under Bs; the small metadata commit that makes it visible
// removes the registration, a rejected commit deletes the staged data, and
// a sweep at start-up removes what a crash left staged. The content store
// Blob shares with Files (package extentstore) does that work; this
// package names its keys and registry records (objects.go).
//
// Service holds the rules and speaks no HTTP; NewHandler serves it on the
// wire, translating each request into one Service call. Tx runs item
// operations inside a transaction its caller owns (Service.In, or
// Service.Update for a closure), so that several commit or fail together.
// An upload's bytes belong to the call that receives them as Content: it
// verifies their digest and either commits them or removes what it staged.
//
// Every record that grows with a blob's block count stays within the kv
// limits: extents of block and append blobs are packed 900 to a value
// (extentpages.go); uncommitted blocks are dropped with one range delete
// and counted in a sharded counter (package counter, blockcount.go); and a commit that frees
// more than a few data objects registers them under Bg, to be deleted
// after it commits in transactions of bounded size (package extentstore).
// A blob's index tags live in its record (so a snapshot keeps the tags
// it was taken with); every change to them also moves the blob's entries
// under "Ba acct t", which Find Blobs by Tags scans (tags.go, findtags.go).
// CheckInvariants verifies the whole layout, the tag index included.
//
// Data protection (options.go): with versioning, a write that replaces a
// blob's content or metadata first keeps the old state as a previous
// version, sharing its data objects like a snapshot (versions.go). Blob
// soft delete (the DeleteRetentionPolicy service property) marks deleted
// snapshots and versions Deleted instead of removing them and turns a
// deleted blob into a soft-deleted snapshot (softdelete.go); container
// soft delete moves a deleted container's keys aside to an alias
// (containers_softdelete.go). PurgeExpired removes what outlived its
// retention (purge.go). With last access time tracking, a Get Blob moves
// the blob's Accessed time at most once a day, in a transaction of its
// own after the read (lastaccess.go).
//
// Encryption lives in the records, under no key of its own: a blob keeps
// the SHA-256 of the customer-provided key it was written with (never the
// key; content is not encrypted at rest) and its encryption scope, a
// container its default scope (encryption.go). Structured-message bodies
// (XSM/1.0) are decoded and verified on their way in and encoded on their
// way out; only their content is stored (structured.go).
package blob
