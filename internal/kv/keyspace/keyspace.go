// Package keyspace declares every top-level key prefix of the store in
// one list: which package owns the keys under it and what they hold. A
// package takes its tags from here, so that two packages can never write
// under one prefix, and a test checks that no prefix is another's prefix.
//
// Keys are tuple keys (kv/tuple) that start with a tag's bytes. Each
// storage service owns one first byte (its Space); every tag of the
// service starts with it, and the metrics count a service's stored bytes
// by it. Tags outside the services belong to the store itself.
package keyspace

// Space is the first byte of every key of one storage service.
type Space struct {
	Prefix  string
	Service string // as the metrics name it
	Owner   string // the package that writes its keys
}

// Tag is one top-level key prefix.
type Tag struct {
	Prefix string
	Owner  string // the package that writes under it
	About  string // what the keys under it hold
}

// The services' spaces.
const (
	BlobSpace   = "B"
	QueueSpace  = "Q"
	TableSpace  = "T"
	FileSpace   = "F"
	CosmosSpace = "C"
	SearchSpace = "S"
)

// The tags, by owner.
const (
	BlobAccounts = "Ba"
	BlobStaged   = "Bs"
	BlobGarbage  = "Bg"
	BlobDropped  = "Bd"

	QueueAccounts = "Qa"

	TableAccounts  = "Ta"
	TableETagClock = "Tc"

	FileAccounts = "Fa"
	FileDropped  = "Fd"

	CosmosDatabases   = "Cd"
	CosmosContainers  = "Cc"
	CosmosItems       = "Ci"
	CosmosItemChunks  = "Cj"
	CosmosUnique      = "Cu"
	CosmosScripts     = "Cs"
	CosmosIndex       = "Cx"
	CosmosIndexStates = "Cy"
	CosmosChangeSeq   = "Cq"
	CosmosChanges     = "Cf"
	CosmosUsers       = "Cw"
	CosmosPermissions = "Cp"
	CosmosOffers      = "Co"

	SearchResources      = "Sr"
	SearchResourceChunks = "Sc"
	SearchDocuments      = "Sd"
	SearchSequences      = "Sq"
	SearchChangeLog      = "Sl"
	SearchIndexerStates  = "Si"

	ProcessLiveness     = "L"
	StoreDataFormat     = "Mf"
	StoreReadinessProbe = "Mr"
	StoreUsage          = "Mu"
)

// Owners named more than once.
const (
	blobOwner  = "internal/blob"
	cosmosPkg  = "internal/cosmos"
	searchPkg  = "internal/search"
	indexerPkg = "internal/search/indexer"
)

// Spaces are the storage services' first bytes.
var Spaces = []Space{
	{BlobSpace, "blob", blobOwner},
	{QueueSpace, "queue", "internal/queue"},
	{TableSpace, "table", "internal/table"},
	{FileSpace, "file", "internal/file"},
	{CosmosSpace, "cosmos", cosmosPkg},
	{SearchSpace, "search", searchPkg},
}

// All is every top-level key prefix in the store.
var All = []Tag{
	{BlobAccounts, blobOwner, "an account's blob service: properties, containers, blobs, extents, blocks, snapshots, versions, tag index, data chunks"},
	{BlobStaged, blobOwner, "data objects being uploaded, by data id, for the sweep to free when their upload died"},
	{BlobGarbage, blobOwner, "data objects a commit made unreferenced, by commit version, to be deleted after it"},
	{BlobDropped, blobOwner, "key ranges of data objects a commit deleted with their blob or container, by commit version, to be deleted after it"},
	{QueueAccounts, "internal/queue", "an account's queue service: properties, queues, messages by visibility time"},
	{TableAccounts, "internal/table", "an account's table service: properties, tables, entities and their chunks"},
	{TableETagClock, "internal/table", "the clock that keeps entity timestamps (and ETags) increasing"},
	{FileAccounts, "internal/file", "an account's file service: properties, shares, directories, files, extents, handles, locks, snapshots"},
	{FileDropped, "internal/file", "key ranges of data objects a commit deleted with their file or share, by commit version, to be deleted after it"},
	{CosmosDatabases, cosmosPkg, "databases"},
	{CosmosContainers, cosmosPkg, "containers, by database"},
	{CosmosItems, cosmosPkg, "items, by database, container and partition key"},
	{CosmosItemChunks, cosmosPkg, "the pieces of items too large for one value"},
	{CosmosUnique, cosmosPkg, "unique key constraint entries"},
	{CosmosScripts, cosmosPkg, "stored procedures, triggers and user-defined functions"},
	{CosmosIndex, cosmosPkg, "range index entries of containers' indexing policies"},
	{CosmosIndexStates, cosmosPkg, "the build state of each container's range index"},
	{CosmosChangeSeq, cosmosPkg, "each container's change feed sequence (its last LSN)"},
	{CosmosChanges, cosmosPkg, "the change feed log, by container and LSN"},
	{CosmosUsers, cosmosPkg, "users, by database"},
	{CosmosPermissions, cosmosPkg, "permissions, by database and user"},
	{CosmosOffers, cosmosPkg, "throughput offers of databases and containers"},
	{SearchResources, searchPkg, "resource definitions: indexes, synonym maps, data sources, indexers, skillsets, aliases"},
	{SearchResourceChunks, searchPkg, "the chunks of definitions too large for one value"},
	{SearchDocuments, searchPkg, "documents, by index and key"},
	{SearchSequences, searchPkg, "each index's document batch sequence"},
	{SearchChangeLog, searchPkg, "the document change log the bleve index catches up from"},
	{SearchIndexerStates, indexerPkg, "indexer state (high-water mark, run claim) and execution history"},
	{ProcessLiveness, "internal/liveness", "the leases of running processes, for sweeps of what dead ones left"},
	{StoreDataFormat, "internal/kv/record", "the store's data format (record.DataFormat: record format and layout)"},
	{StoreReadinessProbe, "internal/admin", "the record /readyz writes to prove the store takes writes"},
	{StoreUsage, "internal/kv/usage", "the bytes, records and objects each service stores (counts), and the progress of their first count"},
}
