package indexer

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/blob"
	"github.com/cerulean-db/cerulean/internal/cosmos"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/search"
	"github.com/cerulean-db/cerulean/internal/table"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// Action is one index action of a run: "mergeOrUpload" with the whole
// document, or "delete" with only its key field.
type Action struct {
	Action string
	Doc    map[string]any
}

// ItemResult is the outcome of one action, as the document store reports
// it.
type ItemResult struct {
	Key          string
	Status       bool
	StatusCode   int
	ErrorMessage string
}

// Sink writes a batch of actions to an index and reports each one's
// outcome; an error means the batch as a whole was not written. Numbers
// in documents are json.Number, as the source wrote them.
type Sink func(ctx context.Context, index string, actions []Action) ([]ItemResult, error)

// Config is what an Engine needs. The domain Services are those of the
// same server; a nil one makes its data source type fail at run time.
type Config struct {
	Store  kv.Store
	Search *search.Service
	Blob   *blob.Service
	Table  *table.Service
	Cosmos *cosmos.Service
	// Accounts are the storage accounts connection strings must name.
	Accounts *azauth.Accounts
	// CosmosKeys are the Cosmos DB master keys (base64); nil means
	// cosmos.EmulatorKey.
	CosmosKeys []string
	Sink       Sink
	// Now is the clock; nil means time.Now.
	Now    func() time.Time
	Logger *slog.Logger
	// Owner names this engine in run claims; empty means a random name.
	Owner string
	// ClaimTTL is how long a run holds its indexer without renewing (it
	// renews after every batch); zero means DefaultClaimTTL.
	ClaimTTL time.Duration
}

// DefaultClaimTTL is how long a silent run keeps its claim: a process
// that stopped mid-run frees its indexers after this long.
const DefaultClaimTTL = 5 * time.Minute

