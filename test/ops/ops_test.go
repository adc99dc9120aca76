package ops

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	fileservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"

	"github.com/cerulean-db/cerulean/internal/faults"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	b := testkit.ReadBody(t, resp.Body)
	return resp.StatusCode, string(b)
}

// scrape reads /metrics with Prometheus's own text parser.
func scrape(t *testing.T, env *servertest.Env) map[string]*dto.MetricFamily {
	t.Helper()
	status, body := get(t, env.AdminURL+"/metrics")
	if status != http.StatusOK {
		t.Fatalf("/metrics: %d %s", status, body)
	}
	var p expfmt.TextParser
	fams, err := p.TextToMetricFamilies(strings.NewReader(body))
	if err != nil {
		t.Fatalf("/metrics is not Prometheus text: %v", err)
	}
	return fams
}

// value is the value of family's series with labels (0 when absent).
func value(fams map[string]*dto.MetricFamily, family string, labels map[string]string) float64 {
	f := fams[family]
	if f == nil {
		return 0
	}
	var sum float64
next:
	for _, m := range f.Metric {
		have := map[string]string{}
		for _, l := range m.Label {
			have[l.GetName()] = l.GetValue()
		}
		for k, v := range labels {
			if have[k] != v {
				continue next
			}
		}
		switch {
		case m.Counter != nil:
			sum += m.Counter.GetValue()
		case m.Gauge != nil:
			sum += m.Gauge.GetValue()
		case m.Histogram != nil:
			sum += float64(m.Histogram.GetSampleCount())
		}
	}
	return sum
}

