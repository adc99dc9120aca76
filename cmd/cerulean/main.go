package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/url"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/cosmos"
	"github.com/cerulean-db/cerulean/internal/faults"
	"github.com/cerulean-db/cerulean/internal/search"
	"github.com/cerulean-db/cerulean/internal/server"
	"github.com/cerulean-db/cerulean/internal/svcprops"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	if err := run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "cerulean:", err)
		os.Exit(1)
	}
}

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	} else if len(args) > 0 {
		switch strings.TrimLeft(args[0], "-") {
		case "version":
			cmd = "version"
		case "help", "h":
			cmd = "help"
		}
	}
	switch cmd {
	case "serve":
		return serve(args, getenv, stderr)
	case "version":
		_, err := fmt.Fprintln(stdout, versionLine())
		return err
	case "bench":
		return errBenchMoved
	case "connection-strings":
		return connectionStrings(args, getenv, stdout, stderr)
	case "help":
		_, err := io.WriteString(stdout, usageText)
		return err
	}
	return fmt.Errorf("unknown command %q (want serve, version or connection-strings; cerulean --help lists them)", cmd)
}

// usageText is what cerulean --help prints: the subcommands.
const usageText = `usage: cerulean [command] [flags]

commands:
  serve                serve every service (the default when no command is given);
                       cerulean serve --help lists its flags and their environment variables
  connection-strings   print, as shell export lines, the connection strings, endpoints, keys
                       and certificate a server started with the same flags answers on
  version              print the version and the commit it was built from
  help                 print this text

The load generator is its own binary: cerulean-bench.
`

// commit is the commit built, set with -ldflags "-X main.commit=..."; when
// empty, the one the Go toolchain recorded (go build in a checkout).
var commit = ""

// versionLine is "cerulean VERSION (commit REVISION)".
func versionLine() string {
	v, c, modified := version, commit, false
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			v = bi.Main.Version // go install ...@vX.Y.Z
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && c == "":
				c = s.Value
			case s.Key == "vcs.modified" && s.Value == "true":
				modified = true
			}
		}
	}
	if c == "" {
		c = "unknown"
	} else if modified && commit == "" {
		c += ", with uncommitted changes"
	}
	return "cerulean " + v + " (commit " + c + ")"
}

// errBenchMoved answers "cerulean bench": the load generator is its own
// binary, so that the server does not link the Azure SDKs it drives.
var errBenchMoved = errors.New("bench is its own binary now, with the same subcommands and flags: cerulean-bench " +
	"(go install github.com/cerulean-db/cerulean/cmd/cerulean-bench@latest, or go run ./cmd/cerulean-bench in a checkout)")

// serveFlags are serve's settings.
type serveFlags struct {
	host                                                          string
	blobPort, queuePort, tablePort, filePort, smbPort, cosmosPort port
	searchPort                                                    port
	searchHTTPS                                                   boolean
	searchAdminKeys, searchQueryKeys                              apiKeys
	dataDir                                                       string
	inMemory                                                      boolean
	cosmosHTTP                                                    boolean
	logLevel                                                      logLevel
	logFormat                                                     logFormat
	scriptBudget                                                  budget
	store                                                         storeURL
	// adminHost and adminPort are the operations endpoint's address;
	// testClock and faults turn on the tools for testing concurrency.
	adminHost      string
	adminPort      adminPort
	adminAllowed   hostList
	testClock      boolean
	faultInjection boolean
	faults         faultRules
	// minFreeSpace is the free space kept in reserve on the data volume.
	minFreeSpace reserveSize
	// storageHTTPS, certFile and keyFile serve the Storage services over
	// HTTPS (see server.Config).
	storageHTTPS       boolean
	certFile, keyFile  string
	blobVersioning     boolean
	blobLastAccess     boolean
	containerRetention retentionDays
	shareRetention     retentionDays
	largeShares        boolean
	// maxConns bounds each HTTP listener's open connections.
	maxConns maxConnections
	// notes are what Azurite flags that change nothing here said, for
	// the log.
	notes []string
}

// parseServeFlags reads serve's settings from the environment, then from
// args, which win. Every value goes through its flag's own parser, so a
// value that is not understood stops the start instead of leaving the
// default in place; a bad environment value is refused even when a flag
// overrides it.
func parseServeFlags(args []string, getenv func(string) string, stderr io.Writer) (*serveFlags, error) {
	return parseFlagsOf("serve", args, getenv, stderr)
}

