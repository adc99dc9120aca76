package load_test

import (
	"bytes"
	"crypto/md5"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/servertest"
)

var (
	conns    = flag.Int("load.conns", 40, "concurrent connections")
	duration = flag.Duration("load.duration", 6*time.Second, "how long to run")
)

type tally struct {
	mu       sync.Mutex
	byKind   map[string]map[int]int
	failures []string
}

func (t *tally) add(kind string, status int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.byKind[kind] == nil {
		t.byKind[kind] = map[int]int{}
	}
	t.byKind[kind][status]++
}

func (t *tally) fail(format string, args ...any) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if len(t.failures) < 20 {
		t.failures = append(t.failures, fmt.Sprintf(format, args...))
	}
}

func TestBadInputUnderLoad(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	env := servertest.Start(t, servertest.WithDataDir(t.TempDir()))
	cred, err := service.NewSharedKeyCredential(env.Account, env.Key)
	if err != nil {
		t.Fatal(err)
	}
	client, err := azblob.NewClientWithSharedKeyCredential(env.BlobURL, cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := t.Context()
	if _, err := client.CreateContainer(ctx, "load", nil); err != nil {
		t.Fatal(err)
	}
	// Blobs that only valid readers touch: they must come out unchanged.
	stable := map[string][16]byte{}
	for i := range 20 {
		data := bytes.Repeat([]byte{byte(i)}, 1000+i*1000)
		name := fmt.Sprintf("stable-%02d", i)
		if _, err := client.UploadBuffer(ctx, "load", name, data, nil); err != nil {
			t.Fatal(err)
		}
		stable[name] = md5.Sum(data)
	}
	now := time.Now().UTC()
	sasQP, err := sas.AccountSignatureValues{
		Protocol: sas.ProtocolHTTPSandHTTP, StartTime: now.Add(-time.Hour), ExpiryTime: now.Add(2 * time.Hour),
		Permissions:   (&sas.AccountPermissions{Read: true, Write: true, Create: true, Add: true, Delete: true, List: true}).String(),
		ResourceTypes: (&sas.AccountResourceTypes{Service: true, Container: true, Object: true}).String(),
	}.SignWithSharedKey(cred)
	if err != nil {
		t.Fatal(err)
	}
	signed := func(path string) string {
		sep := "?"
		if strings.Contains(path, "?") {
			sep = "&"
		}
		return env.BlobURL + path + sep + sasQP.Encode()
	}
	addr := strings.TrimSuffix(strings.TrimPrefix(env.BlobURL, "http://"), "/devstoreaccount1/")

	tl := &tally{byKind: map[string]map[int]int{}}
	httpClient := &http.Client{Timeout: 30 * time.Second}
	do := func(kind string, req *http.Request, okStatus func(int) bool) {
		resp, err := httpClient.Do(req)
		if err != nil {
			tl.add(kind, -1)
			return
		}
		// The server may cut a bad request's answer short; the status is
		// what is checked.
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		tl.add(kind, resp.StatusCode)
		if resp.StatusCode >= 500 || !okStatus(resp.StatusCode) {
			tl.fail("%s %s %s: %d %s", kind, req.Method, req.URL.Path, resp.StatusCode, resp.Header.Get("x-ms-error-code"))
		}
	}
	is4xx := func(s int) bool { return s >= 400 && s < 500 }
	actions := []func(rng *rand.Rand){
		func(rng *rand.Rand) { // valid read of a stable blob
			name := fmt.Sprintf("stable-%02d", rng.IntN(20))
			req, _ := http.NewRequest(http.MethodGet, signed("load/"+name), nil)
			do("valid-get", req, func(s int) bool { return s == 200 })
		},
		func(rng *rand.Rand) { // valid write of a scratch blob
			req, _ := http.NewRequest(http.MethodPut, signed(fmt.Sprintf("load/scratch-%d", rng.IntN(50))), bytes.NewReader(make([]byte, rng.IntN(5000))))
			req.Header.Set("x-ms-blob-type", "BlockBlob")
			do("valid-put", req, func(s int) bool { return s == 201 })
		},
		func(rng *rand.Rand) { // malformed headers
			req, _ := http.NewRequest(http.MethodGet, signed("load/stable-01"), nil)
			switch rng.IntN(5) {
			case 0:
				req.Header.Set("x-ms-version", "yesterday")
			case 1:
				req.Header.Set("x-ms-range", "bytes=9-3")
			case 2:
				req.Header.Set("If-Match", `"0x`+strings.Repeat("F", 3000)+`"`)
			case 3:
				req.Header.Set("x-ms-range", "bytes=99999999-")
			default:
				req.Header.Set("Authorization", "SharedKey devstoreaccount1:"+strings.Repeat("!", rng.IntN(200)))
			}
			do("bad-header", req, func(s int) bool { return is4xx(s) || s == 200 || s == 206 })
		},
		func(rng *rand.Rand) { // malformed XML bodies
			bodies := []string{"<BlockList><Latest>", "not xml", "<BlockList><Latest>@@@</Latest></BlockList>", strings.Repeat("<a>", 10000), "<SignedIdentifiers><SignedIdentifier></SignedIdentifiers>"}
			body := bodies[rng.IntN(len(bodies))]
			path := "load/scratch-xml?comp=blocklist"
			if rng.IntN(2) == 0 {
				path = "load?restype=container&comp=acl"
			}
			req, _ := http.NewRequest(http.MethodPut, signed(path), strings.NewReader(body))
			do("bad-xml", req, is4xx)
		},
		func(rng *rand.Rand) { // truncated upload: declared length, then the connection closes
			conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				tl.add("truncated", -1)
				return
			}
			// The server may drop an abusive connection at any point, so
			// write and close errors are expected; the test checks that it
			// keeps serving everyone else.
			defer func() { _ = conn.Close() }()
			u := signed(fmt.Sprintf("load/scratch-trunc-%d", rng.IntN(10)))
			_, _ = fmt.Fprintf(conn, "PUT %s HTTP/1.1\r\nHost: %s\r\nx-ms-blob-type: BlockBlob\r\nContent-Length: %d\r\n\r\n", strings.TrimPrefix(u, "http://"+addr), addr, 6<<20)
			_, _ = conn.Write(make([]byte, rng.IntN(200<<10)))
			tl.add("truncated", 0)
		},
		func(rng *rand.Rand) { // slowloris: a header trickled, then abandoned
			conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				tl.add("slowloris", -1)
				return
			}
			defer func() { _ = conn.Close() }() // the server may have dropped it already
			if _, err := fmt.Fprintf(conn, "GET /devstoreaccount1/load/stable-00 HTTP/1.1\r\nHost: %s\r\n", addr); err != nil {
				tl.add("slowloris", -1)
				return
			}
			for range 3 + rng.IntN(5) {
				time.Sleep(200 * time.Millisecond)
				if _, err := fmt.Fprintf(conn, "x-slow-%d: y\r\n", rng.IntN(1000)); err != nil {
					break
				}
			}
			tl.add("slowloris", 0)
		},
		func(rng *rand.Rand) { // garbage on the wire
			conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
			if err != nil {
				tl.add("garbage", -1)
				return
			}
			defer func() { _ = conn.Close() }() // the server may have dropped it already
			junk := make([]byte, 1+rng.IntN(4096))
			for i := range junk {
				junk[i] = byte(rng.IntN(256))
			}
			_, _ = conn.Write(junk) // the server may hang up mid-junk; its answer, if any, is what counts
			if err := conn.SetReadDeadline(time.Now().Add(2 * time.Second)); err != nil {
				tl.add("garbage", -1)
				return
			}
			buf := make([]byte, 512)
			n, _ := conn.Read(buf)
			if bytes.HasPrefix(buf[:n], []byte("HTTP/1.1 5")) {
				tl.fail("garbage got %q", buf[:n])
			}
			tl.add("garbage", 0)
		},
		func(rng *rand.Rand) { // oversized header block
			req, _ := http.NewRequest(http.MethodGet, signed("load/stable-02"), nil)
			req.Header.Set("x-ms-meta-huge", strings.Repeat("h", 2<<20))
			do("huge-header", req, is4xx)
		},
	}

	deadline := time.Now().Add(*duration)
	var wg sync.WaitGroup
	var total atomic.Int64
	for c := range *conns {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(c), 7))
			for time.Now().Before(deadline) {
				actions[rng.IntN(len(actions))](rng)
				total.Add(1)
			}
		})
	}
	wg.Wait()

	// Truncated uploads were staged and must all have been discarded:
	// no staged data object may remain once the server has noticed.
	staged := -1
	for range 50 {
		if staged = countPrefix(t, env, "Bs"); staged == 0 {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if staged != 0 {
		t.Errorf("%d staged data objects left behind by truncated uploads", staged)
	}

	// The server still serves, and the stable blobs are exactly as written.
	for name, sum := range stable {
		resp, err := client.DownloadStream(ctx, "load", name, nil)
		if err != nil {
			t.Fatalf("after the load, %s: %v", name, err)
		}
		body, err := io.ReadAll(resp.Body)
		if err := errors.Join(err, resp.Body.Close()); err != nil {
			t.Fatalf("after the load, %s: %v", name, err)
		}
		if md5.Sum(body) != sum {
			t.Fatalf("after the load, %s changed", name)
		}
	}
	t.Logf("%d requests from %d connections in %v; peak RSS %s", total.Load(), *conns, *duration, peakRSS())
	for kind, statuses := range tl.byKind {
		t.Logf("  %-12s %v", kind, statuses)
	}
	for _, f := range tl.failures {
		t.Error(f)
	}
}

// peakRSS reads the process's high-water resident size (Linux).
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			return strings.TrimSpace(strings.TrimPrefix(line, "VmHWM:"))
		}
	}
	return "unknown"
}

// countPrefix counts the store's keys with a prefix.
func countPrefix(t *testing.T, env *servertest.Env, prefix string) int {
	n := 0
	err := env.Store.View(t.Context(), func(r kv.Reader) error {
		p := []byte(prefix)
		return r.Scan(p, kv.PrefixEnd(p), func(_, _ []byte) error { n++; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}
