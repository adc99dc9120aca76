package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/signal"
	"runtime/pprof"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/cerulean-db/cerulean/internal/bench"
)

func main() {
	if err := run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "cerulean-bench:", err)
		os.Exit(1)
	}
}

// run measures the named workloads unless args start with another
// subcommand; "run" names the default one explicitly.
func run(args []string, getenv func(string) string, stdout, stderr io.Writer) (err error) {
	if len(args) > 0 {
		switch args[0] {
		case "run":
			args = args[1:]
		case "null-server":
			return nullServer(args[1:], stderr)
		case "compare":
			return compare(args[1:], stdout, stderr)
		case "fsync":
			return fsyncLatency(args[1:], stdout, stderr)
		case "idle-conns":
			return idleConns(args[1:], stdout, stderr)
		}
	}
	fs := flag.NewFlagSet("cerulean-bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	conn := fs.String("conn", envOr(getenv, "CERULEAN_BENCH_CONN", bench.DevConnectionString), "connection string of the endpoint to measure (env CERULEAN_BENCH_CONN)")
	cosmosConn := fs.String("cosmos-conn", envOr(getenv, "CERULEAN_BENCH_COSMOS_CONN", bench.DevCosmosConnectionString), "Cosmos DB connection string for the cosmos-* workloads (env CERULEAN_BENCH_COSMOS_CONN)")
	searchConn := fs.String("search-conn", envOr(getenv, "CERULEAN_BENCH_SEARCH_CONN", bench.DevSearchConnection), "Search endpoint and admin key, Endpoint=URL;Key=KEY, for the search-* workloads (env CERULEAN_BENCH_SEARCH_CONN)")
	clients := fs.Int("c", 8, "concurrent clients (blob-cond-update always uses 32)")
	duration := fs.Duration("d", 10*time.Second, "measured duration per workload")
	ops := fs.Int("n", 0, "measured operations per workload (overrides -d)")
	warmup := fs.Duration("warmup", 2*time.Second, "warm-up per workload, not measured")
	listBlobs := fs.Int("list-blobs", 10_000, "blobs in blob-list's container")
	searchDocs := fs.Int("search-docs", 10_000, "documents in search-query's index")
	asJSON := fs.Bool("json", false, "print results as JSON")
	quiet := fs.Bool("q", false, "no progress lines")
	cpuProfile := fs.String("cpuprofile", "", "write this load generator's CPU profile over all workloads to `file`")
	serverPID := fs.Int("server-pid", 0, "the server's process id on this machine: report its user+sys CPU time per operation and its RSS (Linux /proc)")
	fs.Usage = func() {
		// Usage goes to stderr on the way to an error or -h; there is
		// nowhere left to report a failed write.
		_, _ = fmt.Fprintf(stderr, "usage: cerulean-bench [run] [flags] workload... (or all, or storage: every workload but cosmos-* and search-*)\n"+
			"       cerulean-bench null-server ADDR...      serve the no-work ceiling on each address\n"+
			"       cerulean-bench compare [-null NAME] [-fsync FILE] NAME=FILE...\n"+
			"                                               ratio table of --json results, first against the others;\n"+
			"                                               with -null, each as a fraction of its ceiling\n"+
			"       cerulean-bench fsync [-dir DIR] [-n N] [-c CLIENTS] [-json]\n"+
			"                                               the disk's 4 KiB write+fdatasync latency and durable-write ceiling\n"+
			"       cerulean-bench idle-conns [-addr HOST:PORT] [-n N] [-hold D] -server-pid PID [-json]\n"+
			"                                               the server's RSS while it holds N idle connections\n"+
			"workloads: %s\n", strings.Join(bench.Names(), ", "))
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	names := fs.Args()
	if len(names) == 0 {
		fs.Usage()
		return fmt.Errorf("name at least one workload")
	}
	if len(names) == 1 {
		switch names[0] {
		case "all":
			names = bench.Names()
		case "storage":
			names = nil
			for _, n := range bench.Names() {
				if !strings.HasPrefix(n, "cosmos-") && !strings.HasPrefix(n, "search-") {
					names = append(names, n)
				}
			}
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	if *serverPID > 0 {
		// A wrong pid must fail now, not once per workload.
		if _, err := bench.ProcessCPU(*serverPID); err != nil {
			return fmt.Errorf("-server-pid: %w", err)
		}
	}
	cfg := bench.Config{ConnectionString: *conn, CosmosConnectionString: *cosmosConn, SearchConnection: *searchConn, Concurrency: *clients, Duration: *duration, Ops: *ops, Warmup: *warmup, ServerPID: *serverPID}
	if !*quiet {
		cfg.Progress = stderr
	}
	if *cpuProfile != "" {
		stop, err := profileCPU(*cpuProfile)
		if err != nil {
			return err
		}
		defer func() { err = errors.Join(err, stop()) }()
	}
	var results []*bench.Result
	for _, name := range names {
		w, err := bench.New(name)
		if err != nil {
			return err
		}
		switch name {
		case "blob-list":
			w = bench.NewBlobList(*listBlobs)
		case "search-query":
			w = bench.NewSearchQuery(*searchDocs)
		}
		res, err := bench.Run(ctx, cfg, w)
		if err != nil {
			// One workload the endpoint cannot set up (a null server, a
			// missing service) must not hide the others' results.
			if _, err := fmt.Fprintf(stderr, "%s: %v\n", name, err); err != nil {
				return err
			}
			res = &bench.Result{Workload: name, Errors: map[string]int{"setup": 1}, VerifyError: "setup failed"}
		}
		results = append(results, res)
	}
	if *asJSON {
		return bench.WriteJSON(stdout, results)
	}
	return bench.WriteTable(stdout, results)
}

// profileCPU starts writing this process's CPU profile to path; stop
// ends it and closes the file.
func profileCPU(path string) (stop func() error, err error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		return nil, errors.Join(err, f.Close())
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// nullServer serves bench.NullHandler on each address until interrupted.
func nullServer(addrs []string, stderr io.Writer) error {
	if len(addrs) == 0 {
		return fmt.Errorf("null-server needs at least one address")
	}
	errs := make(chan error, len(addrs))
	for _, a := range addrs {
		srv := &http.Server{Addr: a, Handler: bench.NullHandler(), ReadHeaderTimeout: 10 * time.Second}
		go func() { errs <- srv.ListenAndServe() }()
		if _, err := fmt.Fprintln(stderr, "null server on", a); err != nil {
			return err
		}
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	select {
	case <-ctx.Done():
		return nil
	case err := <-errs:
		return err
	}
}

// compare prints the ratio table of NAME=FILE result sets and, given the
// null server's name, the table of fractions of each workload's ceiling.
func compare(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cerulean-bench compare", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nullName := fs.String("null", "", "NAME of the null server's results: also print each workload as a fraction of its ceiling")
	fsyncFile := fs.String("fsync", "", "-json output of cerulean-bench fsync: durable small writes are also held to clients ÷ mean fdatasync latency")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	args = fs.Args()
	if len(args) < 2 {
		return fmt.Errorf("compare needs at least two NAME=FILE arguments")
	}
	var names []string
	var runs [][]*bench.Result
	for _, a := range args {
		name, file, ok := strings.Cut(a, "=")
		if !ok {
			return fmt.Errorf("argument %q is not NAME=FILE", a)
		}
		res, err := bench.ReadResults(file)
		if err != nil {
			return err
		}
		names, runs = append(names, name), append(runs, res)
	}
	if err := bench.WriteComparison(stdout, names, runs); err != nil {
		return err
	}
	if *nullName == "" {
		return nil
	}
	null := slices.Index(names, *nullName)
	if null < 0 {
		return fmt.Errorf("-null %q names none of the results", *nullName)
	}
	var fsync time.Duration
	if *fsyncFile != "" {
		r, err := bench.ReadFsync(*fsyncFile)
		if err != nil {
			return err
		}
		fsync = r.Mean
		if _, err := fmt.Fprintf(stdout, "\nceilings: reads and other workloads, the null server; durable small writes, min(null, clients ÷ %.3f ms mean fdatasync)\n", r.MeanMs); err != nil {
			return err
		}
	} else if _, err := fmt.Fprintln(stdout, "\nceilings: the null server (no fsync measurement given)"); err != nil {
		return err
	}
	return bench.WriteCeilings(stdout, names, runs, null, fsync)
}

// fsyncLatency measures the disk's small durable write latency in dir and
// prints it with the durable-write ceiling it implies for clients.
func fsyncLatency(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cerulean-bench fsync", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dir := fs.String("dir", ".", "a directory on the filesystem to measure (the server's data directory)")
	n := fs.Int("n", 500, "write+fdatasync rounds")
	clients := fs.Int("c", 8, "concurrent clients the ceiling is computed for")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	r, err := bench.MeasureFsync(*dir, *n)
	if err != nil {
		return err
	}
	if *asJSON {
		return bench.WriteJSON(stdout, r)
	}
	_, err = fmt.Fprintf(stdout, "4 KiB write+fdatasync in %s, %d rounds: p50 %.3f ms, mean %.3f ms; ceiling for durable small writes at %d clients: %.0f ops/s\n",
		r.Dir, r.N, r.P50Ms, r.MeanMs, *clients, bench.FsyncCeiling(*clients, r.Mean))
	return err
}

// idleConns holds idle connections open against a server and prints its
// RSS before and while holding them.
func idleConns(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("cerulean-bench idle-conns", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:10000", "the server's HOST:PORT")
	n := fs.Int("n", 1000, "idle connections; every other one sends a partial request line")
	hold := fs.Duration("hold", 5*time.Second, "how long the connections are held before RSS is read")
	pid := fs.Int("server-pid", 0, "the server's process id on this machine (required, Linux /proc)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return err
	}
	if *pid <= 0 {
		return fmt.Errorf("idle-conns needs -server-pid")
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	r, err := bench.IdleConns(ctx, *addr, *n, *hold, *pid)
	if err != nil {
		return err
	}
	if *asJSON {
		return bench.WriteJSON(stdout, r)
	}
	_, err = fmt.Fprintf(stdout, "%d idle connections to %s (%d with a partial request line) held %s: server RSS %.1f MiB before, %.1f MiB held (%.1f KiB per connection), peak %.1f MiB; %d closed by the server\n",
		r.Conns, r.Addr, r.Partial, *hold, r.RSSBeforeMiB, r.RSSHeldMiB, r.PerConnKiB, r.PeakRSSMiB, r.ClosedByPeer)
	return err
}

// envOr is the environment variable name's value, or def when it is unset
// or empty.
func envOr(getenv func(string) string, name, def string) string {
	if v := getenv(name); v != "" {
		return v
	}
	return def
}
