// Package smb serves Azure Files over SMB 2.1, 3.0, 3.0.2 and 3.1.1, on
// the same file and open-handle model as FileREST (package file): an SMB
// open is a file.Handle, so share modes, delete-on-close and byte-range
// locks meet REST operations exactly as they meet other SMB opens, and
// List Handles and Force Close Handles see and end SMB opens.
//
// Layers, each a file:
//
//	server.go     listener, connection and handle limits
//	conn.go       transport (4-byte length framing), compound chains,
//	              credits, signing, dispatch, and asynchronous requests
//	              (interim STATUS_PENDING, async ID, final answer, CANCEL)
//	wire.go       the SMB2 header and bounds-checked field readers
//	negotiate.go  NEGOTIATE, with the 3.1.1 pre-auth integrity hash
//	signing.go    3.1.1 signing algorithm and cipher choice, AES-GMAC
//	              signatures
//	session.go    SESSION_SETUP, LOGOFF, TREE_CONNECT, TREE_DISCONNECT
//	ntlm.go       NTLMSSP (NTLMv2) against the storage account keys
//	spnego.go     the SPNEGO wrapping of NTLMSSP
//	crypto.go     SP800-108 KDF, AES-CMAC for SMB 3.x signing, AES-CCM
//	seal.go       SMB 3.x encryption (AES-GCM or -CCM transform frames)
//	create.go     CREATE, CLOSE, FLUSH, READ, WRITE
//	createcheck.go the access, option and attribute bits CREATE refuses
//	createblob.go  allocation, maximal access, on-disk ID and timewarp
//	              create contexts
//	info.go       QUERY_INFO and SET_INFO
//	handlestate.go what an open keeps of its own: position, mode flags
//	              and the allocation a client set
//	dir.go        QUERY_DIRECTORY
//	lock.go       LOCK (immediate and waiting), CANCEL
//	locksequence.go  LOCK sequence numbers: replayed LOCKs on durable
//	              and resilient handles are answered, not applied twice
//	notify.go     CHANGE_NOTIFY, fed by the file model's committed changes
//	lease.go      oplocks and leases: grants, breaks, acknowledgements,
//	              and the breaks FileREST operations ask for
//	lease_*.go    breaks in progress, renames, delete-pending closes,
//	              routing breaks by client GUID
//	durable.go    durable handles: grants, disconnection, reconnects,
//	              replays and expiry
//	resilient.go  FSCTL_LMR_REQUEST_RESILIENCY: opens kept across a
//	              dropped connection whatever their caching
//	appinstance.go  application instance IDs: a failed-over application's
//	              open closes the opens it left from another client
//	ioctl.go      IOCTL (FSCTL_VALIDATE_NEGOTIATE_INFO, compression queries)
//	copychunk.go  server-side copy (FSCTL_SRV_REQUEST_RESUME_KEY,
//	              FSCTL_SRV_COPYCHUNK and FSCTL_SRV_COPYCHUNK_WRITE)
//	status.go     the one map from file-model errors to NTSTATUS
//
// Authentication is Azure Files' key-based access: the user name is the
// storage account and the password one of its keys in base64, checked
// by NTLMv2 (anonymous, guest and NTLMv1 logons are refused with
// STATUS_LOGON_FAILURE; an NTLMv2 response whose AV pairs do not parse is
// STATUS_INVALID_PARAMETER, as on Windows). Session keys sign with HMAC-SHA256 (2.x) or
// AES-128-CMAC with keys from the SP800-108 KDF (3.x; for 3.1.1 bound to
// the pre-auth hash). A 3.1.1 client's signing-capabilities context
// chooses the algorithm over that key instead, in Windows Server's order:
// AES-128-GMAC, AES-128-CMAC, then HMAC-SHA256; the response answers the
// context with the one chosen. Signed requests are verified; responses to
// signed requests, and the final SESSION_SETUP response, are signed.
// Signing is offered, not required. Encryption is offered as Azure Files
// offers it (its SMB channel encryption setting lists AES-256-GCM,
// AES-128-GCM and AES-128-CCM): in 3.1.1's encryption context, chosen in
// Windows Server's default order (AES-128-GCM, AES-128-CCM, AES-256-GCM;
// a list with none of them is answered with cipher 0), the AES-256 keys
// derived with L = 256; AES-128-CCM with 3.0 and 3.0.2 to a client with
// the encryption capability. It is used when the client encrypts (an
// encrypted request gets an encrypted answer) and never required.
//
// Every command that touches a file is one call into file.Service: an
// open is file.Service.Open (disposition, sharing, delete-on-close in
// one transaction), and reads, writes, set-info, rename and enumeration
// address the handle by (node ID, handle ID), carried to the client as
// the FileId's persistent and volatile halves. A handle the file model
// no longer has (Force Close Handles, a deleted share) answers
// STATUS_FILE_CLOSED. Writes give the file a new version, so its ETag
// and Last-Modified change as for Put Range. Reads and writes are
// checked against byte-range locks in the same transaction. A handle
// that set a file's change time (or gave -1) keeps it through its later
// changes, until it gives -2 (MS-FSA's Open.UserSetChangeTime, kept on
// the file.Handle). Enumerations list a delete-pending file until its
// last close, as NTFS does.
//
// Requests of a connection are handled in order by its read loop; a
// request that must wait (a blocked LOCK, a CHANGE_NOTIFY with nothing to
// report) answers STATUS_PENDING with an async ID and is finished later,
// once, from another goroutine; one that is not the last of a compound
// answers STATUS_INTERNAL_ERROR instead, as Windows does. A waiting LOCK
// retries on the file model's release signal (or a timer). CHANGE_NOTIFY
// watches are fed by file.Service.WatchChanges, so FileREST writes
// notify SMB clients too; closing the directory, its tree or its session
// answers STATUS_NOTIFY_CLEANUP. SESSION_SETUP on a valid session
// re-authenticates it; PreviousSessionId ends the session a client
// reconnects from as a dropped connection ends it (its durable opens
// stay, disconnected, to be reclaimed). Connections are read
// independently, so a client that hangs up one and at once opens the
// same file on another may be read in the other order: a CREATE that
// meets a conflict while some connection's client has hung up waits for
// that connection's end to be processed and tries once more (settle.go).
// For the same reason a request that may change a share's files first
// lets the connections holding a directory of the share open answer the
// frames they had already received that may ask for a notification (a
// CHANGE_NOTIFY in hand, input not read yet); of two changes that would
// wait for each other, the one begun later yields (watchorder.go).
//
// Oplocks and leases are kept in memory by the Server (lease.go), by
// file: a CREATE first breaks the handle caching it conflicts with, then
// opens (the sharing check), then breaks write caching; while a holder
// must acknowledge, the CREATE answers STATUS_PENDING and finishes on
// its own goroutine when the holders acknowledged, closed, or the break
// timer (Limits.BreakTimeout, 35 s) ended their caching. A CREATE waits
// only where Windows does, a break in progress is carried on in steps
// on acknowledgement (lease_breaking.go), renames and closes of a
// delete-pending file's handles break other leases' handle caching
// (lease_rename.go, lease_unlink.go), and lease breaks go to the
// client's first connection (lease_route.go). Writes, locks and size
// changes break read caching without waiting. The Server is
// the file.Service's CachingBreaker: FileREST reads and writes break
// caching first and wait for the acknowledgements, as Azure Files makes
// a REST write break an SMB lease.
//
// Server-side copy reads each chunk through the source open and writes
// it through the destination open by the path WRITE takes, so locks,
// caching breaks and versions are a write's, and REST reads the copy. A
// resume key is the source's FileId with an HMAC tag: it names the open
// to any tree of the session while the open lasts, and nothing after.
// Limits are Windows': 256 chunks, 1 MiB a chunk, 16 MiB a request.
//
// When a connection ends (or its session logs off), the handles that
// are not durable close; durable ones (durable.go) stay open in the file
// model, disconnected, with their share modes, locks and caching, until
// reclaimed by DHnC/DH2C on a new connection or their timeout passes.
// A resilient open (FSCTL_LMR_REQUEST_RESILIENCY, resilient.go) is kept
// and reclaimed the same way, whatever its caching, for its own timeout.
// Persistent handles, directory leases, multichannel,
// DFS, named pipes on IPC$, quotas and
// extended attributes answer STATUS_NOT_SUPPORTED (or what Windows
// answers when it lacks them).
//
// Limits bound connections, sessions per connection, handles per
// session and server-wide, credits and waiting requests. A frame that is
// not a well-formed SMB2 message closes its connection; the fields of a
// message are read with bounds checks, so no input panics the server
// (FuzzPacket).
package smb
