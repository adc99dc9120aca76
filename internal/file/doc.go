// Package file serves Azure Files over REST (FileREST) on the kv store.
//
// Data model (keys built with package tuple, all under the tag "F"):
//
//	Fa acct s share                     share record (quota, metadata)
//	Fa acct r share                     the share's root directory
//	Fa acct n share parent name         directory or file record, under the
//	                                    ID of its parent directory (root: 0)
//	Fa acct x share file end            file extent ending at offset end
//	Fa acct d share file data chunk     payload chunk of one data object
//	Fa acct u share shard               one shard of the share's usage
//	Fa acct k share key                 the SDDL a permission key names
//
// Directories and files are keyed by their parent's ID, not by their
// path: listing a directory is one range scan, a directory is empty when
// that range is, and a later rename moves one record instead of a whole
// subtree. Every operation walks the path from the root, so it reads each
// ancestor's record, and a concurrent delete of an ancestor conflicts with
// it instead of leaving an orphan.
//
// File content is a sparse set of extents, exactly as for page blobs: each
// Put Range writes its bytes once into an immutable data object and records
// one extent keyed by its end offset, so the extents overlapping a range
// are found by one scan from its start. A write or clear cuts what it
// overlaps, keeping the outer parts, and deletes data objects nothing
// references any more. Bytes no extent covers read as zeros, so a 4 TiB
// file costs one record until it is written.
//
// A file's lease lives in its record (package lease, infinite only), so
// every write and delete checks it in the transaction that reads the
// record, and it survives a restart with the file.
//
// A share's usage is the sum of its files' sizes (not the bytes written
// into them), kept in 64 counter shards so that creates and deletes in one
// share seldom conflict; creating or growing a file past the share's quota
// is ShareSizeLimitReached (usage.go). A share's lease (package lease,
// 15 to 60 s or infinite) guards only its deletion; its stored access
// policies live in its record, where a service SAS's si is looked up.
// Permissions are stored per share under the key that names them, one key
// per distinct SDDL, whether created by Create Permission or set inline;
// the binary format converts to and from SDDL at the wire (descriptor.go).
//
// CheckInvariants verifies this layout on a quiescent store; the tests
// run it after every test.
//
// IDs of directories, files and data objects come from the commit version
// (with a sequence for several within one transaction), so they never
// repeat across the store's life.
//
// Service holds the rules and speaks no HTTP; NewHandler serves it on the
// wire, translating each request into one Service call. Tx runs the same
// operations inside a transaction its caller owns (Service.In, or
// Service.Update for a closure), so that several commit or fail together.
package file
