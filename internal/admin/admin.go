package admin

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/cerulean-db/cerulean/internal/faults"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/testclock"
)

// Config is what the operations endpoint serves.
type Config struct {
	// Store is checked by /readyz.
	Store kv.Store
	// Metrics serves /metrics.
	Metrics http.Handler
	// Clock, when set, is the test clock /clock moves.
	Clock *testclock.Clock
	// Faults, when set, is the fault injector /faults configures.
	Faults *faults.Injector
	// CertificatePEM, when set, is the HTTPS services' generated
	// certificate, served at /certificate.pem for clients to trust (an
	// in-memory server has no file of it).
	CertificatePEM []byte
	// Console serves every other path (the web console); nil answers 404.
	Console http.Handler
}

// readyKey is the record /readyz writes to prove the store takes writes.
var readyKey = tuple.New(keyspace.StoreReadinessProbe)

// readyTimeout bounds the /readyz write.
const readyTimeout = 2 * time.Second

// Handler returns the operations endpoint's handler.
func Handler(cfg Config) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = fmt.Fprintln(w, "ok")
	})
	mux.HandleFunc("GET /readyz", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		if err := ready(r.Context(), cfg.Store); err != nil {
			w.WriteHeader(http.StatusServiceUnavailable)
			_, _ = fmt.Fprintf(w, "not ready: %v\n", err)
			return
		}
		_, _ = fmt.Fprintln(w, "ok")
	})
	if cfg.Metrics != nil {
		mux.Handle("GET /metrics", cfg.Metrics)
	}
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	if cfg.Clock != nil {
		h := cfg.Clock.Handler()
		mux.Handle("/clock", h)
		mux.Handle("/clock/", h)
	} else {
		h := turnedOff("the test clock is off: start cerulean with --test-clock (or CERULEAN_TEST_CLOCK=true) to move it")
		mux.Handle("/clock", h)
		mux.Handle("/clock/", h)
	}
	if cfg.Faults != nil {
		mux.Handle("/faults", cfg.Faults.Handler())
	} else {
		mux.Handle("/faults", turnedOff("fault injection is off: start cerulean with --fault-injection "+
			"(or CERULEAN_FAULT_INJECTION=true), or give rules with --faults, e.g. blob=busy@10%"))
	}
	if cfg.CertificatePEM != nil {
		mux.HandleFunc("GET /certificate.pem", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/x-pem-file")
			_, _ = w.Write(cfg.CertificatePEM)
		})
	}
	if cfg.Console != nil {
		mux.Handle("/", cfg.Console)
	}
	return mux
}

// ready writes a record in its own transaction: the store is open, and
// takes (and syncs) a write.
func ready(ctx context.Context, store kv.Store) error {
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	return store.Update(ctx, func(tx kv.Txn) error {
		return tx.Set(readyKey, []byte(time.Now().UTC().Format(time.RFC3339Nano)))
	})
}

// turnedOff answers every request for a tool the server was started
// without, saying how to turn it on, rather than leaving the path to the
// console's 404 page.
func turnedOff(how string) http.Handler {
	body, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{how})
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write(append(body, '\n'))
	})
}
