package exhaustion_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/share"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// sendHead sends a request's head (no body, whatever Content-Length it
// announces) and reads the answer: its status and x-ms-error-code.
func sendHead(t *testing.T, addr, head string) (int, string) {
	t.Helper()
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	if err := conn.SetDeadline(time.Now().Add(30 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(conn, head); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no answer to %q: %v", strings.SplitN(head, "\r\n", 2)[0], err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("x-ms-error-code")
}

// TestConnectionLimit: past its bound a listener closes new connections
// at once, the other listeners and the open connections are unaffected,
// and a slot freed is a connection served again.
func TestConnectionLimit(t *testing.T) {
	const limit = 8
	env := servertest.Start(t, servertest.WithMaxConnections(limit))
	blobAddr, queueAddr := hostOf(t, env.BlobURL), hostOf(t, env.QueueURL)
	// served sends a request on conn: any answer means it was served.
	served := func(conn net.Conn, addr string) error {
		if err := conn.SetDeadline(time.Now().Add(10 * time.Second)); err != nil {
			return err
		}
		if _, err := fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", addr); err != nil {
			return err
		}
		resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
		if err != nil {
			return err
		}
		return resp.Body.Close()
	}
	var held []net.Conn
	t.Cleanup(func() {
		for _, h := range held {
			_ = h.Close()
		}
	})
	for range limit {
		conn, err := net.Dial("tcp", blobAddr)
		if err != nil {
			t.Fatal(err)
		}
		if err := served(conn, blobAddr); err != nil {
			t.Fatalf("connection %d of %d: %v", len(held)+1, limit, err)
		}
		held = append(held, conn)
	}
	extra, err := net.Dial("tcp", blobAddr)
	if err != nil {
		t.Fatal(err)
	}
	if err := served(extra, blobAddr); err == nil {
		t.Fatalf("connection %d of a listener bounded to %d was served", limit+1, limit)
	} else if !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) && !strings.Contains(err.Error(), "reset") && !strings.Contains(err.Error(), "broken pipe") {
		t.Fatalf("connection past the bound: want it closed at once, got %v", err)
	}
	_ = extra.Close()
	// The held connections are still served, and so is another service.
	if err := served(held[0], blobAddr); err != nil {
		t.Fatalf("a held connection after the bound was reached: %v", err)
	}
	other, err := net.Dial("tcp", queueAddr)
	if err != nil {
		t.Fatal(err)
	}
	if err := served(other, queueAddr); err != nil {
		t.Fatalf("the queue listener while the blob listener is full: %v", err)
	}
	_ = other.Close()
	// A freed slot serves a new connection.
	_ = held[0].Close()
	held = held[1:]
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		conn, err := net.Dial("tcp", blobAddr)
		if err != nil {
			t.Fatal(err)
		}
		err = served(conn, blobAddr)
		_ = conn.Close()
		if err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no connection served after one was freed: %v", err)
		}
	}
}

// TestUploadMemoryLimit: uploads that announce large bodies and trickle
// them in hold the memory for request bodies; once it is all held, an
// upload is answered 503 ServerBusy (which the SDKs retry), and once they
// go, uploads are served again.
func TestUploadMemoryLimit(t *testing.T) {
	env := servertest.Start(t)
	c := newClients(t, env)
	put := func() (int, string) {
		body := "0123456789"
		return sendHead(t, c.blobAddr, fmt.Sprintf("PUT %s HTTP/1.1\r\nHost: %s\r\nx-ms-blob-type: BlockBlob\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s",
			c.signed("exh/small"), c.blobAddr, len(body), body))
	}
	if status, code := put(); status != http.StatusCreated {
		t.Fatalf("upload before the memory is held: %d %s", status, code)
	}
	ctx, stop := context.WithCancel(t.Context())
	var wg sync.WaitGroup
	// 64 staged uploads of 8 MiB buffers are the 512 MiB the Blob service
	// lets request bodies hold; a few more make sure it is all taken.
	for i := range 72 {
		wg.Go(func() { trickleBlobBody(ctx, c.blobAddr, c.signed(fmt.Sprintf("exh/held-%d", i))) })
	}
	refused := false
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		status, code := put()
		if status == http.StatusServiceUnavailable {
			if code != "ServerBusy" {
				t.Fatalf("upload past the body memory: want 503 ServerBusy, got %d %s", status, code)
			}
			refused = true
			break
		}
		if status != http.StatusCreated {
			t.Fatalf("upload while the memory fills: %d %s", status, code)
		}
	}
	stop()
	wg.Wait()
	if !refused {
		t.Fatal("uploads were still accepted with every byte of body memory held")
	}
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		status, code := put()
		if status == http.StatusCreated {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("upload after the held bodies went: %d %s", status, code)
		}
	}
}

