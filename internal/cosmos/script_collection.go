package cosmos

import (
	"encoding/json"
	"errors"
	"github.com/cerulean-db/cerulean/internal/kv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/cosmos/script"
)

// scriptCollection is the container a script sees (getContext().
// getCollection()): item operations of the script's transaction, bound to
// the logical partition the request named. A write of an item with another
// partition key is refused as Cosmos DB refuses it (400, "PartitionKey
// extracted from document doesn't match the one specified in the header").
type scriptCollection struct {
	t   *Tx
	c   *container
	ref CollectionRef
	pk  PartitionKey
	// storeErr is the first failure of the store itself. The script sees
	// it as a failed operation and may catch it, but the transaction
	// cannot commit after it: the run fails with it instead, so that a
	// conflict re-runs the script and anything else is answered as the
	// store failure it is.
	storeErr error
	// written estimates what the script's writes add to the transaction.
	written int
}

var (
	_ script.Collection = (*scriptCollection)(nil)
	_ script.Quota      = (*scriptCollection)(nil)
)

// scriptWriteQuota is how much a script may write into its transaction
// before its collection calls stop being accepted: half of what one kv
// transaction may hold, leaving room for keys, indexes and triggers. A
// bulk import then returns how far it got instead of failing with 413.
const scriptWriteQuota = kv.MaxTxnSize / 2

// writeOverhead approximates what one item write adds besides its
// document: keys, system properties, index entries.
const writeOverhead = 512

// Accepting reports whether the script may still write.
func (sc *scriptCollection) Accepting() bool { return sc.written < scriptWriteQuota }

// wrote counts one successful write of n document bytes: the item and
// its change-log record, each holding the document.
func (sc *scriptCollection) wrote(n int) { sc.written += 2*n + writeOverhead }

// newScriptCollection binds the collection to partition comps of c.
func (t *Tx) newScriptCollection(c *container, comps []string) *scriptCollection {
	return &scriptCollection{t: t, c: c, ref: CollectionRef{DB: c.db, Coll: c.id}, pk: partitionKeyFrom(comps)}
}

// partitionKeyFrom renders canonical components as a partition key.
func partitionKeyFrom(comps []string) PartitionKey {
	return PartitionKey("[" + strings.Join(comps, ",") + "]")
}

// SelfLink is the container's _self ("dbs/<rid>/colls/<rid>/").
func (sc *scriptCollection) SelfLink() string { return sc.c.rec.str("_self") }

// AltLink is the container's name-based link ("dbs/<db>/colls/<coll>").
func (sc *scriptCollection) AltLink() string { return "dbs/" + sc.ref.DB + "/colls/" + sc.ref.Coll }

// note keeps the first store failure; operation failures (*Error) are the
// script's to handle.
func (sc *scriptCollection) note(err error) error {
	var e *Error
	if err != nil && !errors.As(err, &e) && sc.storeErr == nil {
		sc.storeErr = err
	}
	return err
}

// item names item id of the partition the script runs in.
func (sc *scriptCollection) item(id string) ItemRef {
	return ItemRef{CollectionRef: sc.ref, PartitionKey: sc.pk, ID: id}
}

func itemOptionsOf(o script.DocOptions) ItemOptions {
	var opts ItemOptions
	if o.IfMatch != "" {
		opts.IfMatch = []string{o.IfMatch}
	}
	return opts
}

func (sc *scriptCollection) CreateDocument(doc []byte, o script.DocOptions) ([]byte, error) {
	it, err := sc.t.CreateItem(sc.ref, sc.pk, doc, itemOptionsOf(o))
	if err != nil {
		return nil, sc.note(err)
	}
	sc.wrote(len(it.Body))
	return it.Body, nil
}

func (sc *scriptCollection) UpsertDocument(doc []byte, o script.DocOptions) ([]byte, error) {
	it, _, err := sc.t.UpsertItem(sc.ref, sc.pk, doc, itemOptionsOf(o))
	if err != nil {
		return nil, sc.note(err)
	}
	sc.wrote(len(it.Body))
	return it.Body, nil
}

func (sc *scriptCollection) ReadDocument(id string, o script.DocOptions) ([]byte, error) {
	it, err := sc.t.ReadItem(sc.item(id), itemOptionsOf(o))
	if err != nil {
		return nil, sc.note(err)
	}
	return it.Body, nil
}

func (sc *scriptCollection) ReplaceDocument(id string, doc []byte, o script.DocOptions) ([]byte, error) {
	it, err := sc.t.ReplaceItem(sc.item(id), doc, itemOptionsOf(o))
	if err != nil {
		return nil, sc.note(err)
	}
	sc.wrote(len(it.Body))
	return it.Body, nil
}

func (sc *scriptCollection) DeleteDocument(id string, o script.DocOptions) error {
	_, err := sc.t.DeleteItem(sc.item(id), itemOptionsOf(o))
	if err == nil {
		sc.wrote(0)
	}
	return sc.note(err)
}

// QueryDocuments runs a query over the bound partition (as of this
// transaction, its own writes included) and returns one page; the
// continuation is the offset of the next result, as the gateway's is.
func (sc *scriptCollection) QueryDocuments(text string, params map[string]any, pageSize int, continuation string) ([][]byte, string, error) {
	q, err := ParseQuery(text)
	if err != nil {
		return nil, "", sc.note(err)
	}
	offset, err := parseQueryContinuation(continuation)
	if err != nil {
		return nil, "", sc.note(err)
	}
	f, err := sc.t.QueryItems(sc.ref, sc.pk, q, params)
	if err != nil {
		return nil, "", sc.note(err)
	}
	if pageSize <= 0 {
		pageSize = defaultPageSize
	}
	offset = min(offset, len(f.Items))
	end := min(offset+pageSize, len(f.Items))
	var next string
	if end < len(f.Items) {
		b, _ := json.Marshal(queryContinuation{Offset: end})
		next = string(b)
	}
	return rawItems(f.Items[offset:end]), next, nil
}

// ReadDocuments reads the bound partition's items a page at a time.
func (sc *scriptCollection) ReadDocuments(pageSize int, continuation string) ([][]byte, string, error) {
	f, err := sc.t.ReadItemFeed(sc.ref, sc.pk, FeedOptions{MaxItemCount: pageSize, Continuation: continuation})
	if err != nil {
		return nil, "", sc.note(err)
	}
	return rawItems(f.Items), f.Continuation, nil
}

func rawItems(items []json.RawMessage) [][]byte {
	out := make([][]byte, len(items))
	for i, it := range items {
		out[i] = it
	}
	return out
}