// commandIntro is the first lines of each command's help, after its usage line.
var commandIntro = map[string]string{
	"serve":              "Serves Blob, Queue, Table, Files (REST and SMB), Cosmos DB and Azure AI Search until Ctrl-C.",
	"connection-strings": "Prints, as shell export lines, what a server started with the same flags and environment answers on.",
}

// parseFlagsOf reads the settings of command (serve, or a command that
// takes serve's flags to say what that server would answer on).
func parseFlagsOf(command string, args []string, getenv func(string) string, stderr io.Writer) (*serveFlags, error) {
	fs := flag.NewFlagSet("cerulean "+command, flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &serveFlags{adminPort: defaultAdminPort, minFreeSpace: reserveSize{auto: true}, blobPort: 10000, queuePort: 10001, tablePort: 10002, filePort: 10003, smbPort: 10445, cosmosPort: 8081, searchPort: 8082,
		searchAdminKeys: apiKeys{search.DefaultAdminKey}, searchQueryKeys: apiKeys{search.DefaultQueryKey}, logLevel: logLevel(slog.LevelInfo), scriptBudget: budget(cosmos.DefaultScriptBudget)}
	fs.StringVar(&f.host, "host", "127.0.0.1", "address to listen on")
	fs.Var(&f.blobPort, "blob-port", "Blob service port, 0 for a free one")
	fs.Var(&f.queuePort, "queue-port", "Queue service port, 0 for a free one")
	fs.Var(&f.tablePort, "table-port", "Table service port, 0 for a free one")
	fs.Var(&f.filePort, "file-port", "File service (Azure Files REST) port, 0 for a free one")
	fs.Var(&f.smbPort, "smb-port", "SMB 2.1/3.x server port (Azure Files over SMB; 445 needs privileges), 0 for a free one")
	fs.Var(&f.cosmosPort, "cosmos-port", "Cosmos DB (NoSQL) gateway port, 0 for a free one")
	fs.Var(&f.cosmosHTTP, "cosmos-http", "serve the Cosmos DB gateway over plain HTTP instead of HTTPS")
	fs.Var(&f.searchPort, "search-port", "Azure AI Search service port (plain HTTP unless --search-https), 0 for a free one")
	fs.Var(&f.searchHTTPS, "search-https", "serve Azure AI Search over HTTPS with the certificate the Cosmos gateway uses")
	fs.Var(&f.searchAdminKeys, "search-admin-key", "Azure AI Search admin api-key(s), comma-separated")
	fs.Var(&f.searchQueryKeys, "search-query-key", "Azure AI Search query (read-only) api-key(s), comma-separated")
	fs.Var(&f.scriptBudget, "cosmos-script-budget", "time one Cosmos stored procedure, trigger or UDF run may take, e.g. 5s or 500ms (at most 10m)")
	fs.Var(&f.storageHTTPS, "storage-https", "serve Blob, Queue, Table and File over HTTPS with the certificate the Cosmos gateway uses")
	fs.StringVar(&f.certFile, "cert", "", "PEM certificate file: serve Blob, Queue, Table and File over HTTPS with it (needs --key)")
	fs.StringVar(&f.keyFile, "key", "", "PEM private key file of --cert")
	fs.StringVar(&f.dataDir, "data", "./cerulean-data", "directory of the durable store")
	fs.Var(&f.inMemory, "in-memory", "keep everything in memory; nothing survives exit")
	fs.Var(&f.store, "store", "a shared PostgreSQL database (postgres://user@host:port/db) instead of the embedded store in --data; empty for the embedded one")
	// info is logLevel's zero value, which the usage text never shows as a
	// default, so the text names it.
	fs.Var(&f.logLevel, "log-level", "debug, info, warn or error (default info)")
	fs.Var(&f.logFormat, "log-format", "text (key=value lines) or json (one JSON object a line) (default text)")
	fs.Var(&f.blobVersioning, "blob-versioning", "keep previous versions of blobs (Azure's blob versioning)")
	fs.Var(&f.blobLastAccess, "blob-last-access-tracking", "report when each blob was last read or written (Azure's last access time tracking)")
	fs.Var(&f.containerRetention, "container-delete-retention-days", "keep deleted containers restorable this many days (1 to 365), 0 not at all")
	fs.Var(&f.shareRetention, "share-delete-retention-days", "keep deleted file shares restorable this many days (1 to 365), 0 not at all")
	fs.Var(&f.largeShares, "file-large-shares", "give a file share created without a quota 100 TiB, as an account with large file shares does (5 TiB otherwise)")
	fs.StringVar(&f.adminHost, "admin-host", "127.0.0.1", "address of the admin endpoint (health, readiness, metrics, pprof, web console); it asks for no credential, so keep it on loopback unless a proxy of yours authenticates")
	fs.Var(&f.adminPort, "admin-port", "admin endpoint port, 0 for a free one, off for none")
	fs.Var(&f.adminAllowed, "admin-allowed-hosts", "comma-separated Host names the web console also answers (a reverse proxy's, a container's published name), each host or host:port; "+
		"its own address and localhost on any port from a loopback peer (SSH -L, VS Code, kubectl port-forward) need no entry")
	fs.Var(&f.maxConns, "max-connections", "connections each HTTP service holds open at once; past it new ones are closed at once (clients retry) (default "+strconv.Itoa(server.DefaultMaxConnections)+")")
	fs.Var(&f.minFreeSpace, "min-free-space", "free space kept in reserve on the data volume, e.g. 256MiB or 1GiB, or auto: 5% of the volume, at most 256MiB (default auto); below it writes are refused (503) until space is freed; 0 turns the check off")
	fs.Var(&f.testClock, "test-clock", "let tests move the services' clock forward (POST /clock/advance?by=16s on the admin port); never in production")
	fs.Var(&f.faultInjection, "fault-injection", "turn fault injection on (rules set through PUT /faults on the admin port)")
	fs.Var(&f.faults, "faults", "fault injection rules, e.g. blob/PutBlob=busy@50%,cosmos=throttle@10% (implies --fault-injection)")

	// The environment is applied first so that the command line wins; an
	// empty variable counts as unset.
	var envErrs []error
	fs.VisitAll(func(fl *flag.Flag) {
		name := envName(fl.Name)
		fl.Usage += " (env " + name + ")"
		if v := getenv(name); v != "" {
			if err := fl.Value.Set(v); err != nil {
				envErrs = append(envErrs, fmt.Errorf("environment variable %s=%q: %w", name, v, err))
			}
		}
	})
	// Azurite's spellings, added after the environment is read: they
	// have no variables of their own.
	notes := addAzuriteFlags(fs, f)
	fs.Usage = func() {
		// Usage text goes to the flag set's output; a failed write there
		// has nowhere better to be reported.
		_, _ = fmt.Fprintf(fs.Output(), "usage: cerulean %s [flags]\n\n%s\n\nflags:\n", command, commandIntro[command])
		printFlags(fs)
		_, _ = fmt.Fprintf(fs.Output(), "\nAzurite's spellings are accepted where cerulean has the same setting: %s.\n", azuriteAliasList())
	}
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	f.notes = *notes
	if err := errors.Join(envErrs...); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if f.store != "" && f.inMemory {
		return nil, errors.New("--store and --in-memory exclude each other: a PostgreSQL store is durable")
	}
	if (f.certFile == "") != (f.keyFile == "") {
		return nil, errors.New("--cert and --key go together: give both PEM files, or neither")
	}
	if f.dataDir == "" && !f.inMemory {
		return nil, errors.New("the data directory is empty: give --data a directory, or use --in-memory")
	}
	return f, nil
}

// certDir is where the generated HTTPS certificate is kept: the data
// directory, or with --in-memory the user's cache directory (cerulean
// there), so that an in-memory server still presents a certificate a
// client trusted once; "" (memory only) when there is no cache directory.
func (f *serveFlags) certDir() string {
	if !f.inMemory {
		return "" // the data directory
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(cache, "cerulean")
}

// serverConfig is the part of server.Config connection-strings needs to
// find the certificate.
func (f *serveFlags) certConfig() server.Config {
	return server.Config{DataDir: f.dataDir, InMemory: bool(f.inMemory), CertDir: f.certDir()}
}

// boolean is a switch: a bare --flag means true, and a value is exactly
// what strconv.ParseBool accepts (1, t, T, true, TRUE, True and the
// matching false spellings).
type boolean bool

func (b *boolean) String() string { return strconv.FormatBool(bool(*b)) }

func (b *boolean) IsBoolFlag() bool { return true }

func (b *boolean) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return errors.New("not a boolean (1, t, true, 0, f or false)")
	}
	*b = boolean(v)
	return nil
}

