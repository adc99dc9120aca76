package tablesdk_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// batchFailure returns the failing operation's index and error code from
// a failed SubmitTransaction: the SDK hands back the 202 response, whose
// change set holds the failure as "<index>:<message>".
func batchFailure(t *testing.T, err error) (index int, code string) {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("SubmitTransaction err = %v, want a failed change set", err)
	}
	body, rerr := runtime.Payload(re.RawResponse)
	must(t, rerr, "read batch response")
	m := regexp.MustCompile(`"code":"(\w+)","message":\{"lang":"en-US","value":"(\d+):`).FindSubmatch(body)
	if re.StatusCode != http.StatusAccepted || m == nil {
		t.Fatalf("batch response %d: %s", re.StatusCode, body)
	}
	index, _ = strconv.Atoi(string(m[2]))
	return index, string(m[1])
}

func TestBatchOperations(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	for _, rk := range []string{"upd", "mrg", "del", "delEtag"} {
		_, err := c.AddEntity(ctx, entity("p", rk, map[string]any{"Old": "o"}), nil)
		must(t, err, "AddEntity")
	}
	_, etag := getEntity(t, c, "p", "delEtag")
	actions := []aztables.TransactionAction{
		{ActionType: aztables.TransactionTypeAdd, Entity: entity("p", "new", map[string]any{"V": int32(1)})},
		{ActionType: aztables.TransactionTypeUpdateReplace, Entity: entity("p", "upd", map[string]any{"V": int32(2)}), IfMatch: to.Ptr(azcore.ETagAny)},
		{ActionType: aztables.TransactionTypeUpdateMerge, Entity: entity("p", "mrg", map[string]any{"V": int32(3)}), IfMatch: to.Ptr(azcore.ETagAny)},
		{ActionType: aztables.TransactionTypeDelete, Entity: entity("p", "del", nil)},
		{ActionType: aztables.TransactionTypeDelete, Entity: entity("p", "delEtag", nil), IfMatch: &etag},
		{ActionType: aztables.TransactionTypeInsertReplace, Entity: entity("p", "ir", map[string]any{"V": int32(4)})},
		{ActionType: aztables.TransactionTypeInsertMerge, Entity: entity("p", "im", map[string]any{"V": int32(5)})},
	}
	_, err := c.SubmitTransaction(ctx, actions, nil)
	must(t, err, "SubmitTransaction")
	got := map[string]map[string]any{}
	for _, e := range listAll(t, c, nil) {
		got[e.RowKey] = e.Properties
	}
	want := map[string]string{"new": "map[V:1]", "upd": "map[V:2]", "mrg": "map[Old:o V:3]", "ir": "map[V:4]", "im": "map[V:5]"}
	if len(got) != len(want) {
		t.Fatalf("after batch %v", got)
	}
	for rk, w := range want {
		if fmt.Sprint(got[rk]) != w {
			t.Errorf("%s = %v, want %s", rk, got[rk], w)
		}
	}
}

