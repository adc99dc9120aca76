package linearizability_test

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/cerulean-db/cerulean/internal/servertest"
)

var (
	clients = flag.Int("lin.clients", 6, "concurrent clients per history")
	opsEach = flag.Int("lin.ops", 40, "operations per client")
	seed    = flag.Uint64("lin.seed", 0, "seed for the clients' choices (0: random)")
	rounds  = flag.Int("lin.rounds", 1, "independent histories per test (a long run checks many, since one very long history can outgrow the checker)")
)

// deployment starts the servers one history runs against: a single
// server, or several front ends of one store. Client c of the history
// talks to front end c mod len.
type deployment func(t *testing.T) []*servertest.Env

// oneServer is one fresh in-memory server.
func oneServer(t *testing.T) []*servertest.Env { return []*servertest.Env{servertest.Start(t)} }

// inRounds runs a history test -lin.rounds times, each on a fresh
// deployment.
func inRounds(t *testing.T, start deployment, fn func(t *testing.T, fes []*servertest.Env)) {
	run := func(t *testing.T) { fn(t, start(t)) }
	if *rounds == 1 {
		run(t)
		return
	}
	for r := range *rounds {
		t.Run(fmt.Sprintf("round%d", r), run)
	}
}

// perFrontEnd builds one client per front end with open; client c of a
// history then uses at(c).
type perFrontEnd[C any] []C

func clientsFor[C any](fes []*servertest.Env, open func(*servertest.Env) C) perFrontEnd[C] {
	cs := make(perFrontEnd[C], len(fes))
	for i, env := range fes {
		cs[i] = open(env)
	}
	return cs
}

func (cs perFrontEnd[C]) at(c int) C { return cs[c%len(cs)] }

// history collects operations from concurrent clients.
type history struct {
	mu  sync.Mutex
	ops []porcupine.Operation
}

// record runs fn as client c and appends the operation with its
// invocation and response times.
func (h *history) record(c int, input any, fn func() any) {
	call := time.Now().UnixNano()
	out := fn()
	ret := time.Now().UnixNano()
	h.mu.Lock()
	h.ops = append(h.ops, porcupine.Operation{ClientId: c, Input: input, Call: call, Output: out, Return: ret})
	h.mu.Unlock()
}

// add appends an operation whose output is known only after the call
// (its input is built from the response, as for a queue Get).
func (h *history) add(c int, input, output any, call, ret int64) {
	h.mu.Lock()
	h.ops = append(h.ops, porcupine.Operation{ClientId: c, Input: input, Call: call, Output: output, Return: ret})
	h.mu.Unlock()
}

// runClients runs each client's loop with its own random source derived
// from the test seed.
func runClients(t *testing.T, fn func(c int, rng *rand.Rand)) { runClientsN(t, *clients, fn) }

// runClientsN is runClients with n clients.
func runClientsN(t *testing.T, n int, fn func(c int, rng *rand.Rand)) {
	s := *seed
	if s == 0 {
		s = rand.Uint64()
	}
	t.Logf("seed %d (replay the clients' choices with -lin.seed %d)", s, s)
	var wg sync.WaitGroup
	for c := range n {
		wg.Go(func() { fn(c, rand.New(rand.NewPCG(s, uint64(c)))) })
	}
	wg.Wait()
}

// check verifies the history against the model; on failure it writes the
// visualization where CERULEAN_ARTIFACTS points (else a temp dir).
func check(t *testing.T, model porcupine.Model, h *history) {
	t.Helper()
	res, info := porcupine.CheckOperationsVerbose(model, h.ops, time.Minute)
	switch res {
	case porcupine.Ok:
		t.Logf("%d operations: linearizable", len(h.ops))
		return
	case porcupine.Unknown:
		t.Fatalf("linearizability check of %d operations timed out", len(h.ops))
	}
	dir := os.Getenv("CERULEAN_ARTIFACTS")
	if dir == "" {
		dir = t.TempDir()
	}
	path := filepath.Join(dir, t.Name()+".html")
	_ = os.MkdirAll(filepath.Dir(path), 0o755)
	if err := porcupine.VisualizePath(model, info, path); err != nil {
		t.Logf("visualization: %v", err)
	}
	t.Fatalf("history of %d operations is NOT linearizable; visualization: %s", len(h.ops), path)
}
