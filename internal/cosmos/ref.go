package cosmos

// CollectionRef names a container (a collection) of a database.
type CollectionRef struct {
	DB, Coll string
}

// ItemRef names an item: its container, logical partition and id.
type ItemRef struct {
	CollectionRef
	PartitionKey PartitionKey
	ID           string
}

// ScriptRef names a stored procedure, trigger or user-defined function
// of a container.
type ScriptRef struct {
	CollectionRef
	Kind ScriptKind
	ID   string
}

// UserRef names a user of a database.
type UserRef struct {
	DB, User string
}

// BulkOptions: ContinueOnError runs every operation of a bulk request
// even after one fails (x-ms-cosmos-batch-continue-on-error).
type BulkOptions struct {
	ContinueOnError bool
}
