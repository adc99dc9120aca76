package table

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// sdkBatch builds a $batch body the way aztables writes one: CRLF line
// ends, sorted operation headers, absolute URLs.
func sdkBatch(ops ...string) (contentType string, body []byte) {
	var b strings.Builder
	b.WriteString("--batch_b1\r\nContent-Type: multipart/mixed; boundary=changeset_c1\r\n\r\n")
	for _, op := range ops {
		b.WriteString("--changeset_c1\r\nContent-Transfer-Encoding: binary\r\nContent-Type: application/http\r\n\r\n")
		b.WriteString(op)
		b.WriteString("\r\n")
	}
	b.WriteString("--changeset_c1--\r\n\r\n--batch_b1--\r\n")
	return "multipart/mixed; boundary=batch_b1", []byte(b.String())
}

func insertOp(pk, rk string) string {
	body := fmt.Sprintf(`{"PartitionKey":%q,"RowKey":%q,"V":1}`, pk, rk)
	return "POST http://127.0.0.1:10002/devstoreaccount1/tbl?%24format=application%2Fjson%3Bodata%3Dminimalmetadata HTTP/1.1\r\n" +
		"Accept: application/json;odata=minimalmetadata\r\nContent-Length: " + fmt.Sprint(len(body)) + "\r\nContent-Type: application/json\r\nDataserviceversion: 3.0\r\nPrefer: return-no-content\r\nX-Ms-Version: 2019-02-02\r\n\r\n" + body
}

func TestParseBatch(t *testing.T) {
	ct, body := sdkBatch(
		insertOp("p", "r1"),
		"DELETE http://127.0.0.1:10002/devstoreaccount1/tbl(PartitionKey='p',RowKey='r%20x') HTTP/1.1\r\nIf-Match: *\r\n\r\n",
		"PATCH /devstoreaccount1/tbl(PartitionKey='p',RowKey='r3') HTTP/1.1\nContent-Type: application/json\n\n{\"A\":1}",
	)
	parts, changeset, err := parseBatch(ct, body)
	if err != nil || !changeset || len(parts) != 3 {
		t.Fatalf("parseBatch = %d parts, %v, %v", len(parts), changeset, err)
	}
	if parts[0].method != "POST" || parts[0].url.Path != "/devstoreaccount1/tbl" || !bytes.HasPrefix(parts[0].body, []byte(`{"PartitionKey":"p"`)) || parts[0].header.Get("Prefer") != "return-no-content" {
		t.Errorf("part 0 = %+v", parts[0])
	}
	if parts[1].method != "DELETE" || parts[1].url.Path != "/devstoreaccount1/tbl(PartitionKey='p',RowKey='r x')" || len(parts[1].body) != 0 {
		t.Errorf("part 1 = %+v", parts[1])
	}
	if parts[2].method != "PATCH" || string(parts[2].body) != `{"A":1}` {
		t.Errorf("part 2 = %+v %q", parts[2], parts[2].body)
	}
}

// TestParseBatchEmptyPart: a change set part holding nothing is the
// change set's first operation failing (azure-data-tables' recording
// test_empty_batch: 202, the part 400 InvalidInput).
func TestParseBatchEmptyPart(t *testing.T) {
	body := "--batch_1\r\nContent-Type: multipart/mixed; boundary=changeset_1\r\n\r\n--changeset_1\r\n\r\n--changeset_1--\r\n\r\n--batch_1--\r\n"
	parts, changeset, err := parseBatch("multipart/mixed; boundary=batch_1", []byte(body))
	if !errors.Is(err, errEmptyOperation) || !changeset || len(parts) != 1 {
		t.Fatalf("parseBatch = %d parts, %v, %v; want one failed operation", len(parts), changeset, err)
	}
}