// Engine runs indexers. It is safe for concurrent use; several Engines
// (in one process or many) may share a store.
type Engine struct {
	cfg        Config
	cosmosKeys [][]byte
	owner      string
	now        func() time.Time
	log        *slog.Logger
	ttl        time.Duration

	// base ends background runs on Close; wg waits for them.
	base   context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

// New returns an Engine. It fails on a Cosmos key that is not base64.
func New(cfg Config) (*Engine, error) {
	e := &Engine{cfg: cfg, owner: cfg.Owner, now: cfg.Now, log: cfg.Logger, ttl: cfg.ClaimTTL}
	if e.now == nil {
		e.now = time.Now
	}
	if e.log == nil {
		e.log = slog.Default()
	}
	if e.ttl <= 0 {
		e.ttl = DefaultClaimTTL
	}
	if e.owner == "" {
		b := make([]byte, 9)
		_, _ = rand.Read(b)
		e.owner = base64.RawURLEncoding.EncodeToString(b)
	}
	keys := cfg.CosmosKeys
	if len(keys) == 0 {
		keys = []string{cosmos.EmulatorKey}
	}
	for _, k := range keys {
		b, err := base64.StdEncoding.DecodeString(k)
		if err != nil {
			return nil, fmt.Errorf("indexer: cosmos key: %w", err)
		}
		e.cosmosKeys = append(e.cosmosKeys, b)
	}
	e.base, e.cancel = context.WithCancel(context.Background())
	return e, nil
}

// Close stops background runs (each records a failed result) and waits
// for them.
func (e *Engine) Close() {
	e.cancel()
	e.wg.Wait()
}

// Wait returns once every run Start began before the call has ended. A
// caller that sends requests one at a time (the replay of recorded
// traffic) calls it between them, so that what a request finds does not
// depend on how fast a background run went.
func (e *Engine) Wait() { e.wg.Wait() }

// ErrInProgress is the answer to running an indexer that is running.
var ErrInProgress = &search.Error{Status: http.StatusConflict,
	Message: "Another indexer invocation is currently in progress; concurrent invocations are not allowed."}

// errNotDue: a scheduled claim found the indexer not due (someone else
// ran it).
var errNotDue = errors.New("indexer not due")

// errClaimLost: the run's claim expired and another run took the indexer.
var errClaimLost = errors.New("the indexer run lost its claim: it did not renew it in time and another run took over")

func (e *Engine) clock() time.Time { return e.now().UTC() }

// Run runs the indexer now and returns its result. A run in progress
// elsewhere is ErrInProgress; a missing indexer is search's 404.
func (e *Engine) Run(ctx context.Context, name string) (*ExecutionResult, error) {
	if _, err := e.cfg.Search.Get(ctx, search.Indexers, name); err != nil {
		return nil, err
	}
	c, err := e.claim(ctx, name, nil)
	if err != nil {
		return nil, err
	}
	return e.execute(ctx, name, c), nil
}

// Start claims the indexer and runs it in the background, as Run
// Indexer's 202 promises; the claim is taken before Start returns, so a
// second Start (here or in another process) is ErrInProgress.
func (e *Engine) Start(ctx context.Context, name string) error {
	if _, err := e.cfg.Search.Get(ctx, search.Indexers, name); err != nil {
		return err
	}
	c, err := e.claim(ctx, name, nil)
	if err != nil {
		return err
	}
	e.wg.Go(func() { e.execute(e.base, name, c) })
	return nil
}

// claim takes the indexer for a run in one transaction. due, when set,
// decides under the same transaction whether a scheduled run is due and
// updates the schedule state.
func (e *Engine) claim(ctx context.Context, name string, due func(st *state, now time.Time) bool) (*claim, error) {
	var c *claim
	err := e.cfg.Store.Update(ctx, func(tx kv.Txn) error {
		// The definition is read here, so that a deletion of the
		// indexer conflicts with the claim instead of leaving it state.
		if _, err := e.cfg.Search.GetIn(tx, search.Indexers, name); err != nil {
			return err
		}
		st, err := loadState(tx, name)
		if err != nil {
			return err
		}
		now := e.clock()
		if st.Claim.held(now) {
			return ErrInProgress
		}
		if due != nil && !due(st, now) {
			return errNotDue
		}
		if st.Claim != nil && st.Current != nil {
			// Its process stopped mid-run: record that run as failed.
			st.Current.fail(now, "The indexer run was interrupted: the process running it stopped.")
			if err := appendHistory(tx, name, st.Claim.Run, st.Current); err != nil {
				return err
			}
		}
		st.Runs++
		c = &claim{Owner: e.owner, Run: st.Runs, Epoch: st.Epoch, Until: now.Add(e.ttl), Token: tx.Version()}
		st.Claim = c
		st.LastStart = &now
		st.Current = &ExecutionResult{Status: "inProgress", StartTime: now, Errors: []ItemError{}, Warnings: []ItemWarning{},
			InitialTrackingState: trackingState(st.HasMark, st.Mark)}
		return record.Store(tx, stateKey(name), st)
	})
	return c, err
}

// Reset forgets the indexer's high-water mark, so its next run indexes
// everything again, and records a "reset" result.
func (e *Engine) Reset(ctx context.Context, name string) error {
	return e.cfg.Store.Update(ctx, func(tx kv.Txn) error {
		// Read in the transaction, as a claim reads it: a deleted
		// indexer is not given state again.
		if _, err := e.cfg.Search.GetIn(tx, search.Indexers, name); err != nil {
			return err
		}
		st, err := loadState(tx, name)
		if err != nil {
			return err
		}
		now := e.clock()
		st.HasMark, st.Mark, st.Tie = false, 0, nil
		st.Epoch++
		st.Runs++
		r := &ExecutionResult{Status: "reset", StartTime: now, EndTime: &now, Errors: []ItemError{}, Warnings: []ItemWarning{}}
		if err := appendHistory(tx, name, st.Runs, r); err != nil {
			return err
		}
		return record.Store(tx, stateKey(name), st)
	})
}

// Status reports the indexer's status and execution history, newest
// first, the run in progress included.
func (e *Engine) Status(ctx context.Context, name string) (*Status, error) {
	if _, err := e.cfg.Search.Get(ctx, search.Indexers, name); err != nil {
		return nil, err
	}
	out := &Status{Name: name, Status: "running", ExecutionHistory: []ExecutionResult{},
		Limits: Limits{MaxRunTime: "PT2H", MaxDocumentExtractionSize: maxBlobBytes, MaxDocumentContentCharactersToExtract: maxBlobBytes}}
	err := e.cfg.Store.View(ctx, func(rd kv.Reader) error {
		st, err := loadState(rd, name)
		if err != nil {
			return err
		}
		hist, err := loadHistory(rd, name)
		if err != nil {
			return err
		}
		out.ExecutionHistory = out.ExecutionHistory[:0]
		if st.Current != nil {
			cur := *st.Current
			if !st.Claim.held(e.clock()) {
				cur.fail(st.Claim.Until, "The indexer run was interrupted: the process running it stopped.")
			}
			out.ExecutionHistory = append(out.ExecutionHistory, cur)
		}
		out.ExecutionHistory = append(out.ExecutionHistory, hist...)
		if len(out.ExecutionHistory) > maxHistory {
			out.ExecutionHistory = out.ExecutionHistory[:maxHistory]
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(out.ExecutionHistory) > 0 {
		last := out.ExecutionHistory[0]
		out.LastResult = &last
	}
	return out, nil
}

// CheckDataSource validates a data source definition (as stored, with
// its connection string) against this server: the connection string
// names an account and key it has. A failure is a 400 *search.Error in
// the service's shape; the handler may call it on data source and
// indexer create and update, as Azure checks the connection then.
func (e *Engine) CheckDataSource(def *search.DataSource) error {
	if err := e.checkDataSource(def); err != nil {
		return &search.Error{Status: http.StatusBadRequest,
			Message: "The request is invalid. Details: dataSource.credentials.connectionString : " + sentence(err.Error())}
	}
	return nil
}

func (e *Engine) checkDataSource(def *search.DataSource) error {
	ds, err := parseDataSource(def)
	if err != nil {
		return err
	}
	switch ds.typ {
	case "azureblob", "azuretable":
		_, err = parseStorage(ds.conn, e.cfg.Accounts)
	case "cosmosdb":
		_, err = parseCosmos(ds.conn, e.cosmosKeys)
	default:
		err = fmt.Errorf("the data source type '%s' is not supported by cerulean", ds.typ)
	}
	return err
}

// plan is everything a run needs, read from the definitions.
type plan struct {
	index      *search.Index
	src        source
	mapper     *mapper
	skills     []skill
	outputs    []fieldMapping
	batchSize  int
	maxFailed  int
	maxInBatch int
}

// intOf is an indexer parameter, or def when it is not set.
func intOf(n *json.Number, def int) int {
	if n == nil {
		return def
	}
	v, err := n.Int64()
	if err != nil {
		return def
	}
	return int(v)
}

func (e *Engine) plan(ctx context.Context, name string) (*plan, error) {
	ixr, err := e.cfg.Search.Get(ctx, search.Indexers, name)
	if err != nil {
		return nil, err
	}
	def, ok := ixr.Definition.(*search.Indexer)
	if !ok {
		return nil, fmt.Errorf("the indexer definition is a %T", ixr.Definition)
	}
	dsName, indexName := def.DataSourceName, def.TargetIndexName
	dsr, err := e.cfg.Search.Get(ctx, search.DataSources, dsName)
	if err != nil {
		return nil, fmt.Errorf("the data source '%s' could not be read: %w", dsName, err)
	}
	ixDef, err := e.cfg.Search.Get(ctx, search.Indexes, indexName)
	if err != nil {
		return nil, fmt.Errorf("the index '%s' could not be read: %w", indexName, err)
	}
	p := &plan{}
	if p.index, err = search.ParseIndex(ixDef.Definition); err != nil {
		return nil, fmt.Errorf("the index '%s' could not be read: %w", indexName, err)
	}
	ds, err := parseDataSource(dsr.Definition)
	if err != nil {
		return nil, err
	}
	params := def.Parameters
	if params == nil {
		params = &search.IndexerParameters{}
	}
	config := params.Configuration
	p.maxFailed = intOf(params.MaxFailedItems, 0)
	p.maxInBatch = intOf(params.MaxFailedItemsPerBatch, 0)
	switch ds.typ {
	case "azureblob":
		p.batchSize = intOf(params.BatchSize, 10)
		if e.cfg.Blob == nil {
			return nil, errors.New("this server has no Blob service")
		}
		target, err := parseStorage(ds.conn, e.cfg.Accounts)
		if err != nil {
			return nil, err
		}
		bc, err := parseBlobConfig(config)
		if err != nil {
			return nil, err
		}
		prefix := strings.TrimPrefix(ds.query, "/")
		if prefix != "" && !strings.HasSuffix(prefix, "/") {
			prefix += "/"
		}
		p.src = &blobSource{svc: e.cfg.Blob, target: target, container: ds.container, prefix: prefix, cfg: bc, deletion: ds.deletion}
	case "azuretable":
		p.batchSize = intOf(params.BatchSize, 1000)
		if e.cfg.Table == nil {
			return nil, errors.New("this server has no Table service")
		}
		target, err := parseStorage(ds.conn, e.cfg.Accounts)
		if err != nil {
			return nil, err
		}
		var filter *odata.Filter
		if ds.query != "" {
			if filter, err = odata.Parse(ds.query); err != nil {
				return nil, fmt.Errorf("the data source's query is not a table filter: %w", err)
			}
		}
		p.src = &tableSource{svc: e.cfg.Table, account: target.account, table: ds.container, filter: filter, deletion: ds.deletion}
	case "cosmosdb":
		p.batchSize = intOf(params.BatchSize, 1000)
		if e.cfg.Cosmos == nil {
			return nil, errors.New("this server has no Cosmos DB service")
		}
		db, err := parseCosmos(ds.conn, e.cosmosKeys)
		if err != nil {
			return nil, err
		}
		p.src = &cosmosSource{svc: e.cfg.Cosmos, db: db, coll: ds.container, query: ds.query, changeColumn: ds.changeColumn, deletion: ds.deletion}
	default:
		return nil, fmt.Errorf("the data source type '%s' is not supported by cerulean", ds.typ)
	}
	if p.batchSize < 1 {
		p.batchSize = 1
	}
	mappings, err := parseMappings(def.FieldMappings, p.index, "fieldMappings")
	if err != nil {
		return nil, err
	}
	p.mapper = newMapper(p.index, mappings)
	if def.SkillsetName != nil && *def.SkillsetName != "" {
		ss := *def.SkillsetName
		res, err := e.cfg.Search.Get(ctx, search.Skillsets, ss)
		if err != nil {
			return nil, fmt.Errorf("the skillset '%s' could not be read: %w", ss, err)
		}
		if p.skills, err = parseSkillset(res.Definition); err != nil {
			return nil, err
		}
		if p.outputs, err = parseMappings(def.OutputFieldMappings, p.index, "outputFieldMappings"); err != nil {
			return nil, err
		}
	}
	return p, nil
}

// exceeded reports whether failed items pass a limit (-1 is unlimited).
func exceeded(failed, limit int) bool { return limit >= 0 && failed > limit }

// run is one execution in progress.
type run struct {
	e      *Engine
	name   string
	claim  *claim
	plan   *plan
	result *ExecutionResult
	// mark is the high-water mark saved so far.
	hasMark bool
	mark    int64
	tie     map[string]bool
}

// execute runs a claimed indexer to the end and records its result.
func (e *Engine) execute(ctx context.Context, name string, c *claim) *ExecutionResult {
	r := &run{e: e, name: name, claim: c}
	var since *int64
	err := e.cfg.Store.View(ctx, func(rd kv.Reader) error {
		st, err := loadState(rd, name)
		if err != nil {
			return err
		}
		if st.Current != nil {
			cur := *st.Current
			r.result = &cur
		}
		if st.HasMark && st.Epoch == c.Epoch {
			r.hasMark, r.mark = true, st.Mark
			r.tie = map[string]bool{}
			for _, id := range st.Tie {
				r.tie[id] = true
			}
			m := st.Mark
			since = &m
		}
		return nil
	})
	if r.result == nil {
		r.result = &ExecutionResult{Status: "inProgress", StartTime: e.clock(), Errors: []ItemError{}, Warnings: []ItemWarning{}}
	}
	if err == nil {
		r.plan, err = e.plan(ctx, name)
	}
	if err == nil {
		err = r.index(ctx, since)
	}
	now := e.clock()
	switch {
	case err == nil:
		r.result.Status = "success"
		r.result.EndTime = &now
	case ctx.Err() != nil:
		r.result.fail(now, "The indexer run was stopped: the server is shutting down.")
	default:
		r.result.fail(now, err.Error())
	}
	r.result.FinalTrackingState = trackingState(r.hasMark, r.mark)
	if ferr := r.finish(context.WithoutCancel(ctx)); ferr != nil {
		e.log.Error("indexer: record the result of a run", "indexer", name, "err", ferr)
	}
	return r.result
}

// index reads the changes and writes them batch by batch, as the source
// delivers them (in mark order), so a large source is never held whole.
func (r *run) index(ctx context.Context, since *int64) error {
	var (
		batch       []Action
		keys        []string
		done        []item
		batchFailed int
	)
	flush := func() error {
		failed, err := r.write(ctx, batch, keys)
		if err != nil {
			return err
		}
		batchFailed += failed
		if exceeded(batchFailed, r.plan.maxInBatch) || exceeded(r.result.ItemsFailed, r.plan.maxFailed) {
			return fmt.Errorf("the indexer stopped after %d failed items: the limits are %d failed items per run (maxFailedItems) and %d per batch (maxFailedItemsPerBatch)",
				r.result.ItemsFailed, r.plan.maxFailed, r.plan.maxInBatch)
		}
		r.advance(done)
		if err := r.renew(ctx); err != nil {
			return err
		}
		batch, keys, done, batchFailed = batch[:0], keys[:0], done[:0], 0
		return nil
	}
	err := r.plan.src.read(ctx, since, func(it item) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		// The mark's own instant is read again; what was indexed at it is
		// skipped.
		if since != nil && it.hasMark && it.mark == *since && it.ident != "" && r.tie[it.ident] {
			return nil
		}
		r.result.ItemsProcessed++
		for _, w := range it.warnings {
			r.result.addWarning(it.name, w)
		}
		act, key, err := r.action(it)
		if err != nil {
			r.result.addError(key, err.Error(), http.StatusBadRequest)
			batchFailed++
			if exceeded(batchFailed, r.plan.maxInBatch) || exceeded(r.result.ItemsFailed, r.plan.maxFailed) {
				done = append(done, it)
				return flush()
			}
		} else {
			batch = append(batch, act)
			keys = append(keys, key)
		}
		done = append(done, it)
		if len(batch) < r.plan.batchSize {
			return nil
		}
		return flush()
	})
	if err != nil {
		return err
	}
	if len(done) > 0 {
		return flush()
	}
	return nil
}

// advance moves the mark over items written (in mark order), remembering
// those at the new mark.
func (r *run) advance(done []item) {
	for _, it := range done {
		if !it.hasMark {
			continue
		}
		if !r.hasMark || it.mark > r.mark {
			r.hasMark, r.mark, r.tie = true, it.mark, map[string]bool{}
		}
		if it.mark == r.mark && it.ident != "" && len(r.tie) < maxTie {
			r.tie[it.ident] = true
		}
	}
}

// tieList is the tie set as stored.
func (r *run) tieList() []string {
	out := make([]string, 0, len(r.tie))
	for id := range r.tie {
		out = append(out, id)
	}
	sort.Strings(out)
	return out
}

// action turns an item into its index action and key.
func (r *run) action(it item) (Action, string, error) {
	if it.failure != "" {
		return Action{}, it.name, errors.New(it.failure)
	}
	doc, err := r.plan.mapper.document(it.fields, r.plan.src, it)
	if err != nil {
		return Action{}, it.name, err
	}
	if len(r.plan.skills) > 0 && !it.deleted {
		tree := make(map[string]any, len(it.fields)+len(doc))
		for k, v := range it.fields {
			tree[k] = v
		}
		for k, v := range doc {
			tree[k] = v
		}
		if err := enrich(r.plan.skills, tree); err != nil {
			return Action{}, it.name, err
		}
		for _, fm := range r.plan.outputs {
			v := treeValue(tree, fm.source)
			if fm.fn != nil {
				if v, err = fm.fn(v); err != nil {
					return Action{}, it.name, fmt.Errorf("could not apply the mapping function of the output field mapping from '%s' to '%s': %w", fm.source, fm.target, err)
				}
			}
			doc[fm.target] = v
		}
	}
	key, err := r.plan.mapper.keyOf(doc)
	if err != nil {
		return Action{}, it.name, err
	}
	keyField := r.plan.index.Key.Name
	if it.deleted {
		return Action{Action: "delete", Doc: map[string]any{keyField: key}}, key, nil
	}
	doc[keyField] = key
	return Action{Action: "mergeOrUpload", Doc: doc}, key, nil
}

// write hands one batch to the sink and records its failures.
func (r *run) write(ctx context.Context, batch []Action, keys []string) (int, error) {
	if len(batch) == 0 {
		return 0, nil
	}
	results, err := r.e.cfg.Sink(ctx, r.plan.index.Name, batch)
	if err != nil {
		return 0, fmt.Errorf("could not write to the index '%s': %w", r.plan.index.Name, err)
	}
	failed := 0
	byKey := make(map[string]ItemResult, len(results))
	for _, res := range results {
		byKey[res.Key] = res
	}
	for _, k := range keys {
		res, ok := byKey[k]
		switch {
		case !ok:
			r.result.addError(k, "The index did not report an outcome for this document.", http.StatusInternalServerError)
		case !res.Status:
			code := res.StatusCode
			if code == 0 {
				code = http.StatusBadRequest
			}
			r.result.addError(k, res.ErrorMessage, code)
		default:
			continue
		}
		failed++
	}
	return failed, nil
}

// renew saves progress (the mark, the result so far) and extends the
// claim; a lost claim stops the run.
func (r *run) renew(ctx context.Context) error {
	return r.e.cfg.Store.Update(ctx, func(tx kv.Txn) error {
		st, err := loadState(tx, r.name)
		if err != nil {
			return err
		}
		if !st.Claim.is(r.claim) {
			return errClaimLost
		}
		st.Claim.Until = r.e.clock().Add(r.e.ttl)
		if st.Epoch == r.claim.Epoch {
			st.HasMark, st.Mark, st.Tie = r.hasMark, r.mark, r.tieList()
		}
		cur := *r.result
		st.Current = &cur
		return record.Store(tx, stateKey(r.name), st)
	})
}

// finish records the result in the history and releases the claim. A
// run that no longer holds its claim records nothing: its indexer was
// deleted meanwhile (and perhaps created anew, whose history is not the
// run's), or the claim expired and the run that took it over recorded
// this one as interrupted.
func (r *run) finish(ctx context.Context) error {
	return r.e.cfg.Store.Update(ctx, func(tx kv.Txn) error {
		st, found, err := loadStateFound(tx, r.name)
		if err != nil || !found || !st.Claim.is(r.claim) {
			return err
		}
		if err := appendHistory(tx, r.name, r.claim.Run, r.result); err != nil {
			return err
		}
		if st.Epoch == r.claim.Epoch {
			st.HasMark, st.Mark, st.Tie = r.hasMark, r.mark, r.tieList()
		}
		st.Claim, st.Current = nil, nil
		return record.Store(tx, stateKey(r.name), st)
	})
}