func blobClient(t *testing.T, env *servertest.Env) *azblob.Client {
	t.Helper()
	c, err := azblob.NewClientFromConnectionString(env.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestHealthAndReadiness(t *testing.T) {
	env := servertest.Start(t)
	if status, body := get(t, env.AdminURL+"/healthz"); status != http.StatusOK {
		t.Fatalf("/healthz: %d %s", status, body)
	}
	if status, body := get(t, env.AdminURL+"/readyz"); status != http.StatusOK {
		t.Fatalf("/readyz: %d %s", status, body)
	}
	if status, _ := get(t, env.AdminURL+"/debug/pprof/"); status != http.StatusOK {
		t.Fatalf("/debug/pprof/: %d", status)
	}
	if err := env.Store.Close(); err != nil {
		t.Fatal(err)
	}
	status, body := get(t, env.AdminURL+"/readyz")
	if status != http.StatusServiceUnavailable || !strings.Contains(body, "closed") {
		t.Fatalf("/readyz with the store closed: %d %q, want 503 naming the closed store", status, body)
	}
	if status, _ := get(t, env.AdminURL+"/healthz"); status != http.StatusOK {
		t.Fatalf("/healthz with the store closed: %d, want 200 (the process still answers)", status)
	}
}

func TestMetricsMoveWithTraffic(t *testing.T) {
	env := servertest.Start(t)
	ctx := context.Background()
	created := map[string]string{"service": "blob", "operation": "CreateContainer", "status": "201"}
	conflict := map[string]string{"service": "blob", "operation": "CreateContainer", "status": "409"}
	before := scrape(t, env)
	if v := value(before, "cerulean_requests_total", created); v != 0 {
		t.Fatalf("CreateContainer counted %v before any request", v)
	}
	c := blobClient(t, env)
	for i := range 3 {
		if _, err := c.CreateContainer(ctx, fmt.Sprintf("con%d", i), nil); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := c.CreateContainer(ctx, "con0", nil); err == nil {
		t.Fatal("creating con0 twice succeeded")
	}
	if _, err := c.UploadBuffer(ctx, "con0", "b", []byte("hello"), nil); err != nil {
		t.Fatal(err)
	}
	after := scrape(t, env)
	for _, tc := range []struct {
		labels map[string]string
		want   float64
	}{{created, 3}, {conflict, 1}, {map[string]string{"service": "blob", "operation": "PutBlob", "status": "201"}, 1}} {
		if got := value(after, "cerulean_requests_total", tc.labels); got != tc.want {
			t.Errorf("cerulean_requests_total%v = %v, want %v", tc.labels, got, tc.want)
		}
	}
	if got := value(after, "cerulean_request_duration_seconds", map[string]string{"service": "blob", "operation": "CreateContainer"}); got != 4 {
		t.Errorf("CreateContainer latency samples = %v, want 4", got)
	}
	if got := value(after, "cerulean_kv_commit_duration_seconds", nil); got < 4 {
		t.Errorf("kv commits observed = %v, want at least the 4 writes", got)
	}
	if got := value(after, "cerulean_open_connections", map[string]string{"service": "blob"}); got < 1 {
		t.Errorf("open blob connections = %v, want the SDK's", got)
	}
	for _, family := range []string{"cerulean_kv_conflicts_total", "cerulean_kv_retries_total", "cerulean_kv_sync_batch_commits",
		"go_goroutines", "process_resident_memory_bytes"} {
		if _, ok := after[family]; !ok {
			t.Errorf("family %s missing", family)
		}
	}
}

// TestStoredBytes: what the store holds per service — bytes, records and
// objects (blobs, messages, entities, files and directories, items,
// documents) — is on /metrics as soon as it is written.
func TestStoredBytes(t *testing.T) {
	env := servertest.Start(t)
	ctx := context.Background()
	c := blobClient(t, env)
	must(t, err2(c.CreateContainer(ctx, "sized", nil)))
	must(t, err2(c.UploadBuffer(ctx, "sized", "b", bytes.Repeat([]byte("x"), 10000), nil)))
	must(t, err2(c.UploadBuffer(ctx, "sized", "big", bytes.Repeat([]byte("y"), 5<<20), nil)))
	queues, err := azqueue.NewServiceClientFromConnectionString(env.ConnectionString, nil)
	must(t, err)
	must(t, err2(queues.CreateQueue(ctx, "sized", nil)))
	for range 3 {
		must(t, err2(queues.NewQueueClient("sized").EnqueueMessage(ctx, "m", nil)))
	}
	tables, err := aztables.NewServiceClientFromConnectionString(env.ConnectionString, nil)
	must(t, err)
	must(t, err2(tables.CreateTable(ctx, "sized", nil)))
	tc := tables.NewClient("sized")
	must(t, err2(tc.AddEntity(ctx, []byte(`{"PartitionKey":"p","RowKey":"small"}`), nil)))
	large := fmt.Sprintf(`{"PartitionKey":"p","RowKey":"large","A":%q,"B":%q,"C":%q}`,
		strings.Repeat("a", 30000), strings.Repeat("b", 30000), strings.Repeat("c", 30000))
	must(t, err2(tc.AddEntity(ctx, []byte(large), nil)))
	shares, err := fileservice.NewClientFromConnectionString(env.ConnectionString, nil)
	must(t, err)
	share := shares.NewShareClient("sized")
	must(t, err2(share.Create(ctx, nil)))
	must(t, err2(share.NewRootDirectoryClient().NewSubdirectoryClient("dir").Create(ctx, nil)))
	must(t, err2(share.NewRootDirectoryClient().NewFileClient("f.txt").Create(ctx, 10, nil)))
	cred, _ := azcosmos.NewKeyCredential(env.CosmosKey)
	cosmos, err := azcosmos.NewClientWithKey(env.CosmosURL, cred, nil)
	must(t, err)
	must(t, err2(cosmos.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil)))
	db, _ := cosmos.NewDatabase("db")
	must(t, err2(db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil)))
	items, _ := db.NewContainer("c")
	for i, size := range []int{10, 500000} { // the second is stored in pieces
		item := fmt.Appendf(nil, `{"id":"i%d","pk":"p","pad":%q}`, i, strings.Repeat("z", size))
		must(t, err2(items.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), item, nil)))
	}
	searchPut(t, env, "/indexes/sized", `{"name":"sized","fields":[{"name":"id","type":"Edm.String","key":true},{"name":"t","type":"Edm.String","searchable":true}]}`)
	searchPost(t, env, "/indexes/sized/docs/index", `{"value":[{"@search.action":"upload","id":"1","t":"one"},{"@search.action":"upload","id":"2","t":"two"}]}`)

	want := map[string]float64{"blob": 2, "queue": 3, "table": 2, "file": 2, "cosmos": 2, "search": 2}
	deadline := time.Now().Add(10 * time.Second)
	for {
		fams := scrape(t, env)
		if value(fams, "cerulean_stored_records", map[string]string{"service": "blob"}) > 0 {
			for service, n := range want {
				labels := map[string]string{"service": service}
				if got := value(fams, "cerulean_stored_objects", labels); got != n {
					t.Errorf("%s objects = %v, want %v", service, got, n)
				}
				records := value(fams, "cerulean_stored_records", labels)
				if records < n {
					t.Errorf("%s: %v records for %v objects", service, records, n)
				}
				// The large blob, entity and item span several records
				// each: only their first is an object.
				if (service == "blob" || service == "table" || service == "cosmos") && records < n+2 {
					t.Errorf("%s: %v records for %v objects, want the large ones' pieces among them", service, records, n)
				}
			}
			if got := value(fams, "cerulean_stored_bytes", map[string]string{"service": "blob"}); got < 5<<20 {
				t.Errorf("blob bytes = %v, want the 5 MiB uploaded counted", got)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the stored data was never counted")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// err2 keeps the error of a call that also returns a response.
func err2[T any](_ T, err error) error { return err }

func searchPut(t *testing.T, env *servertest.Env, path, body string) {
	searchDo(t, env, http.MethodPut, path, body)
}

func searchPost(t *testing.T, env *servertest.Env, path, body string) {
	searchDo(t, env, http.MethodPost, path, body)
}

func searchDo(t *testing.T, env *servertest.Env, method, path, body string) {
	t.Helper()
	req, err := http.NewRequest(method, env.SearchURL+path+"?api-version=2024-07-01", strings.NewReader(body))
	must(t, err)
	req.Header.Set("api-key", env.SearchAdminKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	must(t, err)
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, path, resp.StatusCode, b)
	}
}

// TestClockAdvancesOverHTTP: POST /clock/advance moves the clock every
// service reads — a blob written after a 16 s advance is stamped 16 s
// ahead of the wall clock, and the public Now agrees — and the clock
// never moves back. (What a moved clock does to a lease, ceruleantest's
// TestClockExpiresALease shows through the public AdvanceClock.)
func TestClockAdvancesOverHTTP(t *testing.T) {
	env := servertest.Start(t, servertest.WithTestClock())
	ctx := context.Background()
	before := time.Now()
	resp, err := http.Post(env.AdminURL+"/clock/advance?by=16s", "", nil)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), `"offset":"16s"`) {
		t.Fatalf("advance: %d %s", resp.StatusCode, b)
	}
	if now := env.Embedded.Now(); now.Sub(before) < 16*time.Second {
		t.Errorf("the services' clock reads %v, %v after the advance began; want 16 s ahead", now, now.Sub(before))
	}
	c := blobClient(t, env)
	if _, err := c.CreateContainer(ctx, "clock", nil); err != nil {
		t.Fatal(err)
	}
	up, err := c.UploadBuffer(ctx, "clock", "b", []byte("x"), nil)
	if err != nil {
		t.Fatal(err)
	}
	if ahead := up.LastModified.Sub(before); ahead < 15*time.Second {
		t.Errorf("a blob written after the advance is stamped %v ahead of the wall clock; want 16 s", ahead)
	}
	if resp, err := http.Post(env.AdminURL+"/clock/advance?by=-1s", "", nil); err != nil {
		t.Fatal(err)
	} else if _ = resp.Body.Close(); resp.StatusCode != http.StatusBadRequest {
		t.Errorf("moving the clock back: %d, want 400", resp.StatusCode)
	}
}

