package cosmos

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cerulean-db/cerulean/internal/cosmos/script"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// Config is what a Service needs.
type Config struct {
	Store kv.Store
	// Keys are the accepted master keys (base64); nil means EmulatorKey.
	Keys []string
	// Now is the clock (tests inject one); nil means time.Now.
	Now func() time.Time
	// ClientNow is the clock a request's x-ms-date is checked against:
	// the clients' own, which a test clock moving Now ahead does not
	// move. Nil means Now.
	ClientNow func() time.Time
	Logger    *slog.Logger
	// ScriptBudget bounds the run of one stored procedure, trigger or
	// user-defined function (a query's UDF calls share one); past it the
	// request fails with 408 RequestTimeout and nothing it wrote is kept.
	// Zero means DefaultScriptBudget.
	ScriptBudget time.Duration
}

// DefaultScriptBudget is the time a server-side script may run, as Cosmos
// DB allows a stored procedure about five seconds.
const DefaultScriptBudget = 5 * time.Second

// Service is the Cosmos DB NoSQL API of the single database account the
// server hosts: databases, containers and items over the kv store. Its
// methods take and return domain values; NewHandler serves it over HTTP.
// A Service is safe for concurrent use.
type Service struct {
	store     kv.Store
	now       func() time.Time
	clientNow func() time.Time
	log       *slog.Logger
	// keys are the decoded master keys of Config, carried for NewHandler:
	// only the gateway authenticates, the domain trusts its callers.
	keys [][]byte
	// lastVersion is the highest commit version this process wrote; it is
	// the LSN of the session tokens, so they only grow.
	lastVersion atomic.Uint64
	// scripts runs server-side JavaScript; it caches compiled scripts by
	// (id, _etag).
	scripts      *script.Engine
	scriptBudget time.Duration
	// compactions paces the compaction of containers' change logs.
	compactions compactions
	// parsed caches containers' parsed definitions (containercache.go).
	parsed sync.Map
}

// ObserveScripts has fn told of every server-side script run: its kind
// ("sproc", "pretrigger", "posttrigger", "udf") and how it ended (nil, an
// error matching script.ErrTimeout past its budget, or its failure).
func (s *Service) ObserveScripts(fn func(kind string, err error)) { s.scripts.Observe(fn) }

// New returns a Service over cfg.Store. It fails on a key that is not
// base64.
func New(cfg Config) (*Service, error) {
	s := &Service{store: cfg.Store, now: cfg.Now, log: cfg.Logger, scripts: script.NewEngine(), scriptBudget: cfg.ScriptBudget}
	if s.scriptBudget <= 0 {
		s.scriptBudget = DefaultScriptBudget
	}
	if s.now == nil {
		s.now = time.Now
	}
	s.clientNow = cfg.ClientNow
	if s.clientNow == nil {
		s.clientNow = s.now
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

func (s *Service) unixNow() int64 { return s.now().Unix() }

// noteCommit records tx's version for session tokens once tx has
// committed: an attempt that is rolled back or retried wrote nothing.
func (s *Service) noteCommit(tx kv.Txn) {
	v := tx.Version()
	tx.OnCommit(func() { s.noteVersion(v) })
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
	// "00000000-0000-0000-" + the version as 16 hex digits, split 4-12;
	// built by hand, as every write and answer renders one.
	const hexDigits = "0123456789abcdef"
	b := []byte(`"00000000-0000-0000-0000-000000000000"`)
	for i := len(b) - 2; v != 0; i-- {
		if b[i] == '-' {
			continue
		}
		b[i] = hexDigits[v&0xf]
		v >>= 4
	}
	return string(b)
}