// TestBatchAtomicity: a 100-operation batch whose 57th operation fails
// leaves the partition unchanged and names that operation (index 56:
// Azure counts from 0).
func TestBatchAtomicity(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	_, err := c.AddEntity(ctx, entity("p", "r056", map[string]any{"Before": true}), nil)
	must(t, err, "AddEntity")
	_, err = c.AddEntity(ctx, entity("p", "r099", map[string]any{"Before": true}), nil)
	must(t, err, "AddEntity")
	before := listAll(t, c, nil)

	var actions []aztables.TransactionAction
	for i := range 100 {
		a := aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd, Entity: entity("p", fmt.Sprintf("r%03d", i), map[string]any{"I": int32(i)})}
		if i == 99 {
			a = aztables.TransactionAction{ActionType: aztables.TransactionTypeUpdateReplace, Entity: entity("p", "r099", map[string]any{"After": true}), IfMatch: to.Ptr(azcore.ETagAny)}
		}
		actions = append(actions, a)
	}
	_, err = c.SubmitTransaction(ctx, actions, nil)
	index, code := batchFailure(t, err)
	if index != 56 || code != "EntityAlreadyExists" {
		t.Fatalf("failure names operation %d (%s), want 56 (the 57th) EntityAlreadyExists", index, code)
	}
	after := listAll(t, c, nil)
	if fmt.Sprint(after) != fmt.Sprint(before) {
		t.Fatalf("partition changed by a failed batch:\nbefore %v\nafter  %v", before, after)
	}

	// A precondition failure late in a batch rolls back everything too.
	_, stale := getEntity(t, c, "p", "r056")
	_, err = c.UpdateEntity(ctx, entity("p", "r056", map[string]any{"Moved": true}), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge})
	must(t, err, "move the ETag")
	actions = []aztables.TransactionAction{
		{ActionType: aztables.TransactionTypeAdd, Entity: entity("p", "fresh", nil)},
		{ActionType: aztables.TransactionTypeUpdateMerge, Entity: entity("p", "r056", map[string]any{"X": true}), IfMatch: &stale},
	}
	_, err = c.SubmitTransaction(ctx, actions, nil)
	if index, code := batchFailure(t, err); index != 1 || code != "UpdateConditionNotSatisfied" {
		t.Fatalf("stale ETag: operation %d %s", index, code)
	}
	_, err = c.GetEntity(ctx, "p", "fresh", nil)
	wantCode(t, err, http.StatusNotFound, "ResourceNotFound")
}

func TestBatchRules(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	add := func(pk, rk string) aztables.TransactionAction {
		return aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd, Entity: entity(pk, rk, nil)}
	}
	_, err := c.SubmitTransaction(ctx, []aztables.TransactionAction{add("p", "a"), add("q", "b")}, nil)
	if index, code := batchFailure(t, err); index != 1 || code != "InvalidInput" {
		t.Errorf("two partitions: operation %d %s", index, code)
	}
	_, err = c.SubmitTransaction(ctx, []aztables.TransactionAction{add("p", "a"), add("p", "b"), add("p", "a")}, nil)
	if index, code := batchFailure(t, err); index != 2 || code != "InvalidDuplicateRow" {
		t.Errorf("duplicate row: operation %d %s", index, code)
	}
	_, err = c.SubmitTransaction(ctx, []aztables.TransactionAction{add("p", "a"), add("p", "bad/key")}, nil)
	if index, code := batchFailure(t, err); index != 1 || code != "OutOfRangeInput" {
		t.Errorf("bad key: operation %d %s", index, code)
	}
	var many []aztables.TransactionAction
	for i := range 101 {
		many = append(many, add("p", fmt.Sprint(i)))
	}
	_, err = c.SubmitTransaction(ctx, many, nil)
	wantCode(t, err, http.StatusBadRequest, "InvalidInput")
	_, err = f.svc.NewClient("nosuchtable").SubmitTransaction(ctx, []aztables.TransactionAction{add("p", "a")}, nil)
	if index, code := batchFailure(t, err); index != 0 || code != "TableNotFound" {
		t.Errorf("missing table: operation %d %s", index, code)
	}
	if got := listAll(t, c, nil); len(got) != 0 {
		t.Fatalf("refused batches stored %d entities", len(got))
	}
}

