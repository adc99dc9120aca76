package scaleout_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// TestTableBatchesAcrossFrontEnds: writers on different front ends race
// entity-group transactions that each write the same rows with their own
// marker; every other batch also adds a row that exists, so it must fail
// as a whole (EntityAlreadyExists) and leave nothing behind. Readers on
// every front end meanwhile query the partition: each answer, and the end
// state, must show all rows with one marker, that of a batch that
// succeeded.
func TestTableBatchesAcrossFrontEnds(t *testing.T) {
	t.Parallel()
	d := startDeployment(t)
	ctx := t.Context()
	const (
		rows    = 10
		writers = 6
		batches = 8 // per writer
	)
	rowKey := func(i int) string { return fmt.Sprintf("r%02d", i) }
	entity := func(row, marker string) []byte {
		b, _ := json.Marshal(map[string]any{"PartitionKey": "p", "RowKey": row, "Marker": marker})
		return b
	}
	batch := func(marker string, doomed bool) []aztables.TransactionAction {
		var actions []aztables.TransactionAction
		for i := range rows {
			actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeInsertReplace, Entity: entity(rowKey(i), marker)})
		}
		if doomed {
			actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd, Entity: entity("zguard", marker)})
		}
		return actions
	}
	if _, err := d.table(0, "batches").CreateTable(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := d.table(0, "batches").SubmitTransaction(ctx, append(batch("init", false),
		aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd, Entity: entity("zguard", "init")}), nil); err != nil {
		t.Fatal(err)
	}

	var (
		mu        sync.Mutex
		succeeded = map[string]bool{"init": true}
		doomed    = map[string]bool{}
		writing   sync.WaitGroup
		stop      atomic.Bool
		reads     atomic.Int64
	)
	start := time.Now()
	for w := range writers {
		tc := d.table(w, "batches")
		writing.Go(func() {
			for b := range batches {
				marker, fail := fmt.Sprintf("w%d-b%d", w, b), b%2 == 1
				_, err := tc.SubmitTransaction(ctx, batch(marker, fail), nil)
				switch {
				case !fail && err != nil:
					t.Errorf("writer %d (front end %d): batch %s: %v", w, w%frontEnds, marker, err)
				case fail && !failedWith(err, "EntityAlreadyExists"):
					t.Errorf("writer %d (front end %d): batch %s with an existing row: %v, want a failed change set (EntityAlreadyExists)", w, w%frontEnds, marker, err)
				}
				mu.Lock()
				if fail {
					doomed[marker] = true
				} else {
					succeeded[marker] = true
				}
				mu.Unlock()
			}
		})
	}
	// markerOf reads the partition's rows through client i and returns
	// their one marker, or fails the test if they disagree.
	markerOf := func(i int) string {
		pager := d.table(i, "batches").NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: new("PartitionKey eq 'p' and RowKey lt 'r99'")})
		seen := map[string][]string{}
		n := 0
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				t.Errorf("front end %d: query: %v", i%frontEnds, err)
				return ""
			}
			for _, raw := range page.Entities {
				var e struct{ RowKey, Marker string }
				if err := json.Unmarshal(raw, &e); err != nil {
					t.Errorf("entity %s: %v", raw, err)
					return ""
				}
				seen[e.Marker] = append(seen[e.Marker], e.RowKey)
				n++
			}
		}
		if n != rows || len(seen) != 1 {
			t.Errorf("front end %d: one query shows %d rows with markers %v: a batch was seen half-applied", i%frontEnds, n, seen)
			return ""
		}
		for m := range seen {
			return m
		}
		return ""
	}
	var reading sync.WaitGroup
	for r := range frontEnds {
		reading.Go(func() {
			for !stop.Load() && !t.Failed() {
				m := markerOf(r)
				mu.Lock()
				bad := doomed[m]
				mu.Unlock()
				if bad {
					t.Errorf("front end %d shows marker %s of a batch that failed", r, m)
				}
				reads.Add(1)
			}
		})
	}
	writing.Wait()
	stop.Store(true)
	reading.Wait()
	t.Logf("%d batches (half doomed) by %d writers over %d front ends in %v, %d consistent partition reads meanwhile",
		writers*batches, writers, frontEnds, time.Since(start).Round(time.Millisecond), reads.Load())
	for fe := range frontEnds {
		if m := markerOf(fe); !succeeded[m] {
			t.Errorf("front end %d ends with marker %q, not that of a batch that succeeded", fe, m)
		}
	}
	guard, err := d.table(1, "batches").GetEntity(ctx, "p", "zguard", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(guard.Value), `"Marker":"init"`) {
		t.Errorf("the guard row changed: %s", guard.Value)
	}
}

// failedWith reports whether err is a failed change set (202 whose body
// names code), as the Tables SDK returns it.
func failedWith(err error, code string) bool {
	var re *azcore.ResponseError
	if !errors.As(err, &re) || re.StatusCode != http.StatusAccepted {
		return false
	}
	body, rerr := runtime.Payload(re.RawResponse)
	return rerr == nil && strings.Contains(string(body), `"code":"`+code+`"`)
}
