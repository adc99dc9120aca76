// Package svcprops keeps each account's service properties document (Get
// and Set Service Properties: logging, metrics, CORS, and for Blob the
// retention policy and static website) for one storage service in the kv
// store, and serves the two operations. Blob, Queue and Table share it.
// The document itself (ServiceProperties, with its validation and merge
// rules) and Blob soft delete's retention limits live here too.
package svcprops