func TestParseBatchRejects(t *testing.T) {
	many := make([]string, maxBatchOps+1)
	for i := range many {
		many[i] = insertOp("p", fmt.Sprint(i))
	}
	ctMany, bodyMany := sdkBatch(many...)
	ctEmpty, bodyEmpty := sdkBatch()
	tests := []struct {
		name, ct, body string
	}{
		{"not multipart", "application/json", "{}"},
		{"no boundary", "multipart/mixed", "--x\r\n"},
		{"no parts", "multipart/mixed; boundary=b", "--b--\r\n"},
		{"too many", ctMany, string(bodyMany)},
		{"empty change set", ctEmpty, string(bodyEmpty)},
		{"bad request line", "multipart/mixed; boundary=b", "--b\r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n--c\r\nContent-Type: application/http\r\n\r\nnonsense\r\n--c--\r\n--b--\r\n"},
		{"write outside change set", "multipart/mixed; boundary=b", "--b\r\nContent-Type: application/http\r\n\r\nDELETE /a/t(PartitionKey='p',RowKey='r') HTTP/1.1\r\n\r\n\r\n--b--\r\n"},
		{"two change sets", "multipart/mixed; boundary=b", "--b\r\nContent-Type: multipart/mixed; boundary=c\r\n\r\n--c\r\nContent-Type: application/http\r\n\r\nDELETE /a/t(PartitionKey='p',RowKey='r') HTTP/1.1\r\n\r\n\r\n--c--\r\n--b\r\nContent-Type: multipart/mixed; boundary=d\r\n\r\n--d--\r\n--b--\r\n"},
	}
	for _, tc := range tests {
		if _, _, err := parseBatch(tc.ct, []byte(tc.body)); !errors.Is(err, errBatchFormat) {
			t.Errorf("%s: err = %v", tc.name, err)
		}
	}
}

// TestRenderBatch checks the response the way aztables reads it: the
// first line names the boundary, and every inner part is an HTTP
// response.
func TestRenderBatch(t *testing.T) {
	ok := &partResponse{status: http.StatusNoContent}
	ok.Header().Set("ETag", etag(9))
	created := &partResponse{status: http.StatusCreated, body: []byte(`{"a":1}`)}
	created.Header().Set("Content-Type", "application/json")
	body := renderBatch("batchresponse_x", true, []*partResponse{ok, created})
	first, _, _ := bytes.Cut(body, []byte("\r\n"))
	outer := multipart.NewReader(bytes.NewReader(body), strings.TrimPrefix(string(first), "--"))
	p, err := outer.NextPart()
	if err != nil {
		t.Fatal(err)
	}
	inner, _ := io.ReadAll(p)
	line, _, _ := bytes.Cut(inner, []byte("\r\n"))
	r := multipart.NewReader(bytes.NewReader(inner), strings.TrimPrefix(string(line), "--"))
	var statuses []int
	for {
		part, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		data, _ := io.ReadAll(part)
		resp, err := http.ReadResponse(bufio.NewReader(bytes.NewReader(data)), nil)
		if err != nil {
			t.Fatalf("part %q: %v", data, err)
		}
		got, _ := io.ReadAll(resp.Body)
		if resp.StatusCode == http.StatusCreated && string(got) != `{"a":1}` {
			t.Errorf("201 body %q", got)
		}
		if resp.StatusCode == http.StatusNoContent && resp.Header.Get("ETag") != etag(9) {
			t.Errorf("204 ETag %q", resp.Header.Get("ETag"))
		}
		statuses = append(statuses, resp.StatusCode)
	}
	if len(statuses) != 2 || statuses[0] != 204 || statuses[1] != 201 {
		t.Fatalf("statuses %v", statuses)
	}
}

