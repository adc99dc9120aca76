package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/server"
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
	}
	switch cmd {
	case "serve":
		return serve(args, getenv, stderr)
	case "version":
		fmt.Fprintln(stdout, "cerulean", version)
		return nil
	case "bench":
		return benchCommand(args, getenv, stdout, stderr)
	case "help":
		fmt.Fprintln(stdout, "usage: cerulean [serve|version|bench] [flags]; cerulean serve -h lists the flags")
		return nil
	}
	return fmt.Errorf("unknown command %q (want serve, version or bench)", cmd)
}

// serveFlags are serve's settings.
type serveFlags struct {
	host                                                         string
	blobPort, queuePort, tablePort, filePort, cosmosPort, search int
	dataDir                                                      string
	inMemory                                                     bool
	cosmosHTTP                                                   bool
	logLevel                                                     string
	pprof                                                        string
}

func parseServeFlags(args []string, getenv func(string) string, stderr io.Writer) (*serveFlags, error) {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f := &serveFlags{}
	str := func(p *string, name, def, usage string) {
		fs.StringVar(p, name, envOr(getenv, name, def), usage+" (env "+envName(name)+")")
	}
	num := func(p *int, name string, def int, usage string) {
		d := def
		if v := getenv(envName(name)); v != "" {
			if n, err := strconv.Atoi(v); err == nil {
				d = n
			}
		}
		fs.IntVar(p, name, d, usage+" (env "+envName(name)+")")
	}
	str(&f.host, "host", "127.0.0.1", "address to listen on")
	num(&f.blobPort, "blob-port", 10000, "Blob service port")
	num(&f.queuePort, "queue-port", 10001, "Queue service port")
	num(&f.tablePort, "table-port", 10002, "Table service port")
	num(&f.filePort, "file-port", 10003, "File service port (service not yet available)")
	num(&f.cosmosPort, "cosmos-port", 8081, "Cosmos DB (NoSQL) gateway port")
	num(&f.search, "search-port", 8082, "AI Search port (service not yet available)")
	fs.BoolVar(&f.cosmosHTTP, "cosmos-http", getenv(envName("cosmos-http")) == "true", "serve the Cosmos DB gateway over plain HTTP instead of HTTPS (env CERULEAN_COSMOS_HTTP=true)")
	str(&f.dataDir, "data", "./cerulean-data", "directory of the durable store")
	fs.BoolVar(&f.inMemory, "in-memory", getenv(envName("in-memory")) == "true", "keep everything in memory; nothing survives exit (env CERULEAN_IN_MEMORY=true)")
	str(&f.logLevel, "log-level", "info", "debug, info, warn or error")
	str(&f.pprof, "pprof", "", "serve Go's pprof profiles on this address, e.g. 127.0.0.1:6060 (off when empty)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	return f, nil
}

func envName(flagName string) string {
	return "CERULEAN_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func envOr(getenv func(string) string, flagName, def string) string {
	if v := getenv(envName(flagName)); v != "" {
		return v
	}
	return def
}

func serve(args []string, getenv func(string) string, stderr io.Writer) error {
	f, err := parseServeFlags(args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	var level slog.Level
	if err := level.UnmarshalText([]byte(f.logLevel)); err != nil {
		return fmt.Errorf("log level %q: %w", f.logLevel, err)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: level}))
	accounts, err := azhttp.LoadAccounts(getenv)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if f.pprof != "" {
		if err := servePprof(f.pprof, logger); err != nil {
			return err
		}
	}
	srv, err := server.Start(ctx, server.Config{
		Host: f.host, BlobPort: f.blobPort, QueuePort: f.queuePort, TablePort: f.tablePort, DataDir: f.dataDir, InMemory: f.inMemory,
		CosmosPort: f.cosmosPort, CosmosHTTP: f.cosmosHTTP,
		Accounts: accounts, Logger: logger,
	})
	if err != nil {
		return err
	}
	where := f.dataDir
	if f.inMemory {
		where = "memory (nothing persists)"
	}
	logger.Info("cerulean started", "version", version, "store", where, "accounts", strings.Join(accounts.Names(), ","))
	select {
	case <-ctx.Done():
		logger.Info("shutting down")
	case err = <-srv.Err():
		logger.Error("listener failed", "err", err)
	}
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return errors.Join(err, srv.Shutdown(shutdownCtx))
}
