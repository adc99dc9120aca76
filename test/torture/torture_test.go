package torture_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/cerulean-db/cerulean/internal/kv/postgres"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

var (
	cycles   = flag.Int("torture.cycles", 10, "kill -9 cycles")
	seedFlag = flag.Uint64("torture.seed", 0, "seed (0: random)")
)

const (
	blobWriters  = 4
	counterUsers = 4
	tableWriters = 3
	batchSize    = 10
	cosmosUsers  = 3
	cosmosBatchN = 5
)

type digest [32]byte

func hash(b []byte) digest { return sha256.Sum256(b) }

// blobHistory is one blob written by one worker, in order.
type blobHistory struct {
	attempts []digest
	acked    int // index of the last acknowledged attempt, -1 for none
}

type state struct {
	mu           sync.Mutex
	blobs        map[string]*blobHistory
	etags        map[string]digest // every ETag seen, with its content
	counterAcked int
	counterTried int
	tableAcked   map[string]int // partition -> last acknowledged generation
	tableTried   map[string]int
	queueAcked   map[string]bool // acknowledged puts
	queueTried   map[string]bool
	deleteAcked  map[string]bool // acknowledged deletes
	deleteTried  map[string]bool
	queueTotal   int // acknowledged puts over the whole run
	cosmosAcked  int // acknowledged If-Match increments of the Cosmos counter
	cosmosTried  int
	cosmosGenAck map[string]int // Cosmos batch partition -> last acknowledged generation
	cosmosGenTry map[string]int
	files        *fileState // Azure Files regions, under their own lock
	failures     []string
}

// sawETag records that etag named content; an ETag may never name two.
func (s *state) sawETag(etag string, d digest, where string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if prev, ok := s.etags[etag]; ok && prev != d {
		s.failures = append(s.failures, fmt.Sprintf("ETag %s named two different contents (%s)", etag, where))
	}
	s.etags[etag] = d
}

type clients struct {
	blob   *azblob.Client
	tables *aztables.Client
	queue  *azqueue.QueueClient
	cosmos *azcosmos.ContainerClient
	cdb    *azcosmos.Client
	files  *service.Client
}

