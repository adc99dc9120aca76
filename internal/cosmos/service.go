package cosmos

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// Config is what a Service needs.
type Config struct {
	Store kv.Store
	// Keys are the accepted master keys (base64); nil means EmulatorKey.
	Keys []string
	// Now is the clock (tests inject one); nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
}

// Service is the Cosmos DB NoSQL gateway of the single database account
// the server hosts.
type Service struct {
	store kv.Store
	keys  [][]byte
	now   func() time.Time
	log   *slog.Logger
	// lastVersion is the highest commit version this process wrote; it is
	// the LSN of the session tokens, so they only grow.
	lastVersion atomic.Uint64
}

// maxBody bounds a request body: the largest item plus the envelope of a
// batch of them is far below it, and Cosmos DB answers 413 beyond 2 MB.
const maxBody = 2 << 20

// New returns a Service over cfg.Store. It fails on a key that is not
// base64.
func New(cfg Config) (*Service, error) {
	s := &Service{store: cfg.Store, now: cfg.Now, log: cfg.Logger}
	if s.now == nil {
		s.now = time.Now
	}
	if s.log == nil {
		s.log = slog.Default()
	}
	keys := cfg.Keys
	if len(keys) == 0 {
		keys = []string{EmulatorKey}
	}
	for _, k := range keys {
		b, err := base64.StdEncoding.DecodeString(k)
		if err != nil {
			return nil, fmt.Errorf("cosmos master key: %w", err)
		}
		s.keys = append(s.keys, b)
	}
	return s, nil
}

// Handler returns the gateway's HTTP handler wrapped in the shared plumbing
// (request ids, logging, panic recovery).
func (s *Service) Handler() http.Handler {
	return azhttp.Wrap("cosmos", s.log, nil, s.writeError, http.HandlerFunc(s.serve))
}

// request is one parsed call.
type request struct {
	w    http.ResponseWriter
	r    *http.Request
	segs []string // unescaped path segments
}

func (s *Service) serve(w http.ResponseWriter, r *http.Request) {
	q := &request{w: w, r: r}
	var err error
	q.segs, err = splitPath(r.URL.EscapedPath())
	if err == nil {
		err = s.authenticate(r, q.segs)
	}
	if err == nil {
		err = rejectUnsupportedHeaders(r)
	}
	if err == nil {
		err = s.route(q)
	}
	if err != nil {
		s.writeError(w, r, err)
	}
}

// splitPath returns the unescaped segments of a path, ignoring empty ones
// (a trailing slash).
func splitPath(p string) ([]string, error) {
	var segs []string
	for _, s := range strings.Split(p, "/") {
		if s == "" {
			continue
		}
		u, err := url.PathUnescape(s)
		if err != nil {
			return nil, badRequest("The path segment %q is not URL-encoded correctly.", s)
		}
		segs = append(segs, u)
	}
	return segs, nil
}

// route dispatches on the resource path:
//
//	/                                      database account
//	/dbs[/{db}]                            databases
//	/dbs/{db}/colls[/{coll}]               containers
//	/dbs/{db}/colls/{coll}/docs[/{id}]     items, queries, batches
//	/dbs/{db}/colls/{coll}/pkranges        partition key ranges
func (s *Service) route(q *request) error {
	segs, m := q.segs, q.r.Method
	n := len(segs)
	if n == 0 {
		if m != http.MethodGet {
			return methodNotAllowed(m)
		}
		return s.getAccount(q)
	}
	if segs[0] != "dbs" {
		return unsupported(fmt.Sprintf("The resource type %q", segs[0]))
	}
	switch {
	case n == 1:
		switch m {
		case http.MethodGet:
			return s.listDatabases(q)
		case http.MethodPost:
			if isQuery(q.r) {
				return s.queryDatabases(q)
			}
			return s.createDatabase(q)
		}
	case n == 2:
		switch m {
		case http.MethodGet:
			return s.getDatabase(q, segs[1])
		case http.MethodDelete:
			return s.deleteDatabase(q, segs[1])
		}
	case n >= 3 && segs[2] != "colls":
		return unsupported(fmt.Sprintf("The resource type %q", segs[2]))
	case n == 3:
		switch m {
		case http.MethodGet:
			return s.listContainers(q, segs[1])
		case http.MethodPost:
			if isQuery(q.r) {
				return s.queryContainers(q, segs[1])
			}
			return s.createContainer(q, segs[1])
		}
	case n == 4:
		switch m {
		case http.MethodGet:
			return s.getContainer(q, segs[1], segs[3])
		case http.MethodPut:
			return s.replaceContainer(q, segs[1], segs[3])
		case http.MethodDelete:
			return s.deleteContainer(q, segs[1], segs[3])
		}
	case n == 5 && segs[4] == "pkranges":
		if m == http.MethodGet {
			return s.listPartitionKeyRanges(q, segs[1], segs[3])
		}
	case segs[4] != "docs":
		return unsupported(fmt.Sprintf("The resource type %q", segs[4]))
	case n == 5:
		switch m {
		case http.MethodGet:
			return s.readItemFeed(q, segs[1], segs[3])
		case http.MethodPost:
			switch {
			case strings.EqualFold(q.r.Header.Get("x-ms-cosmos-is-batch-request"), "true"):
				return s.batch(q, segs[1], segs[3])
			case isQuery(q.r):
				return s.queryItems(q, segs[1], segs[3])
			}
			return s.createItem(q, segs[1], segs[3])
		}
	case n == 6:
		switch m {
		case http.MethodGet:
			return s.readItem(q, segs[1], segs[3], segs[5])
		case http.MethodPut:
			return s.replaceItem(q, segs[1], segs[3], segs[5])
		case http.MethodDelete:
			return s.deleteItem(q, segs[1], segs[3], segs[5])
		case http.MethodPatch:
			return s.patchItem(q, segs[1], segs[3], segs[5])
		}
	default:
		return notFound("The resource path %q does not exist.", q.r.URL.Path)
	}
	return methodNotAllowed(m)
}

