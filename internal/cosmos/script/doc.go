// Package script runs Cosmos DB server-side JavaScript — stored
// procedures, pre- and post-triggers and user-defined functions — in goja
// (github.com/dop251/goja). It knows nothing of kv or HTTP: the caller
// hands it a Collection, the item operations of one logical partition
// inside one open transaction, and commits or rolls back by what the run
// returns.
//
// # The one-transaction model
//
// Every collection operation a script makes goes through that Collection,
// so they all commit together or not at all: a script that throws (or
// aborts, or runs out of time) leaves no trace once the caller rolls the
// transaction back. Scripts have no other way to affect the world — no
// network, files, timers or shared state — so when the kv commit
// conflicts with a concurrent transaction the caller simply runs the
// script again from the start on a fresh snapshot. A Collection error that carries no
// HTTP status is a store failure: it ends the script at once, even if the
// script passed a callback, and comes back wrapped so that the caller can
// recognise its conflict or I/O error.
//
// # The sandbox
//
// Each execution gets a fresh goja runtime with the globals of Cosmos DB's
// server-side API: getContext() (getCollection, getRequest, getResponse,
// abort), __ (the collection plus the JavaScript query functions
// filter/map/pluck/flatten/sortBy/sortByDescending/unwind and
// chain()…value()), ErrorCodes, console.log, and an Error constructor
// that also takes Cosmos DB's (number, message) form. goja has no
// require, setTimeout or I/O of its own, and none is added; Math.random
// and Date work. Nothing survives from one execution to the next.
// Compiled programs (goja.Program, immutable) are cached per (ID, ETag)
// and shared by concurrent executions.
//
// Operations run when called and their callbacks run afterwards, in
// order, once the code that issued them has returned — so a script that
// chains the next operation from each callback (the bulk-import pattern)
// loops rather than recursing. An operation failing with no callback to
// handle it ends the script with that error and status.
//
// # The budget
//
// An execution may take Options.Budget of wall time. Collection calls are
// accepted (they return true) during the first 80% of it, measured on
// Options.Now; after that they return false without running, so that a
// well-written script stops and returns a continuation (how far it got)
// for the client to call it again with. Once the budget is spent the
// script is interrupted — by a timer on real time, so a loop that never
// calls back is stopped too — and the run returns ErrTimeout (Cosmos DB's
// 408). The interrupt only takes effect in JavaScript code: one call into
// a native built-in runs to its end. Memory is bounded where a script's
// output leaves it: a body over Options.MaxResponse is refused with 413,
// console output is cut at 8 KiB, call depth is limited, and the query
// functions refuse to spread huge arrays; what a script allocates within
// its budget is not otherwise limited.
package script