// budget is a positive Go duration (5s, 500ms) of at most ten minutes.
type budget time.Duration

func (b *budget) String() string { return time.Duration(*b).String() }

func (b *budget) Set(s string) error {
	d, err := time.ParseDuration(s)
	if err != nil || d <= 0 || d > 10*time.Minute {
		return errors.New("not a duration above 0 and at most 10m (e.g. 5s, 500ms)")
	}
	*b = budget(d)
	return nil
}

// apiKeys are Azure AI Search api-keys, comma-separated: each 1 to 256
// printable ASCII characters without spaces or commas, as a header value
// carries them unchanged.
type apiKeys []string

func (k *apiKeys) String() string { return strings.Join(*k, ",") }

func (k *apiKeys) Set(s string) error {
	var keys []string
	for _, key := range strings.Split(s, ",") {
		if len(key) == 0 || len(key) > 256 {
			return errors.New("not a list of api-keys (comma-separated, each 1 to 256 printable characters without spaces)")
		}
		for i := 0; i < len(key); i++ {
			if key[i] <= ' ' || key[i] > '~' {
				return errors.New("not a list of api-keys (comma-separated, each 1 to 256 printable characters without spaces)")
			}
		}
		keys = append(keys, key)
	}
	*k = keys
	return nil
}

// hostList is a comma-separated list of Host header values: host or
// host:port, without a scheme or a path.
type hostList []string

