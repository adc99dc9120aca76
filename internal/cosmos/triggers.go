package cosmos

import (
	"net/http"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/cosmos/script"
)

// TriggerNames name the triggers an item operation runs, as the
// x-ms-documentdb-pre-trigger-include and -post-trigger-include headers
// do: Cosmos DB runs a trigger only when the request names it.
type TriggerNames struct {
	Pre, Post []string
	// Headers are the request's headers, which a trigger reads with
	// getRequest().getValue(name).
	Headers map[string]string
}

func (n TriggerNames) any() bool { return len(n.Pre) > 0 || len(n.Post) > 0 }

// ParseTriggerNames splits a trigger-include header value (comma-separated
// ids; blanks ignored).
func ParseTriggerNames(header string) []string {
	var out []string
	for _, id := range strings.Split(header, ",") {
		if id = strings.TrimSpace(id); id != "" {
			out = append(out, id)
		}
	}
	return out
}

// triggerOperationMatches reports whether a trigger defined for operation
// runs for a request of operation op. A replace also runs the triggers
// defined for "Update", the older name of the same operation.
func triggerOperationMatches(defined, op string) bool {
	return defined == "All" || defined == op || (op == "Replace" && defined == "Update")
}

// loadTriggers reads the named triggers of a container and checks that
// each is of type kind ("Pre" or "Post") and defined for op.
func (t *Tx) loadTriggers(db, coll string, ids []string, kind, op string) ([]*Script, error) {
	out := make([]*Script, 0, len(ids))
	for _, id := range ids {
		sc, err := t.script(db, coll, Triggers, id)
		if err != nil {
			return nil, err
		}
		if sc.TriggerType != kind {
			return nil, badRequest("Trigger '%s' was defined with type '%s', and therefore is invalid as a %s-trigger.", id, sc.TriggerType, strings.ToLower(kind))
		}
		if !triggerOperationMatches(sc.TriggerOperation, op) {
			return nil, badRequest("Trigger '%s' was defined with operation type '%s', and therefore is invalid for '%s'.", id, sc.TriggerOperation, op)
		}
		out = append(out, sc)
	}
	return out, nil
}

// triggered runs an item operation (op: Create, Replace, Upsert or Delete)
// between the triggers names lists, all in the transaction of t: the
// pre-triggers see (and may replace) the request body doc before write
// runs with it, the post-triggers see the written item as the response
// body (and may replace that) after. A trigger that throws fails the
// operation, and the caller's transaction discards everything it and the
// triggers wrote. pk must name the partition the operation writes.
func (t *Tx) triggered(db, coll string, pk PartitionKey, op string, doc []byte, names TriggerNames, write func(doc []byte) (*Item, error)) (*Item, error) {
	pre, err := t.loadTriggers(db, coll, names.Pre, "Pre", op)
	if err != nil {
		return nil, err
	}
	post, err := t.loadTriggers(db, coll, names.Post, "Post", op)
	if err != nil {
		return nil, err
	}
	p, err := t.partition(db, coll, pk, nil)
	if err != nil {
		return nil, err
	}
	col := t.newScriptCollection(p.c, p.pk)
	req := &script.Request{Body: doc, OperationType: op, Headers: names.Headers}
	for _, sc := range pre {
		err := t.s.scripts.RunPreTrigger(t.ctx, engineScript(sc), req, col, t.s.scriptOptions(false, time.Time{}))
		if col.storeErr != nil {
			return nil, col.storeErr
		}
		if err != nil {
			return nil, scriptFailure(err, t.s.scriptBudget)
		}
	}
	it, err := write(req.Body)
	if err != nil || len(post) == 0 {
		return it, err
	}
	resp := &script.Response{Body: it.Body}
	for _, sc := range post {
		err := t.s.scripts.RunPostTrigger(t.ctx, engineScript(sc), req, resp, col, t.s.scriptOptions(false, time.Time{}))
		if col.storeErr != nil {
			return nil, col.storeErr
		}
		if err != nil {
			return nil, scriptFailure(err, t.s.scriptBudget)
		}
	}
	out := *it
	out.Body = resp.Body
	return &out, nil
}

// triggerPartition is the partition key of a triggered write: the one the
// request names or, when it names none, the document's own, so that the
// triggers and the write agree on it whatever a pre-trigger changes.
func (t *Tx) triggerPartition(db, coll string, pk PartitionKey, doc []byte) (PartitionKey, error) {
	if _, ok, err := pk.components(); err != nil || ok {
		return pk, err
	}
	m, err := decodeObject(doc)
	if err != nil {
		return "", err
	}
	p, err := t.partition(db, coll, "", m)
	if err != nil {
		return "", err
	}
	return partitionKeyFrom(p.pk), nil
}

func noTriggersForPatch() *Error {
	return newError(http.StatusBadRequest, "BadRequest", "Triggers are not supported on a patch operation by cerulean.")
}