func FuzzParseBatch(f *testing.F) {
	ct, body := sdkBatch(insertOp("p", "r1"), "DELETE /devstoreaccount1/tbl(PartitionKey='p',RowKey='r2') HTTP/1.1\r\nIf-Match: *\r\n\r\n")
	f.Add(ct, body)
	f.Add("multipart/mixed; boundary=b", []byte("--b\r\nContent-Type: application/http\r\n\r\nGET /a/t(PartitionKey='p',RowKey='r') HTTP/1.1\r\n\r\n\r\n--b--\r\n"))
	f.Add("multipart/mixed; boundary=b", []byte("--b\nContent-Type: multipart/mixed; boundary=c\n\n--c\nContent-Type: application/http\n\nMERGE http://h/a/t(PartitionKey='p',RowKey='r') HTTP/1.1\nContent-Length: 99\n\n{}\n--c--\n--b--\n"))
	f.Fuzz(func(t *testing.T, contentType string, body []byte) {
		parts, changeset, err := parseBatch(contentType, body)
		if err != nil {
			if !errors.Is(err, errBatchFormat) {
				t.Fatalf("error %v is not errBatchFormat", err)
			}
			return
		}
		if len(parts) == 0 || len(parts) > maxBatchOps || !changeset && len(parts) != 1 {
			t.Fatalf("%d parts, changeset %v", len(parts), changeset)
		}
		for _, p := range parts {
			if p.url == nil || p.method == "" {
				t.Fatalf("part without method or URL: %+v", p)
			}
			// Whatever the parser accepts must go through the checks
			// that follow it without panicking.
			_, rest := splitPath(p.url.Path)
			if res, err := parseResource(rest); err == nil && res.kind == resEntity {
				_ = validateKey("PartitionKey", res.pk)
			}
			_, _ = parseEntityJSON(p.body)
		}
	})
}