// rejectUnsupportedHeaders refuses requests whose meaning depends on a
// feature cerulean does not serve, rather than silently ignoring it.
func rejectUnsupportedHeaders(r *http.Request) error {
	switch {
	case r.Header.Get("A-IM") != "":
		return unsupported("The change feed (A-IM)")
	case r.Header.Get("x-ms-documentdb-pre-trigger-include") != "" || r.Header.Get("x-ms-documentdb-post-trigger-include") != "":
		return unsupported("Triggers")
	}
	return nil
}

func methodNotAllowed(m string) *Error {
	return newError(http.StatusMethodNotAllowed, "MethodNotAllowed", "The method %s is not allowed on this resource.", m)
}

// isQuery reports whether a POST is a query: SDKs mark it with either
// header, or with the query content type.
func isQuery(r *http.Request) bool {
	for _, h := range []string{"x-ms-documentdb-isquery", "x-ms-documentdb-query", "x-ms-cosmos-is-query-plan-request"} {
		if strings.EqualFold(r.Header.Get(h), "true") {
			return true
		}
	}
	ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	return strings.EqualFold(strings.TrimSpace(ct), "application/query+json")
}

// readBody reads a request body up to maxBody.
func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, badRequest("The request body could not be read: %v", err)
	}
	if len(b) > maxBody {
		return nil, tooLarge("Request size is too large.")
	}
	return b, nil
}

// noteVersion records a committed version for session tokens.
func (s *Service) noteVersion(v uint64) {
	for {
		cur := s.lastVersion.Load()
		if v <= cur || s.lastVersion.CompareAndSwap(cur, v) {
			return
		}
	}
}

// sessionToken is "<partition key range>:<version>#<lsn>", the shape the
// SDKs parse; cerulean is strongly consistent, so it is informational.
func (s *Service) sessionToken() string {
	return "0:-1#" + strconv.FormatUint(max(s.lastVersion.Load(), 1), 10)
}

// commonHeaders sets the headers every Cosmos response carries, unless the
// handler already set them.
func (s *Service) commonHeaders(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	setDefault := func(k, v string) {
		if h.Get(k) == "" {
			h.Set(k, v)
		}
	}
	activity := r.Header.Get("x-ms-activity-id")
	if activity == "" {
		activity = azhttp.RequestID(r.Context())
	}
	setDefault("x-ms-activity-id", activity)
	setDefault("x-ms-request-charge", "1")
	setDefault("x-ms-session-token", s.sessionToken())
	setDefault("etag", etagOf(max(s.lastVersion.Load(), 1)))
	setDefault("x-ms-gatewayversion", "version=2.14.0")
	setDefault("x-ms-serviceversion", "version=2.14.0.0")
	setDefault("x-ms-schemaversion", "1.20")
	h.Del("x-ms-version")
	if v := r.Header.Get("x-ms-version"); v != "" {
		h.Set("x-ms-version", v)
	}
}

// writeJSON answers with a JSON body (nil for none).
func (s *Service) writeJSON(q *request, status int, body []byte) error {
	s.commonHeaders(q.w, q.r)
	h := q.w.Header()
	if body != nil {
		h.Set("Content-Type", "application/json")
		h.Set("Content-Length", strconv.Itoa(len(body)))
	} else {
		h.Set("Content-Length", "0")
	}
	q.w.WriteHeader(status)
	if body != nil && q.r.Method != http.MethodHead {
		_, _ = q.w.Write(body)
	}
	return nil
}

func (s *Service) writeValue(q *request, status int, v any) error {
	b, err := marshal(v)
	if err != nil {
		return err
	}
	return s.writeJSON(q, status, b)
}

// marshal encodes without HTML escaping, as Cosmos DB does.
func marshal(v any) ([]byte, error) {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode json: %w", err)
	}
	return []byte(strings.TrimSuffix(sb.String(), "\n")), nil
}

// etagOf renders a commit version as a Cosmos-shaped ETag: a quoted
// GUID-like string, unique per version.
func etagOf(v uint64) string {
	x := fmt.Sprintf("%016x", v)
	return `"00000000-0000-0000-` + x[:4] + "-" + x[4:] + `"`
}
