package torture_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// writeGenSproc upserts items i0..i(n-1) of the request's partition, all
// stamped with one generation: after any crash a partition must hold one
// generation in full, never a mix — the stored procedure is one
// transaction.
const writeGenSproc = `function writeGen(pk, gen, n) {
	var coll = getContext().getCollection();
	for (var i = 0; i < n; i++) {
		var ok = coll.upsertDocument(coll.getSelfLink(), {id: "i" + i, pk: pk, gen: gen}, function (err) {
			if (err) throw err;
		});
		if (!ok) throw new Error("not accepted");
	}
	getContext().getResponse().setBody(gen);
}`

// sprocClient executes stored procedures over raw REST: the Go SDK has no
// script API.
type sprocClient struct {
	base, key string
	http      *http.Client
}

func newSprocClient(p *servertest.Process) *sprocClient {
	return &sprocClient{base: strings.TrimSuffix(p.CosmosURL, "/"), key: p.CosmosKey, http: &http.Client{Timeout: 20 * time.Second}}
}

func (s *sprocClient) do(ctx context.Context, path, resourceType, link string, body []byte, hdr map[string]string) (int, []byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, s.base+path, bytes.NewReader(body))
	if err != nil {
		return 0, nil, err
	}
	if err := testkit.CosmosSign(req, s.key, resourceType, link, time.Now()); err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := s.http.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer func() { _ = resp.Body.Close() }() // fully read below
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

func (s *sprocClient) create(ctx context.Context) error {
	body, _ := json.Marshal(map[string]string{"id": "writeGen", "body": writeGenSproc})
	status, out, err := s.do(ctx, "/dbs/torture/colls/items/sprocs", "sprocs", "dbs/torture/colls/items", body, nil)
	if err == nil && status != http.StatusCreated {
		err = fmt.Errorf("create sproc: %d %s", status, out)
	}
	return err
}

func (s *sprocClient) writeGen(ctx context.Context, pk string, gen int) error {
	params, _ := json.Marshal([]any{pk, gen, cosmosBatchN})
	pkh, _ := json.Marshal([]string{pk})
	status, out, err := s.do(ctx, "/dbs/torture/colls/items/sprocs/writeGen", "sprocs", "dbs/torture/colls/items/sprocs/writeGen",
		params, map[string]string{"x-ms-documentdb-partitionkey": string(pkh)})
	if err == nil && status != http.StatusOK {
		err = fmt.Errorf("execute sproc: %d %s", status, out)
	}
	return err
}

// cosmosSprocRunner rewrites its partition's items through one stored
// procedure execution per generation; the verification is the batches'.
func cosmosSprocRunner(ctx context.Context, s *sprocClient, st *state, pkv string) {
	for ctx.Err() == nil {
		st.mu.Lock()
		st.cosmosGenTry[pkv]++
		gen := st.cosmosGenTry[pkv]
		st.mu.Unlock()
		if err := s.writeGen(ctx, pkv, gen); err != nil {
			return
		}
		st.mu.Lock()
		st.cosmosGenAck[pkv] = gen
		st.mu.Unlock()
	}
}