// TestDefaultRetryRidesThroughInjectedFaults: with half the Put Blob
// requests answered 503 ServerBusy, the Go SDK's default retry policy
// still completes 100 uploads, and /metrics counts every injected fault.
func TestDefaultRetryRidesThroughInjectedFaults(t *testing.T) {
	rules, err := faults.Parse("blob/PutBlob=busy@50%;retry-after=5ms")
	if err != nil {
		t.Fatal(err)
	}
	env := servertest.Start(t, servertest.WithFaults(rules...))
	ctx := context.Background()
	c := blobClient(t, env)
	if _, err := c.CreateContainer(ctx, "retries", nil); err != nil {
		t.Fatal(err)
	}
	for i := range 100 {
		body := bytes.Repeat([]byte{byte(i)}, 100+i)
		if _, err := c.UploadBuffer(ctx, "retries", fmt.Sprintf("b%03d", i), body, nil); err != nil {
			t.Fatalf("upload %d: %v", i, err)
		}
	}
	fams := scrape(t, env)
	injected := value(fams, "cerulean_injected_faults_total", map[string]string{"service": "blob", "operation": "PutBlob", "kind": "busy"})
	busy := value(fams, "cerulean_requests_total", map[string]string{"service": "blob", "operation": "PutBlob", "status": "503"})
	ok := value(fams, "cerulean_requests_total", map[string]string{"service": "blob", "operation": "PutBlob", "status": "201"})
	if ok != 100 || injected != busy || injected < 99 {
		t.Errorf("PutBlob: %v created, %v answered 503, %v faults counted; want 100 created and every second request (99) a counted fault", ok, busy, injected)
	}
	// Every blob holds what was uploaded.
	for i := range 100 {
		resp, err := c.DownloadStream(ctx, "retries", fmt.Sprintf("b%03d", i), nil)
		if err != nil {
			t.Fatal(err)
		}
		got, err := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err != nil || !bytes.Equal(got, bytes.Repeat([]byte{byte(i)}, 100+i)) {
			t.Fatalf("blob %d: %d bytes, err %v", i, len(got), err)
		}
	}
	// Off again through the admin port.
	req, _ := http.NewRequest(http.MethodDelete, env.AdminURL+"/faults", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if len(env.Server.Faults().Rules()) != 0 {
		t.Fatal("DELETE /faults left rules in force")
	}
}

// TestCosmosThrottlingAndReset: Cosmos DB's 429 carries
// x-ms-retry-after-ms, which the Cosmos SDK waits out; a reset drops the
// connection with no answer.
func TestCosmosThrottlingAndReset(t *testing.T) {
	env := servertest.Start(t, servertest.WithFaults())
	ctx := context.Background()
	cred, err := azcosmos.NewKeyCredential(env.CosmosKey)
	if err != nil {
		t.Fatal(err)
	}
	client, err := azcosmos.NewClientWithKey(env.CosmosURL, cred, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("db")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
	put := func(spec string) {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPut, env.AdminURL+"/faults", strings.NewReader(spec))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("PUT /faults %q: %d %s", spec, resp.StatusCode, b)
		}
	}
	put("cosmos/CreateDocument=throttle@50%;retry-after=5ms")
	cont, _ := db.NewContainer("c")
	for i := range 20 {
		item := fmt.Appendf(nil, `{"id":"i%d","pk":"p"}`, i)
		if _, err := cont.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), item, nil); err != nil {
			t.Fatalf("create %d: %v", i, err)
		}
	}
	fams := scrape(t, env)
	if got := value(fams, "cerulean_requests_total", map[string]string{"service": "cosmos", "operation": "CreateDocument", "status": "429"}); got < 19 {
		t.Errorf("CreateDocument answered 429 %v times, want 19", got)
	}

	// Without retries the throttling answer is visible as Azure sends it.
	noRetry, err := azcosmos.NewClientWithKey(env.CosmosURL, cred, &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}})
	if err != nil {
		t.Fatal(err)
	}
	put("cosmos/CreateDocument=throttle@100%")
	nc, _ := noRetry.NewContainer("db", "c")
	_, err = nc.CreateItem(ctx, azcosmos.NewPartitionKeyString("p"), []byte(`{"id":"x","pk":"p"}`), nil)
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusTooManyRequests || re.RawResponse.Header.Get("x-ms-retry-after-ms") != "100" {
		t.Fatalf("throttled create: %v, want 429 with x-ms-retry-after-ms 100", err)
	}

	put("blob=reset@100%")
	resp, err := http.Get(strings.TrimSuffix(env.BlobURL, "/") + "?comp=list")
	if err == nil {
		_ = resp.Body.Close()
		t.Fatalf("a reset request was answered %d", resp.StatusCode)
	}
	fams = scrape(t, env)
	if got := value(fams, "cerulean_requests_total", map[string]string{"service": "blob", "status": "aborted"}); got != 1 {
		t.Errorf("aborted blob requests counted %v, want 1", got)
	}
	if got := value(fams, "cerulean_injected_faults_total", map[string]string{"service": "blob", "kind": "reset"}); got != 1 {
		t.Errorf("reset faults counted %v, want 1", got)
	}
}