// TestRacingBatches: batches racing on one partition each apply fully
// or not at all, and a reader paging the partition meanwhile never sees
// one half applied.
func TestRacingBatches(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	const rows = 50
	var seed []aztables.TransactionAction
	for i := range rows {
		seed = append(seed, aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd, Entity: entity("p", fmt.Sprintf("r%02d", i), map[string]any{"Tag": "seed"})})
	}
	_, err := c.SubmitTransaction(ctx, seed, nil)
	must(t, err, "seed")

	stop := make(chan struct{})
	var torn atomic.Value
	var reads atomic.Int64
	var readers sync.WaitGroup
	readers.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			resp, err := c.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: to.Ptr("PartitionKey eq 'p'")}).NextPage(ctx)
			if err != nil {
				torn.Store(err.Error())
				return
			}
			tags := map[any]int{}
			for _, raw := range resp.Entities {
				tags[decodeTag(raw)]++
			}
			if len(resp.Entities) != rows || len(tags) != 1 {
				torn.Store(fmt.Sprintf("a read saw %d rows with tags %v", len(resp.Entities), tags))
				return
			}
			reads.Add(1)
		}
	})

	for round := range 6 {
		// Both batches read the same ETags, then race to update every row
		// conditionally: exactly one can win.
		etags := map[string]azcore.ETag{}
		for _, e := range listAll(t, c, nil) {
			etags[e.RowKey] = azcore.ETag(e.ETag)
		}
		results := make([]error, 2)
		var wg sync.WaitGroup
		for b := range 2 {
			wg.Go(func() {
				tag := fmt.Sprintf("round%d-batch%d", round, b)
				var actions []aztables.TransactionAction
				for i := range rows {
					rk := fmt.Sprintf("r%02d", i)
					actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeUpdateReplace,
						Entity: entity("p", rk, map[string]any{"Tag": tag}), IfMatch: to.Ptr(etags[rk])})
				}
				_, results[b] = c.SubmitTransaction(ctx, actions, nil)
			})
		}
		wg.Wait()
		winners := 0
		for _, err := range results {
			if err == nil {
				winners++
				continue
			}
			if _, code := batchFailure(t, err); code != "UpdateConditionNotSatisfied" {
				t.Fatalf("losing batch failed with %s", code)
			}
		}
		if winners != 1 {
			t.Fatalf("round %d: %d batches won (%v)", round, winners, results)
		}
		// Unconditional batches race too: both apply, one after the other.
		for b := range 2 {
			wg.Go(func() {
				var actions []aztables.TransactionAction
				for i := range rows {
					actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeInsertReplace,
						Entity: entity("p", fmt.Sprintf("r%02d", i), map[string]any{"Tag": fmt.Sprintf("round%d-upsert%d", round, b)})})
				}
				_, results[b] = c.SubmitTransaction(ctx, actions, nil)
			})
		}
		wg.Wait()
		for _, err := range results {
			must(t, err, "unconditional batch")
		}
	}
	close(stop)
	readers.Wait()
	if v := torn.Load(); v != nil {
		t.Fatal(v)
	}
	if reads.Load() == 0 {
		t.Fatal("the reader never completed a read")
	}
}

func decodeTag(raw []byte) any {
	var e aztables.EDMEntity
	if err := json.Unmarshal(raw, &e); err != nil {
		return err.Error()
	}
	return e.Properties["Tag"]
}

// TestBatchQuery: a batch may hold one query (a GET outside any change
// set); the SDK cannot send one, so it is sent raw.
func TestBatchQuery(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	_, err := c.AddEntity(t.Context(), entity("p", "r", map[string]any{"V": "x"}), nil)
	must(t, err, "AddEntity")
	body := "--batch_q\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
		"GET " + f.serviceURL() + "/" + c.name + "(PartitionKey='p',RowKey='r') HTTP/1.1\r\nAccept: application/json;odata=nometadata\r\n\r\n\r\n--batch_q--\r\n"
	resp, data := f.rawRequest(http.MethodPost, "/$batch", map[string]string{"Content-Type": "multipart/mixed; boundary=batch_q"}, []byte(body))
	if resp.StatusCode != http.StatusAccepted || !strings.Contains(string(data), "HTTP/1.1 200 OK") || !strings.Contains(string(data), `{"PartitionKey":"p","RowKey":"r","Timestamp":`) {
		t.Fatalf("batch query: %d\n%s", resp.StatusCode, data)
	}
}