func (l *hostList) String() string { return strings.Join(*l, ",") }

func (l *hostList) Set(s string) error {
	var hosts []string
	for _, h := range strings.Split(s, ",") {
		h = strings.TrimSpace(h)
		if h == "" || strings.ContainsAny(h, "/@ ") {
			return errors.New("not a list of host names (comma-separated host or host:port, no scheme or path)")
		}
		hosts = append(hosts, h)
	}
	*l = hosts
	return nil
}

// port is a TCP port given in decimal: 0 (pick a free one) to 65535.
type port int

func (p *port) String() string { return strconv.Itoa(int(*p)) }

func (p *port) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > 65535 {
		return errors.New("not a port number (0 to 65535)")
	}
	*p = port(n)
	return nil
}

// defaultAdminPort is the admin endpoint's port unless --admin-port says.
const defaultAdminPort = 10080

// adminPort is a port, or -1 for "off".
type adminPort int

func (p *adminPort) String() string {
	if *p < 0 {
		return "off"
	}
	return strconv.Itoa(int(*p))
}

func (p *adminPort) Set(s string) error {
	if s == "off" {
		*p = -1
		return nil
	}
	var n port
	if err := n.Set(s); err != nil {
		return errors.New("not a port number (0 to 65535) or off")
	}
	*p = adminPort(n)
	return nil
}

// reserveSize is --min-free-space: the reserve a full volume keeps for
// the store to finish what it has begun (log records, compactions,
// flushes). auto, the default, scales it with the volume (5%, at most
// 256 MiB): a fixed 256 MiB took most of a small CI volume.
type reserveSize struct {
	auto bool
	size byteSize
}

func (r *reserveSize) String() string {
	if r.auto {
		return "auto"
	}
	return r.size.String()
}

func (r *reserveSize) Set(s string) error {
	if s == "auto" {
		*r = reserveSize{auto: true}
		return nil
	}
	var b byteSize
	if err := b.Set(s); err != nil {
		return errors.New("not a size (bytes, or a number with KiB, MiB, GiB, TiB, KB, MB, GB or TB) or auto")
	}
	*r = reserveSize{size: b}
	return nil
}

// bytes is the reserve as server.Config.MinFreeBytes takes it.
func (r reserveSize) bytes() uint64 {
	if r.auto {
		return server.AutoMinFree
	}
	return uint64(r.size)
}

// byteSize is a number of bytes: a decimal count, or one with a KiB, MiB,
// GiB or TiB suffix (or KB, MB, GB, TB for powers of 1000).
type byteSize uint64

var sizeUnits = []struct {
	suffix string
	factor uint64
}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}

func (b *byteSize) String() string {
	for _, u := range sizeUnits[:4] {
		if v := uint64(*b); v != 0 && v%u.factor == 0 && v/u.factor < 1024 {
			return strconv.FormatUint(v/u.factor, 10) + u.suffix
		}
	}
	return strconv.FormatUint(uint64(*b), 10)
}

func (b *byteSize) Set(s string) error {
	num, factor := s, uint64(1)
	for _, u := range sizeUnits {
		if strings.HasSuffix(s, u.suffix) {
			num, factor = strings.TrimSuffix(s, u.suffix), u.factor
			break
		}
	}
	n, err := strconv.ParseUint(num, 10, 64)
	if err != nil || n > (1<<63)/factor {
		return errors.New("not a size (bytes, or a number with KiB, MiB, GiB, TiB, KB, MB, GB or TB)")
	}
	*b = byteSize(n * factor)
	return nil
}

