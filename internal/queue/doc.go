// Package queue serves Azure's Queue REST protocol over the kv store.
//
// Data model (keys built with package tuple, all under the tag "Q"):
//
//	Qa acct p                            service properties
//	Qa acct q queue                      queue record (metadata, stored access policies)
//	Qa acct m queue visibleAt seq        message (record and text)
//
// visibleAt is the time, in Unix nanoseconds, from which the message may be
// handed out; seq is the commit version of the Put Message that created it,
// unique and increasing, so messages that become visible at the same instant
// keep their insertion order. A message therefore sits where a consumer looks
// for it: Get Messages is one transaction that scans the queue's messages
// from the start up to "now", takes the first N that have not expired, and
// re-keys each under its new visibleAt with DequeueCount+1 and a new pop
// receipt. Two consumers that read the same message conflict in the kv
// layer's serializable transactions and one of them runs again on a fresh
// snapshot — that conflict, not a lock, is what guarantees that an invisible
// message is handed to nobody else until its visibility window ends. The
// same holds across restarts, since the window is stored in the key.
// Competing consumers of one queue would all read its first messages and
// all but one run again; instead each Get claims in memory the messages
// it takes and passes over those other Gets of the process have claimed,
// reading only what it takes (claims.go, kv.ScanPicking), so consumers
// take different messages and rarely conflict. The claims only save work:
// the conflict on the messages taken is what still guarantees the rule.
//
// A pop receipt encodes the message's key (visibleAt, seq) and the version
// of the transaction that issued it. Delete Message and Update Message read
// exactly that key: a receipt from before a later Get or Update names a key
// the message has left (404 MessageNotFound), or, should the message have
// been re-keyed to the same instant, a different issuing version (400
// PopReceiptMismatch). Receipts are not invalidated by time alone, as in
// Azure: until another Get or Update, the last receipt still deletes.
//
// Expired messages (expiry at or before the request time) are never
// returned. Get Messages deletes those it passes; Sweep removes the rest in
// small background transactions.
//
// Queues, like Azure's, carry no ETags: metadata, access policies, service
// properties and Update Message are last-writer-wins.
//
// Access (access.go): a queue SAS reaches Get Queue Metadata and the
// message operations only, anything else answering 403
// AuthorizationFailure as Azure does; Get and Set Queue ACL are the
// account owner's (Shared Key); an account SAS creates a queue with w or
// c. Set Queue ACL refuses permission letters outside raup.
//
// Layers: Service holds the queue rules over the store and knows nothing
// of HTTP; NewHandler's handler parses requests, authenticates them, makes
// one Service call and renders the answer. Message operations are written
// once, on Tx, so that a caller can run several of them in one kv
// transaction (Service.Update, Service.In); Service's own methods run one
// each. Store failures pass through unmapped, for azhttp to answer.
package queue