func TestParseResource(t *testing.T) {
	tests := []struct {
		rest string
		want resource
		bad  bool
	}{
		{"", resource{kind: resService}, false},
		{"$batch", resource{kind: resBatch}, false},
		{"Tables", resource{kind: resTables}, false},
		{"Tables()", resource{kind: resTables}, false},
		{"Tables('MyTable')", resource{kind: resTable, table: "MyTable"}, false},
		{"tbl", resource{kind: resEntities, table: "tbl"}, false},
		{"tbl()", resource{kind: resEntities, table: "tbl"}, false},
		{"tbl(PartitionKey='a''b',RowKey='')", resource{kind: resEntity, table: "tbl", pk: "a'b", rk: ""}, false},
		{"tbl(RowKey='r,)',PartitionKey='p=(')", resource{kind: resEntity, table: "tbl", pk: "p=(", rk: "r,)"}, false},
		{"tbl(PartitionKey='a')", resource{}, true},
		{"tbl(PartitionKey='a',RowKey='b',RowKey='c')", resource{}, true},
		{"tbl(PartitionKey='a',RowKey='b'", resource{}, true},
		{"tbl(PartitionKey=a,RowKey='b')", resource{}, true},
		{"tbl(PartitionKey='a',RowKey='b',)", resource{}, true},
		{"tbl(Foo='a',RowKey='b')", resource{}, true},
		{"a/b", resource{}, true},
		{"Tables('x'", resource{}, true},
	}
	for _, tc := range tests {
		got, err := parseResource(tc.rest)
		if tc.bad {
			if !errors.Is(err, azerr.ErrInvalidUri) {
				t.Errorf("%q: err = %v, want InvalidUri", tc.rest, err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q = %+v, %v; want %+v", tc.rest, got, err, tc.want)
		}
	}
}

// TestBatchAtomic: a batch whose operation fails leaves the partition
// exactly as it was, and names the failing operation.
func TestBatchAtomic(t *testing.T) {
	s := newTestService(t)
	ctx := t.Context()
	if _, err := s.CreateTable(ctx, testAccount, "tbl"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WriteEntity(ctx, testAccount, "tbl", EntityWrite{Kind: WriteInsert, PartitionKey: "p", RowKey: "056"}); err != nil {
		t.Fatal(err)
	}
	ops := make([]EntityWrite, 100)
	for i := range ops {
		ops[i] = EntityWrite{Kind: WriteInsert, PartitionKey: "p", RowKey: fmt.Sprintf("%03d", i), Properties: []Property{{"I", odata.Int32Value(int32(i))}}}
	}
	_, err := s.Batch(ctx, testAccount, "tbl", ops)
	var be *BatchError
	if !errors.As(err, &be) || be.Index != 56 || !errors.Is(be.Err, azerr.ErrEntityAlreadyExists) {
		t.Fatalf("Batch err = %v", err)
	}
	page, err := s.QueryEntities(ctx, testAccount, "tbl", EntityQuery{Top: maxPageSize})
	if err != nil || len(page.Entities) != 1 || page.Entities[0].RowKey != "056" {
		t.Fatalf("after failed batch: %d entities, %v", len(page.Entities), err)
	}
}

// TestLargeEntityChunks stores an entity that needs several kv values,
// replaces it with a small one and checks no chunk is left behind.
func TestLargeEntityChunks(t *testing.T) {
	s := newTestService(t)
	ctx := t.Context()
	if _, err := s.CreateTable(ctx, testAccount, "big"); err != nil {
		t.Fatal(err)
	}
	var props []Property
	for i := range 15 {
		props = append(props, Property{fmt.Sprintf("S%d", i), odata.StringValue(strings.Repeat(string(rune('a'+i)), 32<<10))})
	}
	for _, rk := range []string{"a", "b", "c"} {
		if _, err := s.WriteEntity(ctx, testAccount, "big", EntityWrite{Kind: WriteInsert, PartitionKey: "p", RowKey: rk, Properties: props}); err != nil {
			t.Fatal(err)
		}
	}
	e, err := s.GetEntity(ctx, testAccount, "big", "p", "b")
	if err != nil {
		t.Fatal(err)
	}
	sameProperties(t, e.Properties, props)
	page, err := s.QueryEntities(ctx, testAccount, "big", EntityQuery{Top: 2})
	if err != nil || len(page.Entities) != 2 || !page.HasNext || page.NextRK != "c" {
		t.Fatalf("page = %d entities next %q %v, %v", len(page.Entities), page.NextRK, page.HasNext, err)
	}
	sameProperties(t, page.Entities[1].Properties, props)
	small := []Property{{"X", odata.Int32Value(1)}}
	if _, err := s.WriteEntity(ctx, testAccount, "big", EntityWrite{Kind: WriteReplace, PartitionKey: "p", RowKey: "b", IfMatch: IfMatch{Any: true}, Properties: small}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WriteEntity(ctx, testAccount, "big", EntityWrite{Kind: WriteDelete, PartitionKey: "p", RowKey: "c", IfMatch: IfMatch{Any: true}}); err != nil {
		t.Fatal(err)
	}
	keys := 0
	err = s.store.View(ctx, func(r kv.Reader) error {
		p := entitiesPrefix(testAccount, "big")
		return r.Scan(p, kv.PrefixEnd(p), func(k, v []byte) error { keys++; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	chunks := (len(encodeEntity(&Entity{Version: 1 << 20, Timestamp: testTicks, Properties: props})) + chunkSize - 1) / chunkSize
	if chunks < 5 {
		t.Fatalf("the big entity fits in %d chunks; the test wants several", chunks)
	}
	if want := chunks + 1; keys != want {
		t.Fatalf("%d keys under the table, want %d (a: %d chunks, b: 1)", keys, want, chunks)
	}
}

// TestConcurrentBatches races batches on one partition: each applies
// fully or not at all.
func TestConcurrentBatches(t *testing.T) {
	s := newTestService(t)
	ctx := t.Context()
	if _, err := s.CreateTable(ctx, testAccount, "race"); err != nil {
		t.Fatal(err)
	}
	const batches, size = 8, 20
	var wg sync.WaitGroup
	errs := make([]error, batches)
	for b := range batches {
		wg.Go(func() {
			ops := make([]EntityWrite, size)
			for i := range ops {
				// Every batch writes the same rows with its own tag.
				ops[i] = EntityWrite{Kind: WriteInsertOrReplace, PartitionKey: "p", RowKey: fmt.Sprint(i), Properties: []Property{{"B", odata.Int32Value(int32(b))}}}
			}
			_, errs[b] = s.Batch(ctx, testAccount, "race", ops)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	page, err := s.QueryEntities(ctx, testAccount, "race", EntityQuery{Top: maxPageSize})
	if err != nil || len(page.Entities) != size {
		t.Fatalf("%d entities, %v", len(page.Entities), err)
	}
	winner, _ := page.Entities[0].Get("B")
	for _, e := range page.Entities {
		if v, _ := e.Get("B"); v != winner {
			t.Fatalf("rows written by different batches: %v and %v", v, winner)
		}
	}
}
