// Package file serves Azure Files over REST (FileREST) on the kv store.
//
// Data model (keys built with package tuple, all under the tag "F"):
//
//	Fa acct s share                     share record (quota, metadata)
//	Fa acct D share version             a soft-deleted share (its keys are
//	                                    under the share name
//	                                    "share/version";
//	                                    shares_softdelete.go)
//	Fa acct r share                     the share's root directory
//	Fa acct N share parent NAME         directory or file record, under the
//	                                    ID of its parent directory (root: 0),
//	                                    keyed by its name's upcase fold; the
//	                                    record keeps the name as given
//	Fa acct n share parent name         the same, keyed by the name as given:
//	                                    the layout before names were
//	                                    case-insensitive, which the upgrade
//	                                    empties (names_upgrade.go)
//	Fa acct i share file                a hard-linked file's record, which
//	                                    each of its directory entries (a
//	                                    stub with Linked set) names (links.go)
//	Fa acct x share file end            file extent ending at offset end
//	Fa acct c share file id             a Clear Range made while the share
//	                                    had snapshots, which List Ranges
//	                                    against one shows (clearmarks.go)
//	Fa acct d share file data chunk     payload chunk of one data object
//	Fa acct S share snapshot            share snapshot record
//	Fa acct h share node handle         open SMB handle on a directory or
//	                                    file (node ID), naming the node's
//	                                    parent ID and name
//	Fa acct k share file data snapshot  the snapshot holds (keeps) a data
//	                                    object of the live share
//	Fa acct u share shard               one shard of the share's usage
//	Fa acct P share key                 the SDDL a permission key names
//	Fa acct l share file handle offset length mode
//	                                    byte-range locks (mode 1 exclusive,
//	                                    0 shared) held on a file through
//	                                    one handle, with their stack count
//	Fd version n                        key range of the data objects a
//	                                    commit deleted with their file or
//	                                    share, to delete after it (objects.go)
//
// Names are case-insensitive and case-preserving, as on NTFS and Azure
// Files (names.go): an entry is keyed by its name's fold, so a lookup in
// any case is one read, two names differing only in case cannot share a
// directory, and a listing is in the fold's order; the record keeps the
// name in the case it was created or last renamed with, which listings,
// handles and SMB's normalized names show. A create in another case
// meets the existing entry (a directory: ResourceAlreadyExists; a file
// is replaced and keeps its stored name), and a rename to another case
// of the same name changes only the stored case. A store written before
// names were folded is upgraded once per Service, before its first
// operation, in bounded transactions (names_upgrade.go;
// docs/decisions/20261127_files_case_insensitive_names.md).
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
// file costs one record until it is written. Data objects are written,
// read, freed and checked through the content store Blob shares (package
// extentstore, objects.go), which also verifies a Put Range's digests.
//
// A share snapshot (snapshots.go) copies the share's r, N and x records,
// in one transaction, under the namespace "share@snapshot-time", which no
// live share name can take, so every read path serves a snapshot given
// that namespace as its share. Data objects are not copied: they stay
// keyed under the live share, and the snapshot writes one hold per data
// object its extents name. A data object is deleted only when no live
// extent references it and no snapshot holds it (dataInUse), whether the
// live file is cut, replaced or deleted, or a snapshot is deleted. One
// snapshot's copies and holds must fit in one transaction
// (SnapshotRecordBudget, just under kv.MaxTxnSize); a larger share
// answers 501. A share with snapshots is deleted only together with them.
//
// With share soft delete on (WithShareRetention), Delete Share keeps the
// share, its snapshots included, as a deleted share: its record moves to
// "D" and its keys, in bounded transactions (kv.MovePrefix, which Blob's
// container soft delete uses too), to a name no share can take, so a new
// share of the name starts empty; Restore Share moves them back, and
// PurgeExpired removes what outlived its retention
// (shares_softdelete.go).
//
// A file's lease lives in its record (package lease, infinite only), so
// every write and delete checks it in the transaction that reads the
// record, and it survives a restart with the file.
//
// Open SMB handles are records of their own, keyed by the node they are
// open on, so every front end sharing the store sees them, and a share's
// deletion drops them with its range. None is opened on a snapshot: its
// deletion drops only the records of its namespace. A handle names the server process
// whose client opened it (package liveness) and lives no longer than that
// process: no SMB connection outlives it (a durable handle outlives its
// connection within the process, for its timeout). SweepOrphanHandles closes the handles of a process that is
// gone as their clients would have (delete-on-close applies, locks are
// released): at start-up of a process that has the embedded store to
// itself, and every liveness.TTL on a shared store. OpenHandle applies SMB
// sharing: an open whose access a handle's share mode denies, or whose
// share mode denies a handle's access, is a SharingViolation. Every
// FileREST operation on content finds its node through existingFor with
// the access Azure's "Manage file locks" table gives it (read: Get File,
// List Ranges, a copy's source; write: Put Range, Set Metadata, a
// resize; write and delete: Create File or Copy File over a file; delete
// shared: a rename's source; deletes, and a rename's replaced
// destination: no handle at all), so it meets the same rule; writes to a
// ReadOnly node answer 412 ReadOnlyAttribute, while Set Properties that
// leave the content alone may change (and clear) its attributes. A handle's delete disposition sets the node's
// DeletePending flag: FileREST then answers DeletePending and its listings
// leave the node out (SMB enumerations keep it, as NTFS does), and closing
// its last handle deletes it. A node's
// handles name its parent and name, so a rename must move them
// (moveHandles), which CheckInvariants verifies. Oplocks and leases are
// the SMB server's: the content operations of FileREST first tell the
// registered CachingBreaker (breaks.go), which breaks them and waits for
// the acknowledgements, as Azure Files does. Space an SMB open reserves
// beyond a file's size (allocation.go) is the node's Allocation until
// its last handle closes; FileREST never sees it.
//
// Byte-range locks (locks.go) follow MS-FSA: exclusive locks block other
// handles' reads, writes and locks; shared locks block every write and
// exclusive lock, their holder's too; the {0, 0} range conflicts with
// nothing; a handle stacks shared locks on one range, and an unlock
// names exactly a range it holds. They are keyed by the file first, so
// the one scan a read or write makes of them reads that file's locks
// only and puts them in its read set: a concurrent Lock on the file
// conflicts with it. They go with their handle: closing it in any way
// (CloseHandle, Force Close Handles, the last close of a delete-pending
// file) deletes them, moveHandles moves them, and a share's deletion
// drops them with its range. So a Put Range or a clear on a file its
// sharing check found no handle open on reads no locks: a handle opened
// meanwhile writes a key that check read. FileREST meets them as a
// request holding no lock (handle 0): Put Range, a clear and Put Range
// From URL need write access to the entire file (Azure's Put Range
// page), so any lock refuses them, as it does Create File or Copy File
// over the file; Get File and a copy's source read meet exclusive locks
// on the bytes they read; a resize meets every lock between the old
// and new sizes; all answer 409 FileLockConflict. Properties, metadata,
// List Ranges and leases ignore locks.
//
// Rename moves one record: a file keeps its ID, and so its extents, data
// and lease; a directory keeps its ID, and so its whole subtree. A
// directory is never moved into its own subtree.
//
// Copy File writes the bytes again (data objects belong to one file): the
// source is read from one snapshot, the destination created pending by
// one transaction and filled by transactions of at most 4 MiB of content
// each, the last marking it a success. A crash can leave it pending, with
// part of the content, until Abort Copy File empties it. Put Range From
// URL reads its source range from one snapshot and writes it as Put Range
// does. Either source may be a file of a share snapshot (?sharesnapshot=
// in the source URL), read from the snapshot's namespace.
//
// A share's usage is the sum of its files' sizes (not the bytes written
// into them), kept in a sharded counter (package counter) so that creates
// and deletes in one share seldom conflict; creating or growing a file past the share's quota
// is ShareSizeLimitReached (usage.go). A share's lease (package lease,
// 15 to 60 s or infinite) guards only its deletion; its stored access
// policies live in its record, where a service SAS's si is looked up.
// Permissions are stored per share under the key that names them, one key
// per distinct SDDL, whether created by Create Permission or set inline;
// the binary format converts to and from SDDL at the wire (descriptor.go).
//
// A share created with x-ms-enabled-protocols: NFS (nfs.go) keeps that in
// its record; its directories and files carry POSIX mode, owner and group
// instead of NTFS attributes and permissions, and it holds symbolic links
// (a file record with its text) and hard links (links.go): a file with a
// second name moves to its inode record, each name becomes a stub that
// locate follows, and Links counts the names. Records written before NFS
// shares were served read as SMB shares and single-named files.
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
