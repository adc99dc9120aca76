// Package azerr is Azure Storage's error model, shared by Blob, Queue,
// Table and Files: the Error type (status, code, message and the detail
// elements naming the offending input), the one table of error codes,
// the constructors for detail errors (InvalidHeaderValue,
// MissingRequiredQueryParameter, ...), the lease, encryption, batch and
// copy-source error tables, and the classification of store failures
// (ClassifyStore, StoreError) into the answers every Storage service gives.
//
// Services return these errors; azhttp.WriteError and WriteErrorJSON put
// them on the wire. The package sits below every other Storage package and
// imports none of them.
package azerr
