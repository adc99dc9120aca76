// Package extentstore is the content store that Blob and Files share: the
// payload bytes of blob blocks, page-blob pages, append blocks and file
// ranges, kept in the kv store as immutable data objects of chunks
// (package chunk) under each service's own key prefix.
//
// A service names where its data objects live with a Layout: the key
// prefix of an owner's (a blob's, a file's) objects, and, when it stages
// uploads or defers deletions, the prefixes and record format of its
// registries. The Layout's methods (Write, Read, Delete, Free) work in a
// transaction the caller owns; Store, built over the service's kv.Store,
// adds what runs in transactions of its own. Together they own what both
// services did alike:
//
//   - receiving content (Receive, or Upload.Read for content a service
//     writes in its own transaction): the bytes are read, their MD5 (and
//     CRC64, when the client sent one) computed and checked here, inside
//     the call that owns them, so a bad digest is one more error. Content
//     up to InlineLimit stays in memory and is written by the commit
//     itself (Payload.Place); larger content is staged in transactions of
//     its own, registered first so that a crash leaves it to the sweep.
//   - garbage: a rejected or failed write deletes what it staged
//     (Discard); SweepStaged removes what a crash left staged; Free
//     deletes the objects a commit made unreferenced, or, when there are
//     many or large ones, registers them to be deleted after the commit
//     (Store.Update) in transactions of bounded size; DropObjects does
//     the same for every object under a prefix (a deleted blob's,
//     container's, file's or share's). Update deletes them before it
//     returns, or, with CollectLater (the server), on a background task
//     once the answer is given. No transaction reads more than a
//     few MiB of what it deletes, so deleting an object of any size
//     commits within kv.MaxTxnDuration where the store counts stored
//     bytes (kv/usage reads what a range deletion removes unless told).
//   - reading: Read streams a range of one object, Stream the bytes of a
//     sparse run of extents, unwritten gaps as zeros.
//   - sparse content (page blobs, files), one extent per key keyed by its
//     end offset: Overlapping finds the extents a range meets, Cut
//     removes a range and keeps the outer parts. Cut and DeleteSized say
//     what each deleted key or range held (kv.Remove, kv.RemoveRange),
//     so a store that counts stored bytes (kv/usage) reads nothing back.
//   - the invariant check (Checker): every data object is whole,
//     referenced, staged or registered as freed, and nothing referenced
//     is missing.
//
// The stored format is the services' own: keys come from their Layout
// and registry records from their Registrations.
package extentstore
