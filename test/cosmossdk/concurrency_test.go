package cosmossdk

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestNoLostUpdateUnderContention: 16 clients increment one counter with
// read / If-Match replace / retry-on-412. The final value must equal the
// number of successful replaces, and every 412 must have been a real
// conflict (some writer won in between).
func TestNoLostUpdateUnderContention(t *testing.T) {
	env, _, _ := setup(t)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("c")
	const clients, perClient = 16, 5
	first := newClient(t, env)
	cc, _ := first.NewContainer("db", "items")
	if _, err := cc.CreateItem(ctx, pk, mustJSON(t, map[string]any{"id": "counter", "pk": "c", "n": 0}), nil); err != nil {
		t.Fatal(err)
	}
	var successes, conflicts atomic.Int64
	var wg sync.WaitGroup
	for range clients {
		client := newClient(t, env)
		wg.Go(func() {
			cc, _ := client.NewContainer("db", "items")
			for range perClient {
				for {
					r, err := cc.ReadItem(ctx, pk, "counter", nil)
					if err != nil {
						t.Error(err)
						return
					}
					doc := decode(t, r.Value)
					doc["n"] = doc["n"].(float64) + 1
					etag := r.ETag
					_, err = cc.ReplaceItem(ctx, pk, "counter", mustJSON(t, doc), &azcosmos.ItemOptions{IfMatchEtag: &etag})
					if err == nil {
						successes.Add(1)
						break
					}
					if statusOf(err) != http.StatusPreconditionFailed {
						t.Error(err)
						return
					}
					conflicts.Add(1)
				}
			}
		})
	}
	wg.Wait()
	r, err := cc.ReadItem(ctx, pk, "counter", nil)
	if err != nil {
		t.Fatal(err)
	}
	got := int64(decode(t, r.Value)["n"].(float64))
	if got != successes.Load() || got != clients*perClient {
		t.Fatalf("counter = %d, successful increments = %d (want %d); %d conflicts", got, successes.Load(), clients*perClient, conflicts.Load())
	}
	t.Logf("%d increments, %d 412 retries", got, conflicts.Load())
}

// TestPatchIncrementIsAtomic: concurrent unconditional incr patches never
// lose an increment (each is one transaction).
func TestPatchIncrementIsAtomic(t *testing.T) {
	env, _, cc := setup(t)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("c")
	if _, err := cc.CreateItem(ctx, pk, mustJSON(t, map[string]any{"id": "n", "pk": "c", "n": 0}), nil); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 8 {
		client := newClient(t, env)
		wg.Go(func() {
			cc, _ := client.NewContainer("db", "items")
			for range 5 {
				ops := azcosmos.PatchOperations{}
				ops.AppendIncrement("/n", 1)
				if _, err := cc.PatchItem(ctx, pk, "n", ops, nil); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	r, _ := cc.ReadItem(ctx, pk, "n", nil)
	if n := decode(t, r.Value)["n"].(float64); n != 40 {
		t.Fatalf("n = %v, want 40", n)
	}
}

// TestBatchTransfersKeepInvariant: clients move amounts between accounts
// of one partition with If-Match transactional batches while readers sum
// the balances with a query; every read sees the same total (no half-
// applied batch is ever visible) and the final total is unchanged.
func TestBatchTransfersKeepInvariant(t *testing.T) {
	env, _, cc := setup(t)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("bank")
	const accounts, initial = 4, 100
	for i := range accounts {
		if _, err := cc.CreateItem(ctx, pk, mustJSON(t, map[string]any{"id": "a" + string(rune('0'+i)), "pk": "bank", "balance": initial}), nil); err != nil {
			t.Fatal(err)
		}
	}
	total := func(cc *azcosmos.ContainerClient) float64 {
		pager := cc.NewQueryItemsPager("SELECT VALUE SUM(c.balance) FROM c", pk, nil)
		page, err := pager.NextPage(ctx)
		if err != nil || len(page.Items) != 1 {
			t.Errorf("sum: %v", err)
			return -1
		}
		var v float64
		_ = json.Unmarshal(page.Items[0], &v)
		return v
	}
	var wg sync.WaitGroup
	var committed atomic.Int64
	for w := range 4 {
		client := newClient(t, env)
		wg.Go(func() {
			cc, _ := client.NewContainer("db", "items")
			for i := range 8 {
				from, to := "a"+string(rune('0'+(w+i)%accounts)), "a"+string(rune('0'+(w+i+1)%accounts))
				rf, err1 := cc.ReadItem(ctx, pk, from, nil)
				rt, err2 := cc.ReadItem(ctx, pk, to, nil)
				if err1 != nil || err2 != nil {
					t.Error(err1, err2)
					return
				}
				df, dt := decode(t, rf.Value), decode(t, rt.Value)
				df["balance"] = df["balance"].(float64) - 7
				dt["balance"] = dt["balance"].(float64) + 7
				ef, et := rf.ETag, rt.ETag
				b := cc.NewTransactionalBatch(pk)
				b.ReplaceItem(from, mustJSON(t, df), &azcosmos.TransactionalBatchItemOptions{IfMatchETag: &ef})
				b.ReplaceItem(to, mustJSON(t, dt), &azcosmos.TransactionalBatchItemOptions{IfMatchETag: &et})
				resp, err := cc.ExecuteTransactionalBatch(ctx, b, nil)
				if err != nil {
					t.Error(err)
					return
				}
				if resp.Success {
					committed.Add(1)
				}
			}
		})
	}
	for range 2 {
		client := newClient(t, env)
		wg.Go(func() {
			cc, _ := client.NewContainer("db", "items")
			for range 20 {
				if got := total(cc); got != accounts*initial {
					t.Errorf("a reader saw total %v, want %d", got, accounts*initial)
					return
				}
			}
		})
	}
	wg.Wait()
	if got := total(cc); got != accounts*initial || committed.Load() == 0 {
		t.Fatalf("final total %v (want %d), %d batches committed", got, accounts*initial, committed.Load())
	}
}