// TestSizeAndDepthLimits: each size and nesting limit answers Azure's
// error for it, before the server reads or builds what was announced.
func TestSizeAndDepthLimits(t *testing.T) {
	env := servertest.Start(t)
	c := newClients(t, env)
	ctx := t.Context()
	_, err := c.blob.UploadBuffer(ctx, "exh", "page", nil, nil)
	testkit.Must(t, err, "upload")
	storage := []struct {
		name        string
		status      int
		code        string
		path, query string // the blob, and the operation's own query
		length      int64
		headers     string
	}{
		{"Put Blob over 5000 MiB", 413, "RequestBodyTooLarge", "exh/big", "", 5000<<20 + 1, "x-ms-blob-type: BlockBlob\r\n"},
		{"Put Block over 4000 MiB", 413, "RequestBodyTooLarge", "exh/big", "&comp=block&blockid=QUFBQQ%3D%3D", 4000<<20 + 1, ""},
		{"Append Block over 100 MiB", 413, "RequestBodyTooLarge", "exh/big", "&comp=appendblock", 100<<20 + 1, ""},
		{"Put Page over 4 MiB", 416, "InvalidPageRange", "exh/page", "&comp=page", 8 << 20, "x-ms-page-write: update\r\nx-ms-range: bytes=0-8388607\r\n"},
	}
	for _, tc := range storage {
		status, code := sendHead(t, c.blobAddr, fmt.Sprintf("PUT %s%s HTTP/1.1\r\nHost: %s\r\nContent-Length: %d\r\n%sConnection: close\r\n\r\n",
			c.signed(tc.path), tc.query, c.blobAddr, tc.length, tc.headers))
		if status != tc.status || code != tc.code {
			t.Errorf("%s: want %d %s, got %d %s", tc.name, tc.status, tc.code, status, code)
		}
	}

	// File Put Range over 4 MiB.
	sc, err := share.NewClientFromConnectionString(env.ConnectionString, "exh", nil)
	testkit.Must(t, err, "share client")
	_, err = sc.Create(ctx, nil)
	testkit.Must(t, err, "create share")
	fc := sc.NewRootDirectoryClient().NewFileClient("f")
	_, err = fc.Create(ctx, 8<<20, nil)
	testkit.Must(t, err, "create file")
	_, err = fc.UploadRange(ctx, 0, streaming.NopCloser(bytes.NewReader(make([]byte, 4<<20+1))), nil)
	testkit.CheckErr(t, err, 413, "RequestBodyTooLarge", "Put Range over 4 MiB")

	// Table: entities are flat, at most 1 MiB; bodies at most 4 MiB.
	_, err = c.table.AddEntity(ctx, []byte(`{"PartitionKey":"p","RowKey":"nested","A":{"B":{"C":1}}}`), nil)
	testkit.CheckErr(t, err, 400, "InvalidInput", "nested table entity")
	var props strings.Builder
	for i := range 20 {
		fmt.Fprintf(&props, `"P%d":"%s",`, i, strings.Repeat("v", 30<<10)) // 60 KiB each as Azure counts (UTF-16)
	}
	_, err = c.table.AddEntity(ctx, fmt.Appendf(nil, `{"PartitionKey":"p","RowKey":"big",%s"Z":1}`, props.String()), nil)
	testkit.CheckErr(t, err, 400, "EntityTooLarge", "a 1.2 MiB table entity")

	// Cosmos DB: items nest at most 128 levels; bodies at most 2 MB;
	// query texts at most 256 KiB.
	pk := azcosmos.NewPartitionKeyString("p")
	nested := func(levels int) []byte {
		// The item is the first level; each "a" adds one.
		return []byte(`{"id":"deep` + fmt.Sprint(levels) + `","pk":"p","a":` + strings.Repeat(`{"a":`, levels-1) + `1` + strings.Repeat(`}`, levels-1) + `}`)
	}
	_, err = c.cosmos.CreateItem(ctx, pk, nested(128), nil)
	testkit.Must(t, err, "an item nested 128 levels deep")
	_, err = c.cosmos.CreateItem(ctx, pk, nested(129), nil)
	cosmosErr(t, err, 400, "an item nested 129 levels deep")
	_, err = c.cosmos.UpsertItem(ctx, pk, nested(100000), nil)
	cosmosErr(t, err, 400, "an item nested 100,000 levels deep")
	_, err = c.cosmos.CreateItem(ctx, pk, fmt.Appendf(nil, `{"id":"big","pk":"p","v":%q}`, strings.Repeat("v", 2<<20)), nil)
	cosmosErr(t, err, 413, "a 2 MiB item")
	long := "SELECT * FROM c WHERE c.v = '" + strings.Repeat("q", 256<<10) + "'"
	_, err = c.cosmos.NewQueryItemsPager(long, pk, nil).NextPage(ctx)
	cosmosErr(t, err, 400, "a query text over 256 KiB")
	_, err = c.cosmos.NewQueryItemsPager("SELECT * FROM c WHERE c.v = '"+strings.Repeat("q", 200<<10)+"'", pk, nil).NextPage(ctx)
	testkit.Must(t, err, "a query text of 200 KiB")

	// Search: bodies at most 4 MiB (413); a document nested past what the
	// JSON decoder takes is a 400, never a stack overflow.
	search := func(method, path, body string) (int, string) {
		req, _ := http.NewRequestWithContext(ctx, method, env.SearchURL+path, strings.NewReader(body))
		req.Header.Set("api-key", env.SearchAdminKey)
		req.Header.Set("Content-Type", "application/json")
		return testkit.Do(t, req)
	}
	if status, body := search("PUT", "/indexes/exh?api-version=2024-07-01", `{"name":"exh","fields":[{"name":"id","type":"Edm.String","key":true},{"name":"v","type":"Edm.String"}]}`); status != 201 {
		t.Fatalf("create index: %d %s", status, body)
	}
	complexFields := func(levels int) string {
		f := `{"name":"leaf","type":"Edm.String"}`
		for i := range levels {
			f = fmt.Sprintf(`{"name":"c%d","type":"Edm.ComplexType","fields":[%s]}`, i, f)
		}
		return f
	}
	if status, body := search("PUT", "/indexes/nested?api-version=2024-07-01", `{"name":"nested","fields":[{"name":"id","type":"Edm.String","key":true},`+complexFields(9)+`]}`); status != 201 {
		t.Errorf("an index with fields nested 10 levels deep: want 201, got %d %s", status, body)
	}
	if status, body := search("PUT", "/indexes/deep?api-version=2024-07-01", `{"name":"deep","fields":[{"name":"id","type":"Edm.String","key":true},`+complexFields(11)+`]}`); status != 400 {
		t.Errorf("an index with complex fields nested 11 levels deep: want 400, got %d %s", status, body)
	}
	if status, _ := search("POST", "/indexes/exh/docs/index?api-version=2024-07-01", `{"value":[{"@search.action":"upload","id":"1","v":"`+strings.Repeat("v", 4<<20)+`"}]}`); status != 413 {
		t.Errorf("a 4 MiB document batch: want 413, got %d", status)
	}
	deep := `{"value":[{"@search.action":"upload","id":"2","v":` + strings.Repeat("[", 100000) + strings.Repeat("]", 100000) + `}]}`
	if status, _ := search("POST", "/indexes/exh/docs/index?api-version=2024-07-01", deep); status != 400 {
		t.Errorf("a document nested 100,000 levels deep: want 400, got %d", status)
	}
	if status, body := search("POST", "/indexes/exh/docs/index?api-version=2024-07-01", `{"value":[{"@search.action":"upload","id":"3","v":"ok"}]}`); status != 200 {
		t.Errorf("a valid document after the refused ones: %d %s", status, body)
	}
}

// cosmosErr checks a Cosmos DB SDK call failed with status (the SDK does
// not surface the body's code).
func cosmosErr(t *testing.T, err error, status int, what string) {
	t.Helper()
	if got := testkit.StatusOf(err); got != status {
		t.Errorf("%s: want HTTP %d, got %s", what, status, testkit.Describe(err))
	}
}
