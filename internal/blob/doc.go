// Package blob serves Azure's Blob REST protocol over the kv store.
//
// Data model (keys built with package tuple, all under the tag "B"):
//
//	Ba acct p                         service properties
//	Ba acct c container               container record
//	Ba acct o container blob          blob record (properties, metadata)
//	Ba acct x container blob idx      committed extent idx of the blob
//	Ba acct u container blob blockid  uncommitted block
//	Ba acct d container blob data off payload chunk of a data object
//	Bs data                           data staged but not yet referenced
//
// Payload bytes are written once into immutable data objects (numbered by a
// transaction version) and referenced by extents or uncommitted blocks. An
// upload too large for one transaction is staged in its own transactions
// and registered under Bs; the small metadata commit that makes it visible
// removes the registration, a rejected commit deletes the staged data, and
// a sweep at start-up removes what a crash left staged.
//
// Service holds the rules and speaks no HTTP; NewHandler serves it on the
// wire, translating each request into one Service call. Tx runs item
// operations inside a transaction its caller owns (Service.In, or
// Service.Update for a closure), so that several commit or fail together.
// An upload's bytes belong to the call that receives them as Content: it
// verifies their digest and either commits them or removes what it staged.
package blob