// faultRules are fault injection rules in faults.Parse's syntax.
type faultRules []faults.Rule

func (r *faultRules) String() string { return faults.String(*r) }

func (r *faultRules) Set(s string) error {
	rules, err := faults.Parse(s)
	if err != nil {
		return err
	}
	*r = rules
	return nil
}

// storeURL is a PostgreSQL connection URL, or empty for the embedded store.
type storeURL string

func (u *storeURL) String() string { return string(*u) }

func (u *storeURL) Set(s string) error {
	if s == "" {
		*u = ""
		return nil
	}
	p, err := url.Parse(s)
	if err != nil || p.Scheme != "postgres" && p.Scheme != "postgresql" || p.Host == "" {
		return errors.New("not a PostgreSQL URL (postgres://user@host:port/database)")
	}
	*u = storeURL(s)
	return nil
}

// redacted is the URL without its password, for the log.
func (u storeURL) redacted() string {
	p, err := url.Parse(string(u))
	if err != nil {
		return "postgres"
	}
	return p.Redacted()
}

// retentionDays is a retention period in whole days, 0 (off) to 365.
type retentionDays int

func (d *retentionDays) String() string { return strconv.Itoa(int(*d)) }

func (d *retentionDays) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > svcprops.MaxDeleteRetentionDays {
		return fmt.Errorf("not a number of days (0 to %d)", svcprops.MaxDeleteRetentionDays)
	}
	*d = retentionDays(n)
	return nil
}

// logLevel is one of the documented level names, in any case.
type logLevel slog.Level

var logLevels = map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}

func (l *logLevel) String() string { return strings.ToLower(slog.Level(*l).String()) }

func (l *logLevel) Set(s string) error {
	level, ok := logLevels[strings.ToLower(s)]
	if !ok {
		return errors.New("not a log level (debug, info, warn or error)")
	}
	*l = logLevel(level)
	return nil
}

// logFormat is how log lines are written: "" (text) or "json".
type logFormat string

func (l *logFormat) String() string {
	if *l == "" {
		return "text"
	}
	return string(*l)
}

func (l *logFormat) Set(s string) error {
	switch strings.ToLower(s) {
	case "text":
		*l = ""
	case "json":
		*l = "json"
	default:
		return errors.New("not a log format (text or json)")
	}
	return nil
}

// handler is the slog handler writing w in format l.
func (l logFormat) handler(w io.Writer, o *slog.HandlerOptions) slog.Handler {
	if l == "json" {
		return slog.NewJSONHandler(w, o)
	}
	return slog.NewTextHandler(w, o)
}

func envName(flagName string) string {
	return "CERULEAN_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func serve(args []string, getenv func(string) string, stderr io.Writer) error {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	return serveUntil(args, getenv, stderr, sigs)
}

