// Package liveness records in the store which server processes are
// running, so that what a process leaves unfinished — an upload staged but
// never committed — is reclaimed once its owner is gone, by whichever
// front end notices, and never while the owner may still finish it.
//
// Each process holds one record, "L <id>", with an expiry it renews every
// RenewEvery; a process whose record is missing or expired is gone. A
// clean shutdown deletes the record at once; after a crash it expires
// within TTL. Expiries are compared on each front end's own clock, so the
// front ends' clocks must agree to well within TTL.
package liveness
