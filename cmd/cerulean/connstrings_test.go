package main

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/server"
)

func freePorts(t *testing.T, n int) []string {
	t.Helper()
	var out []string
	var ls []net.Listener
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		out = append(out, strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
	}
	for _, l := range ls {
		_ = l.Close()
	}
	return out
}

// The printed storage connection string is the one a server started with
// the same flags reports, and the lines survive a shell's eval.
func TestConnectionStringsMatchTheServer(t *testing.T) {
	p := freePorts(t, 7)
	args := []string{"--blob-port", p[0], "--queue-port", p[1], "--table-port", p[2], "--file-port", p[3], "--cosmos-port", p[4], "--search-port", p[5], "--storage-https",
		"--admin-port", p[6]}
	var out bytes.Buffer
	if err := run(append([]string{"connection-strings"}, args...), envOf(nil), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	srv, err := server.Start(t.Context(), server.Config{Host: "127.0.0.1", BlobPort: atoi(t, p[0]), QueuePort: atoi(t, p[1]), TablePort: atoi(t, p[2]), FilePort: atoi(t, p[3]),
		SMBPort: 0, CosmosPort: atoi(t, p[4]), SearchPort: atoi(t, p[5]), AdminPort: atoi(t, p[6]), InMemory: true, StorageHTTPS: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = srv.Shutdown(t.Context()) })

	sh := exec.Command("sh", "-c", `eval "$(cat)"; printf '%s\n' "$AZURE_STORAGE_CONNECTION_STRING" "$COSMOS_ENDPOINT" "$AZURE_SEARCH_ENDPOINT" "$AZURE_SEARCH_ADMIN_KEY" "$CERULEAN_ADMIN_URL"`)
	sh.Stdin = &out
	got, err := sh.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		srv.ConnectionString(azauth.DevAccount, azauth.DevKey),
		"https://127.0.0.1:" + p[4] + "/",
		"http://127.0.0.1:" + p[5],
		"cerulean-search-admin-key",
		"http://" + srv.AdminAddr(),
	}, "\n") + "\n"
	if string(got) != want {
		t.Errorf("after eval:\n%s\nwant:\n%s", got, want)
	}
}

func TestConnectionStringsRefuseFreePorts(t *testing.T) {
	err := run([]string{"connection-strings", "--table-port", "0"}, envOf(nil), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "--table-port 0") {
		t.Errorf("port 0: %v, want a refusal naming --table-port", err)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
