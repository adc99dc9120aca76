// Package storagefront is the one front door of the Storage services
// (Blob, Queue, Table, Files). A service describes itself as data — a
// routing table whose rows name Azure's operations, what each needs of a
// caller and the handler method that runs it — plus a few hooks for what
// only it knows (how its path addresses a resource, its naming rules).
// The front door does the rest, in the same order for every service:
// resolve the account (and its read-only secondary), match the route,
// name the operation (azhttp.Routed: metrics and fault injection),
// authenticate, authorize (public access included), run.
//
// Operation names come from the table, never from Go identifiers: they
// are public (metric labels, --faults rule keys) and are spelled as in
// the Azure Storage REST reference, without spaces ("GetContainerMetadata").
package storagefront
