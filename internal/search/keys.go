package search

import (
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// resourceKey is the definition of one resource.
func resourceKey(kind Kind, name string) tuple.Key {
	return tuple.New(keyspace.SearchResources).Str(string(kind)).Str(name)
}

// resourcesPrefix covers every resource of one kind, in name order.
func resourcesPrefix(kind Kind) tuple.Key {
	return tuple.New(keyspace.SearchResources).Str(string(kind))
}

// definitionChunks holds a definition too large for its resource's value.
func definitionChunks(kind Kind, name string) tuple.Key {
	return tuple.New(keyspace.SearchResourceChunks).Str(string(kind)).Str(name)
}

// documentsPrefix covers every document of an index.
func documentsPrefix(index string) tuple.Key { return tuple.New(documentsTag).Str(index) }

// DocumentKey is where the document with key value key of an index is
// stored; the document layer writes it, index statistics count it.
func DocumentKey(index, key string) []byte { return documentsPrefix(index).Str(key) }

// IndexerStatePrefix covers every key of an indexer's run state (its
// high-water mark, run claim and execution history), which package
// indexer lays out beneath it. Deleting the indexer deletes them in the
// transaction that deletes its definition, so that a new indexer of the
// name starts from nothing whoever deleted the old one.
func IndexerStatePrefix(name string) tuple.Key {
	return tuple.New(keyspace.SearchIndexerStates).Str(name)
}

// resourceName reads the name back from a resource key.
func resourceName(key []byte, prefix tuple.Key) (string, error) {
	r, err := tuple.NewReader(key, len(prefix))
	if err != nil {
		return "", err
	}
	return r.Str()
}

// documentsTag starts every document's key.
const documentsTag = keyspace.SearchDocuments

// ObjectKey reports whether key is a Search document's (one per
// document); the metrics count objects with it.
func ObjectKey(key []byte) bool {
	return len(key) >= len(documentsTag) && string(key[:len(documentsTag)]) == documentsTag
}
