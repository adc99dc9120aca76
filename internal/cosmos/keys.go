package cosmos

import (
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

func databaseKey(db string) tuple.Key { return tuple.New(keyspace.CosmosDatabases).Str(db) }

func databasesPrefix() tuple.Key { return tuple.New(keyspace.CosmosDatabases) }

func containerKey(db, coll string) tuple.Key {
	return tuple.New(keyspace.CosmosContainers).Str(db).Str(coll)
}

func containersPrefix(db string) tuple.Key { return tuple.New(keyspace.CosmosContainers).Str(db) }

// itemsPrefix covers every item of a container, or of a database when coll
// is omitted by the caller using itemsOfDatabase.
func itemsPrefix(db, coll string) tuple.Key { return tuple.New(itemsTag()).Str(db).Str(coll) }

func itemsOfDatabase(db string) tuple.Key { return tuple.New(itemsTag()).Str(db) }

// partitionPrefix covers a logical partition, or every partition sharing a
// prefix of a hierarchical key.
func partitionPrefix(db, coll string, pk []string) tuple.Key {
	k := itemsPrefix(db, coll)
	for _, c := range pk {
		k = k.Str(c)
	}
	return k
}

func itemKey(db, coll string, pk []string, id string) tuple.Key {
	return partitionPrefix(db, coll, pk).Str(id)
}

func uniquePrefix(db, coll string) tuple.Key {
	return tuple.New(keyspace.CosmosUnique).Str(db).Str(coll)
}

func uniqueOfDatabase(db string) tuple.Key { return tuple.New(keyspace.CosmosUnique).Str(db) }

// uniqueKey is the index entry of one unique key (number idx of the
// container's policy) with the given values, in one logical partition.
func uniqueKey(db, coll string, pk []string, idx int, values string) tuple.Key {
	k := uniquePrefix(db, coll)
	for _, c := range pk {
		k = k.Str(c)
	}
	return k.Uint(uint64(idx)).Str(values)
}

// scriptKey is a stored procedure, trigger or user-defined function of a
// container; kind is its path segment ("sprocs", "triggers", "udfs").
func scriptKey(db, coll string, kind ScriptKind, id string) tuple.Key {
	return scriptsPrefix(db, coll, kind).Str(id)
}

func scriptsPrefix(db, coll string, kind ScriptKind) tuple.Key {
	return scriptsOfContainer(db, coll).Str(string(kind))
}

func scriptsOfContainer(db, coll string) tuple.Key {
	return tuple.New(keyspace.CosmosScripts).Str(db).Str(coll)
}

func scriptsOfDatabase(db string) tuple.Key { return tuple.New(keyspace.CosmosScripts).Str(db) }

// ObjectKey reports whether key is an item's (one per item: a large
// item's pieces are under their own tag); the metrics count objects with
// it.
func ObjectKey(key []byte) bool {
	return len(key) >= len(itemsTag()) && string(key[:len(itemsTag())]) == itemsTag()
}