func connect(t *testing.T, p *servertest.Process) clients {
	t.Helper()
	conn := p.ConnectionString
	opts := policy.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1, TryTimeout: 20 * time.Second}}
	b, err := azblob.NewClientFromConnectionString(conn, &azblob.ClientOptions{ClientOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	ts, err := aztables.NewServiceClientFromConnectionString(conn, &aztables.ClientOptions{ClientOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	qs, err := azqueue.NewServiceClientFromConnectionString(conn, &azqueue.ClientOptions{ClientOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	fs, err := service.NewClientFromConnectionString(conn, &service.ClientOptions{ClientOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	cred, err := azcosmos.NewKeyCredential(p.CosmosKey)
	if err != nil {
		t.Fatal(err)
	}
	cdb, err := azcosmos.NewClientWithKey(p.CosmosURL, cred, &azcosmos.ClientOptions{ClientOptions: opts})
	if err != nil {
		t.Fatal(err)
	}
	cc, err := cdb.NewContainer("torture", "items")
	if err != nil {
		t.Fatal(err)
	}
	return clients{blob: b, tables: ts.NewClient("torture"), queue: qs.NewQueueClient("torture"), cosmos: cc, cdb: cdb, files: fs}
}

func TestTorture(t *testing.T) {
	if testing.Short() {
		t.Skip("kill -9 torture")
	}
	seed := *seedFlag
	if seed == 0 {
		seed = rand.Uint64()
	}
	bin := servertest.BuildBinary(t)
	dir := t.TempDir()
	torture(t, seed, *cycles, 150*time.Millisecond, func() *servertest.Process { return servertest.StartProcess(t, bin, dir) },
		func(cycle int) { checkStore(t, dir, cycle) })
}

// TestTortureOnPostgres runs the torture on the shared-database engine:
// each cycle kills the front end mid-request and starts another on the
// same PostgreSQL schema. Acknowledged writes must all be there, as with
// the embedded store.
func TestTortureOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("kill -9 torture")
	}
	dsn := testkit.PostgresDSN(t)
	seed := *seedFlag
	if seed == 0 {
		seed = rand.Uint64()
	}
	bin := servertest.BuildBinary(t)
	schema := testkit.PostgresSchema()
	storeURL := withSearchPath(t, dsn, schema)
	start := func() *servertest.Process {
		return servertest.StartProcess(t, bin, t.TempDir(), "--store", storeURL)
	}
	check := func(cycle int) {
		store, err := postgres.Open(context.Background(), dsn, postgres.Options{Schema: schema, MaxConns: 4})
		if err != nil {
			t.Fatalf("after kill %d: open the store: %v", cycle, err)
		}
		checkInvariants(t, store, cycle)
	}
	// A PostgreSQL commit costs more than an embedded one: each cycle
	// runs longer so that it holds as much work.
	torture(t, seed, min(*cycles, 4), 1500*time.Millisecond, start, check)
}

// withSearchPath adds search_path=schema to a PostgreSQL URL.
func withSearchPath(t *testing.T, dsn, schema string) string {
	u, err := url.Parse(dsn)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}

// torture runs cycles of mixed load, each ended by kill -9 of the server
// start started, verifying after every restart what was acknowledged and
// calling check on the store.
// Each cycle's load runs for at least settle, plus up to 600 ms.
func torture(t *testing.T, seed uint64, cycles int, settle time.Duration, start func() *servertest.Process, check func(cycle int)) {
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 1))
	st := &state{blobs: map[string]*blobHistory{}, etags: map[string]digest{}, tableAcked: map[string]int{}, tableTried: map[string]int{},
		queueAcked: map[string]bool{}, queueTried: map[string]bool{}, deleteAcked: map[string]bool{}, deleteTried: map[string]bool{},
		cosmosGenAck: map[string]int{}, cosmosGenTry: map[string]int{}, files: newFileState()}

	for cycle := 0; cycle <= cycles; cycle++ {
		p := start()
		c := connect(t, p)
		if cycle == 0 {
			setup(t, c)
			setupFiles(t, c.files)
			if err := newSprocClient(p).create(context.Background()); err != nil {
				t.Fatal(err)
			}
		} else {
			verify(t, c, st, cycle)
			verifyFiles(t, c.files, st.files, cycle)
		}
		if cycle == cycles {
			p.Kill()
			check(cycle)
			break
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := range blobWriters {
			wg.Go(func() {
				blobWriter(ctx, c, st, fmt.Sprintf("blob-%d", w), rand.New(rand.NewPCG(seed, uint64(cycle*100+w))))
			})
		}
		for range counterUsers {
			wg.Go(func() { counterUser(ctx, c, st) })
		}
		for w := range tableWriters {
			wg.Go(func() { tableWriter(ctx, c, st, fmt.Sprintf("p%d", w)) })
		}
		for range cosmosUsers {
			wg.Go(func() { cosmosCounter(ctx, c, st) })
		}
		for w := range 2 {
			wg.Go(func() { cosmosBatcher(ctx, c, st, fmt.Sprintf("g%d", w)) })
		}
		sprocs := newSprocClient(p)
		for w := range 2 {
			wg.Go(func() { cosmosSprocRunner(ctx, sprocs, st, fmt.Sprintf("s%d", w)) })
		}
		startFileWriters(ctx, &wg, c.files, st, seed, cycle)
		wg.Go(func() { queueProducer(ctx, c, st, cycle) })
		wg.Go(func() { queueConsumer(ctx, c, st) })
		time.Sleep(settle + time.Duration(rng.IntN(450))*time.Millisecond)
		p.Kill()
		cancel()
		wg.Wait()
		st.mu.Lock()
		failures := st.failures
		st.mu.Unlock()
		if len(failures) > 0 {
			t.Fatalf("cycle %d (seed %d):\n%v", cycle, seed, failures)
		}
		check(cycle)
	}
	t.Logf("%d kill cycles survived; %d blobs, %d ETags, blob counter %d, Cosmos counter %d, %d stored procedure executions, %d queue messages acknowledged, %d file range writes acknowledged (in flight at a kill: %d applied, %d not)",
		cycles, len(st.blobs), len(st.etags), st.counterAcked, st.cosmosAcked, st.cosmosGenAck["s0"]+st.cosmosGenAck["s1"], st.queueTotal, st.files.acked, st.files.landed, st.files.dropped)
}

func setup(t *testing.T, c clients) {
	ctx := context.Background()
	if _, err := c.blob.CreateContainer(ctx, "torture", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.blob.UploadBuffer(ctx, "torture", "counter", []byte("0"), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.tables.CreateTable(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.queue.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.cdb.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "torture"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.cdb.NewDatabase("torture")
	props := azcosmos.ContainerProperties{ID: "items", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}
	if _, err := db.CreateContainer(ctx, props, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := c.cosmos.CreateItem(ctx, azcosmos.NewPartitionKeyString("c"), []byte(`{"id":"counter","pk":"c","n":0}`), nil); err != nil {
		t.Fatal(err)
	}
}

type cosmosDoc struct {
	ID  string `json:"id"`
	PK  string `json:"pk"`
	N   int    `json:"n"`
	Gen int    `json:"gen"`
}

// attempt counts a conditional increment in *tried before it is sent:
// the server may apply it even if it dies before answering.
func (st *state) attempt(tried *int) {
	st.mu.Lock()
	defer st.mu.Unlock()
	*tried++
}

// settleIncrement records the answer to a conditional increment counted by
// attempt: acknowledged on success, withdrawn on 412 (another writer got
// there first and nothing changed). It reports whether the writer goes
// on; any other failure means the server is down.
func (st *state) settleIncrement(err error, tried, acked *int) bool {
	st.mu.Lock()
	defer st.mu.Unlock()
	switch {
	case err == nil:
		*acked++
	case statusOf(err) == http.StatusPreconditionFailed:
		*tried--
	}
	return err == nil || statusOf(err) == http.StatusPreconditionFailed
}

// cosmosCounter increments a Cosmos item with read -> If-Match replace.
func cosmosCounter(ctx context.Context, c clients, st *state) {
	pk := azcosmos.NewPartitionKeyString("c")
	for ctx.Err() == nil {
		resp, err := c.cosmos.ReadItem(ctx, pk, "counter", nil)
		if err != nil {
			return
		}
		var d cosmosDoc
		_ = json.Unmarshal(resp.Value, &d)
		d.N++
		body, _ := json.Marshal(d)
		st.attempt(&st.cosmosTried)
		etag := resp.ETag
		_, err = c.cosmos.ReplaceItem(ctx, pk, "counter", body, &azcosmos.ItemOptions{IfMatchEtag: &etag})
		if !st.settleIncrement(err, &st.cosmosTried, &st.cosmosAcked) {
			return
		}
	}
}

// cosmosBatcher rewrites its partition's items in one transactional batch
// per generation.
func cosmosBatcher(ctx context.Context, c clients, st *state, pkv string) {
	pk := azcosmos.NewPartitionKeyString(pkv)
	for ctx.Err() == nil {
		st.mu.Lock()
		st.cosmosGenTry[pkv]++
		gen := st.cosmosGenTry[pkv]
		st.mu.Unlock()
		b := c.cosmos.NewTransactionalBatch(pk)
		for i := range cosmosBatchN {
			body, _ := json.Marshal(cosmosDoc{ID: fmt.Sprintf("i%d", i), PK: pkv, Gen: gen})
			b.UpsertItem(body, nil)
		}
		resp, err := c.cosmos.ExecuteTransactionalBatch(ctx, b, nil)
		if err != nil || !resp.Success {
			return
		}
		st.mu.Lock()
		st.cosmosGenAck[pkv] = gen
		st.mu.Unlock()
	}
}

func content(rng *rand.Rand) []byte {
	size := rng.IntN(64 << 10)
	if rng.IntN(10) == 0 {
		size = 4<<20 + rng.IntN(2<<20) // staged, not written inline
	}
	b := make([]byte, size)
	for i := 0; i < len(b); i += 8 {
		v := rng.Uint64()
		for j := 0; j < 8 && i+j < len(b); j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	return b
}

// blobWriter overwrites its own blob again and again, by Put Blob or by
// staged blocks and a block list.
func blobWriter(ctx context.Context, c clients, st *state, name string, rng *rand.Rand) {
	bb := c.blob.ServiceClient().NewContainerClient("torture").NewBlockBlobClient(name)
	for ctx.Err() == nil {
		data := content(rng)
		d := hash(data)
		st.mu.Lock()
		h := st.blobs[name]
		if h == nil {
			h = &blobHistory{acked: -1}
			st.blobs[name] = h
		}
		h.attempts = append(h.attempts, d)
		idx := len(h.attempts) - 1
		st.mu.Unlock()
		var etag *azcore.ETag
		var err error
		if rng.IntN(3) == 0 {
			var ids []string
			for i, part := 0, 0; i < len(data) || part == 0; part++ {
				end := min(len(data), i+1+rng.IntN(len(data)/2+1))
				id := fmt.Sprintf("%032d", part)
				if _, err = bb.StageBlock(ctx, id, nopCloser{bytes.NewReader(data[i:end])}, nil); err != nil {
					break
				}
				ids = append(ids, id)
				i = end
			}
			if err == nil {
				var r blockblob.CommitBlockListResponse
				r, err = bb.CommitBlockList(ctx, ids, nil)
				etag = r.ETag
			}
		} else {
			var r blockblob.UploadResponse
			r, err = bb.Upload(ctx, nopCloser{bytes.NewReader(data)}, nil)
			etag = r.ETag
		}
		if err != nil {
			return // the server is gone (or going): this attempt is unacknowledged
		}
		st.mu.Lock()
		h.acked = idx
		st.mu.Unlock()
		st.sawETag(string(*etag), d, name)
	}
}

type nopCloser struct{ *bytes.Reader }

func (nopCloser) Close() error { return nil }

func statusOf(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}

// counterUser increments the shared counter with read -> If-Match write.
func counterUser(ctx context.Context, c clients, st *state) {
	bb := c.blob.ServiceClient().NewContainerClient("torture").NewBlockBlobClient("counter")
	for ctx.Err() == nil {
		resp, err := bb.DownloadStream(ctx, nil)
		if err != nil {
			return
		}
		body, err := io.ReadAll(resp.Body)
		// The server is killed at random: a read that fails, body or
		// close, is just a read that did not happen.
		if err := errors.Join(err, resp.Body.Close()); err != nil {
			return
		}
		n, _ := strconv.Atoi(string(body))
		st.attempt(&st.counterTried)
		_, err = bb.Upload(ctx, nopCloser{bytes.NewReader([]byte(strconv.Itoa(n + 1)))}, &blockblob.UploadOptions{
			AccessConditions: &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: resp.ETag}}})
		if !st.settleIncrement(err, &st.counterTried, &st.counterAcked) {
			return
		}
	}
}

// tableWriter rewrites its partition's entities as one batch, each batch
// with a new generation.
func tableWriter(ctx context.Context, c clients, st *state, pk string) {
	for ctx.Err() == nil {
		st.mu.Lock()
		st.tableTried[pk]++
		gen := st.tableTried[pk]
		st.mu.Unlock()
		actions := make([]aztables.TransactionAction, batchSize)
		for i := range actions {
			e, _ := json.Marshal(map[string]any{"PartitionKey": pk, "RowKey": fmt.Sprintf("r%02d", i), "Gen": gen})
			actions[i] = aztables.TransactionAction{ActionType: aztables.TransactionTypeInsertReplace, Entity: e}
		}
		if _, err := c.tables.SubmitTransaction(ctx, actions, nil); err != nil {
			return
		}
		st.mu.Lock()
		st.tableAcked[pk] = gen
		st.mu.Unlock()
	}
}

func queueProducer(ctx context.Context, c clients, st *state, cycle int) {
	for i := 0; ctx.Err() == nil; i++ {
		text := fmt.Sprintf("m-%d-%d", cycle, i)
		st.mu.Lock()
		st.queueTried[text] = true
		st.mu.Unlock()
		if _, err := c.queue.EnqueueMessage(ctx, text, nil); err != nil {
			return
		}
		st.mu.Lock()
		st.queueAcked[text] = true
		st.queueTotal++
		st.mu.Unlock()
	}
}

func queueConsumer(ctx context.Context, c clients, st *state) {
	vis := int32(1)
	for ctx.Err() == nil {
		resp, err := c.queue.DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{NumberOfMessages: ptr(int32(8)), VisibilityTimeout: &vis})
		if err != nil {
			return
		}
		for _, m := range resp.Messages {
			st.mu.Lock()
			st.deleteTried[*m.MessageText] = true
			st.mu.Unlock()
			if _, err := c.queue.DeleteMessage(ctx, *m.MessageID, *m.PopReceipt, nil); err != nil {
				return
			}
			st.mu.Lock()
			st.deleteAcked[*m.MessageText] = true
			st.mu.Unlock()
		}
		if len(resp.Messages) == 0 {
			time.Sleep(5 * time.Millisecond)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// checkOneBatch checks a partition written only by batches of size rows
// that share a generation: after a kill it must hold one whole batch, no
// older than the last acknowledged and no newer than the last attempted.
// gens counts the partition's rows by generation; fail stops the test.
// It returns the surviving generation, and ok false when the partition is
// empty and nothing in it was ever acknowledged.
func checkOneBatch(fail func(string, ...any), partition string, gens map[int]int, size, acked, tried int) (gen int, ok bool) {
	if acked == 0 && len(gens) == 0 {
		return 0, false
	}
	if len(gens) != 1 {
		fail("%s holds a mix of batches: %v", partition, gens)
	}
	for g, count := range gens {
		if count != size || g < acked || g > tried {
			fail("%s: generation %d x%d, acknowledged %d, attempted %d", partition, g, count, acked, tried)
		}
		gen = g
	}
	return gen, true
}

// verify checks the restarted server against everything acknowledged.
func verify(t *testing.T, c clients, st *state, cycle int) {
	t.Helper()
	ctx := context.Background()
	st.mu.Lock()
	defer st.mu.Unlock()
	fail := func(format string, args ...any) {
		t.Fatalf("after kill %d: "+format, append([]any{cycle}, args...)...)
	}
	for name, h := range st.blobs {
		resp, err := c.blob.DownloadStream(ctx, "torture", name, nil)
		if statusOf(err) == http.StatusNotFound {
			if h.acked >= 0 {
				fail("blob %s is gone after an acknowledged write", name)
			}
			continue
		}
		if err != nil {
			fail("read %s: %v", name, err)
		}
		body, err := io.ReadAll(resp.Body)
		if err := errors.Join(err, resp.Body.Close()); err != nil {
			fail("read %s: %v", name, err)
		}
		d := hash(body)
		k := -1
		for i := max(h.acked, 0); i < len(h.attempts); i++ {
			if h.attempts[i] == d {
				k = i
			}
		}
		if k < 0 {
			fail("blob %s holds content that is neither its last acknowledged write nor a later attempt (%d bytes)", name, len(body))
		}
		if prev, ok := st.etags[string(*resp.ETag)]; ok && prev != d {
			fail("ETag %s of %s names different content than before", *resp.ETag, name)
		}
		st.etags[string(*resp.ETag)] = d
		// What survived is now the blob's history.
		h.attempts, h.acked = h.attempts[k:k+1], 0
	}

	resp, err := c.blob.DownloadStream(ctx, "torture", "counter", nil)
	if err != nil {
		fail("read counter: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err := errors.Join(err, resp.Body.Close()); err != nil {
		fail("read counter: %v", err)
	}
	n, _ := strconv.Atoi(string(body))
	if n < st.counterAcked || n > st.counterTried {
		fail("counter %d, acknowledged increments %d, attempted %d", n, st.counterAcked, st.counterTried)
	}
	st.counterAcked, st.counterTried = n, n

	for pk, tried := range st.tableTried {
		filter := fmt.Sprintf("PartitionKey eq '%s'", pk)
		pager := c.tables.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: &filter})
		gens := map[int]int{}
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				fail("query %s: %v", pk, err)
			}
			for _, e := range page.Entities {
				var m struct{ Gen int }
				_ = json.Unmarshal(e, &m)
				gens[m.Gen]++
			}
		}
		if g, ok := checkOneBatch(fail, "partition "+pk, gens, batchSize, st.tableAcked[pk], tried); ok {
			st.tableAcked[pk], st.tableTried[pk] = g, g
		}
	}

	cresp, err := c.cosmos.ReadItem(ctx, azcosmos.NewPartitionKeyString("c"), "counter", nil)
	if err != nil {
		fail("read Cosmos counter: %v", err)
	}
	var cd cosmosDoc
	_ = json.Unmarshal(cresp.Value, &cd)
	if cd.N < st.cosmosAcked || cd.N > st.cosmosTried {
		fail("Cosmos counter %d, acknowledged increments %d, attempted %d", cd.N, st.cosmosAcked, st.cosmosTried)
	}
	st.cosmosAcked, st.cosmosTried = cd.N, cd.N
	for pkv, tried := range st.cosmosGenTry {
		pager := c.cosmos.NewQueryItemsPager("SELECT * FROM c", azcosmos.NewPartitionKeyString(pkv), nil)
		gens := map[int]int{}
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				fail("query Cosmos %s: %v", pkv, err)
			}
			for _, it := range page.Items {
				var d cosmosDoc
				_ = json.Unmarshal(it, &d)
				gens[d.Gen]++
			}
		}
		if g, ok := checkOneBatch(fail, "Cosmos partition "+pkv, gens, cosmosBatchN, st.cosmosGenAck[pkv], tried); ok {
			st.cosmosGenAck[pkv], st.cosmosGenTry[pkv] = g, g
		}
	}

	// Messages a consumer held when the server died become visible again
	// after their 1 s visibility; then the queue is drained.
	time.Sleep(1100 * time.Millisecond)
	seen := map[string]bool{}
	vis := int32(60)
	for {
		resp, err := c.queue.DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{NumberOfMessages: ptr(int32(32)), VisibilityTimeout: &vis})
		if err != nil {
			fail("drain queue: %v", err)
		}
		if len(resp.Messages) == 0 {
			break
		}
		for _, m := range resp.Messages {
			text := *m.MessageText
			if st.deleteAcked[text] {
				fail("message %s came back after an acknowledged delete", text)
			}
			if !st.queueTried[text] {
				fail("message %s was never sent", text)
			}
			seen[text] = true
			if _, err := c.queue.DeleteMessage(ctx, *m.MessageID, *m.PopReceipt, nil); err != nil {
				fail("delete %s: %v", text, err)
			}
		}
	}
	for text := range st.queueAcked {
		if !seen[text] && !st.deleteTried[text] {
			fail("acknowledged message %s was lost", text)
		}
	}
	// Everything is accounted for; the next cycle starts from an empty queue.
	st.queueAcked, st.queueTried, st.deleteAcked, st.deleteTried = map[string]bool{}, map[string]bool{}, map[string]bool{}, map[string]bool{}
}
