package cosmos

import (
	"fmt"
	"net/http"
	"strings"
)

// ---- stored procedures, triggers and user-defined functions ----

func (h *handler) createScript(q *request, db, coll string, kind ScriptKind) error {
	b, err := readBody(q.r)
	if err != nil {
		return err
	}
	sc, err := h.svc.CreateScript(q.r.Context(), CollectionRef{DB: db, Coll: coll}, kind, b)
	if err != nil {
		return err
	}
	return h.writeResource(q, http.StatusCreated, sc.ETag, sc.Body)
}

func (h *handler) getScript(q *request, db, coll string, kind ScriptKind, id string) error {
	sc, err := h.svc.GetScript(q.r.Context(), ScriptRef{CollectionRef: CollectionRef{DB: db, Coll: coll}, Kind: kind, ID: id}, preconditions(q.r))
	if err != nil {
		return err
	}
	return h.writeResource(q, http.StatusOK, sc.ETag, sc.Body)
}

func (h *handler) replaceScript(q *request, db, coll string, kind ScriptKind, id string) error {
	b, err := readBody(q.r)
	if err != nil {
		return err
	}
	sc, err := h.svc.ReplaceScript(q.r.Context(), ScriptRef{CollectionRef: CollectionRef{DB: db, Coll: coll}, Kind: kind, ID: id}, b, preconditions(q.r))
	if err != nil {
		return err
	}
	return h.writeResource(q, http.StatusOK, sc.ETag, sc.Body)
}

func (h *handler) deleteScript(q *request, db, coll string, kind ScriptKind, id string) error {
	if err := h.svc.DeleteScript(q.r.Context(), ScriptRef{CollectionRef: CollectionRef{DB: db, Coll: coll}, Kind: kind, ID: id}, preconditions(q.r)); err != nil {
		return err
	}
	return h.writeJSON(q, http.StatusNoContent, nil)
}

func (h *handler) listScripts(q *request, db, coll string, kind ScriptKind) error {
	f, err := h.svc.ListScripts(q.r.Context(), CollectionRef{DB: db, Coll: coll}, kind)
	if err != nil {
		return err
	}
	return h.writeFeed(q, f.ResourceID, kind.FeedName(), f.Items)
}

func (h *handler) queryScripts(q *request, db, coll string, kind ScriptKind) error {
	return h.runQuery(q, kind.FeedName(), func(query *Query, params map[string]any) (*Feed, error) {
		return h.svc.QueryScripts(q.r.Context(), CollectionRef{DB: db, Coll: coll}, kind, query, params)
	}, nil)
}

// executeStoredProcedure runs a stored procedure: the body is the JSON
// array of its arguments, x-ms-documentdb-partitionkey the partition it
// runs in. With x-ms-documentdb-script-enable-logging its console output
// comes back URL-encoded in x-ms-documentdb-script-log-results.
func (h *handler) executeStoredProcedure(q *request, db, coll, id string) error {
	b, err := readBody(q.r)
	if err != nil {
		return err
	}
	logging := strings.EqualFold(q.r.Header.Get("X-Ms-Documentdb-Script-Enable-Logging"), "true")
	res, err := h.svc.ExecuteStoredProcedure(q.r.Context(), CollectionRef{DB: db, Coll: coll}, partitionKey(q.r), id, ExecuteOptions{Params: b, EnableLogging: logging})
	if err != nil {
		return err
	}
	if logging {
		q.w.Header().Set("X-Ms-Documentdb-Script-Log-Results", encodeURIComponent(res.Log))
	}
	return h.writeJSON(q, http.StatusOK, res.Body)
}

// encodeURIComponent escapes s as JavaScript's function of that name does,
// which is how Cosmos DB encodes script logs and how clients decode them.
func encodeURIComponent(s string) string {
	const unreserved = "-_.!~*'()"
	var sb strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte(unreserved, c) >= 0 {
			sb.WriteByte(c)
			continue
		}
		fmt.Fprintf(&sb, "%%%02X", c)
	}
	return sb.String()
}