// serveUntil serves until the first signal on sigs, then shuts down
// gracefully; a second signal stops at once (every acknowledged write is
// already synced to the store's log, so nothing acknowledged is lost).
func serveUntil(args []string, getenv func(string) string, stderr io.Writer, sigs <-chan os.Signal) error {
	f, err := parseServeFlags(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	logger := slog.New(f.logFormat.handler(stderr, &slog.HandlerOptions{Level: slog.Level(f.logLevel)}))
	for _, note := range f.notes {
		logger.Info("Azurite flag: " + note)
	}
	limitMemory(getenv, logger)
	accounts, err := azauth.LoadAccounts(getenv)
	if err != nil {
		return err
	}
	// The first signal cancels ctx (a start still under way gives up);
	// one after the stop has begun closes again.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	again, finished := make(chan struct{}), make(chan struct{})
	defer close(finished)
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-ctx.Done(): // a listener failed: the stop has begun
		case <-finished:
			return
		}
		select {
		case <-sigs:
			close(again)
		case <-finished:
		}
	}()
	srv, err := startUnlessStopped(ctx, server.Config{
		Host: f.host, BlobPort: int(f.blobPort), QueuePort: int(f.queuePort), TablePort: int(f.tablePort), FilePort: int(f.filePort), SMBPort: int(f.smbPort), DataDir: f.dataDir, InMemory: bool(f.inMemory), Store: string(f.store),
		CosmosPort: int(f.cosmosPort), CosmosHTTP: bool(f.cosmosHTTP), CosmosScriptBudget: time.Duration(f.scriptBudget),
		SearchPort: int(f.searchPort), SearchHTTPS: bool(f.searchHTTPS), SearchAdminKeys: f.searchAdminKeys, SearchQueryKeys: f.searchQueryKeys,
		StorageHTTPS: bool(f.storageHTTPS), StorageCertFile: f.certFile, StorageKeyFile: f.keyFile, CertDir: f.certDir(),
		Accounts: accounts, Logger: logger,
		BlobVersioning: bool(f.blobVersioning), BlobLastAccessTracking: bool(f.blobLastAccess), ContainerDeleteRetentionDays: int(f.containerRetention),
		ShareDeleteRetentionDays: int(f.shareRetention), FileLargeShares: bool(f.largeShares),
		AdminHost: f.adminHost, AdminPort: int(f.adminPort), AdminDisabled: f.adminPort < 0, AdminAllowedHosts: f.adminAllowed,
		TestClock: bool(f.testClock), FaultInjection: bool(f.faultInjection), Faults: []faults.Rule(f.faults),
		MinFreeBytes: f.minFreeSpace.bytes(), MaxConnections: int(f.maxConns),
	})
	if err != nil {
		return err
	}
	where := f.dataDir
	if abs, err := filepath.Abs(f.dataDir); err == nil {
		where = abs // "./cerulean-data" says nothing about where the shell was
	}
	if f.inMemory {
		where = "memory (nothing persists)"
	}
	if f.store != "" {
		where = f.store.redacted()
	}
	logger.Info("cerulean started", "version", version, "store", where, "accounts", strings.Join(accounts.Names(), ","))
	logger.Info("storage connection string", "value", srv.ConnectionString(azauth.DevAccount, azauth.DevKey))
	select {
	case <-ctx.Done():
	case err = <-srv.Err():
		logger.Error("listener failed", "err", err)
		cancel() // a signal from here on stops at once
	}
	logger.Info("stopping: waiting for the requests in flight; press Ctrl-C again to stop at once (acknowledged writes are durable)",
		"requests", srv.InFlight(), "up_to", shutdownTimeout.String())
	shutdownCtx, cancelShutdown := context.WithTimeout(context.Background(), shutdownTimeout)
	defer cancelShutdown()
	done := make(chan error, 1)
	go func() { done <- srv.Shutdown(shutdownCtx) }()
	select {
	case serr := <-done:
		if errors.Is(serr, context.DeadlineExceeded) {
			// Say what the deadline cut short, not just that it passed.
			serr = fmt.Errorf("stopped after %s: the requests still running then were cut off", shutdownTimeout)
		} else if serr != nil {
			serr = fmt.Errorf("stopped: %w", serr)
		}
		if err = errors.Join(err, serr); err == nil {
			logger.Info("stopped")
		}
		return err
	case <-again:
		return errors.Join(err, errStoppedAtOnce)
	case <-time.After(shutdownTimeout + shutdownGrace):
		// The store is stuck (a commit waiting for space on a full
		// volume): exiting without closing it loses nothing
		// acknowledged, which is already synced to its log.
		return errors.Join(err, errShutdownStuck)
	}
}

// shutdownTimeout is how long in-flight requests may finish at shutdown;
// shutdownGrace how much longer closing the store may take before the
// process exits without it. Variables so that tests can shorten them.
var (
	shutdownTimeout = 30 * time.Second
	shutdownGrace   = 10 * time.Second
)

var (
	errShutdownStuck = errors.New("stopped without closing the store: shutdown did not finish (every acknowledged write is already in its log)")
	errStoppedAtOnce = errors.New("stopped at once on a second signal (every acknowledged write is already in the store's log)")
)

// startUnlessStopped starts the server, or gives up when ctx ends first
// (SIGTERM while the store waits for space on a full volume): the
// process then exits, and every acknowledged write is already in the
// store's log.
func startUnlessStopped(ctx context.Context, cfg server.Config) (*server.Server, error) {
	type started struct {
		srv *server.Server
		err error
	}
	ch := make(chan started, 1)
	go func() {
		srv, err := server.Start(ctx, cfg)
		ch <- started{srv, err}
	}()
	select {
	case r := <-ch:
		return r.srv, r.err
	case <-ctx.Done():
		select {
		case r := <-ch: // Start noticed and returned
			if r.err == nil {
				return r.srv, nil // the caller shuts it down
			}
			return nil, r.err
		case <-time.After(shutdownGrace):
			return nil, errors.New("stopped while starting")
		}
	}
}
