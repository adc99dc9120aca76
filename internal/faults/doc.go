// Package faults injects Azure's throttling and transient failures into a
// configurable share of requests, so that a client's retry policy can be
// proven against the answers Azure gives under load: 503 ServerBusy and
// 500 OperationTimedOut from Storage, 429 with x-ms-retry-after-ms from
// Cosmos DB, 503 from Search, a connection reset, or added latency.
//
// An Injector holds the rules; the server asks it (through
// azhttp.RequestInfo.Fault) once a request's operation is known. Rules
// are set at start (a spec string) and replaced at run time through the
// admin port's /faults endpoint. A rule's rate is a share applied evenly
// (at 50%, every second matching request), not a coin toss, so that a
// test's outcome does not depend on luck.
package faults
