package queuesdk_test

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
)

// delivery is one message handed to one consumer: what the history of a
// message is made of.
type delivery struct {
	consumer int
	at       time.Time // server time of the Get (the clock only moves between rounds)
	visible  time.Time // TimeNextVisible the server reported
	receipt  string
	count    int64 // DequeueCount
	text     string
	deleted  bool // the consumer's Delete with this receipt succeeded
}

// TestConcurrentConsumers: 8 consumers drain 2,000 messages with get →
// process → delete while 5% of deliveries are abandoned (the consumer
// "crashes" and never deletes). The clock stands still during a round and
// moves by the visibility timeout between rounds, so every window is known
// exactly. Checked from the recorded history: no message is handed out
// again before its window ends, each delivery has a fresh receipt and the
// next DequeueCount, every message is deleted exactly once, and the queue
// ends empty.
func TestConcurrentConsumers(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	name := qname("drain")
	f.createQueue(name, nil)
	const (
		total     = 2000
		consumers = 8
		producers = 8
		vt        = 30 // seconds
	)
	seed := rand.Uint64()
	t.Logf("seed %d", seed)

	// Producers: each message's text names it.
	var wg sync.WaitGroup
	putStart := time.Now()
	for p := range producers {
		wg.Go(func() {
			qc := f.svc.NewQueueClient(name)
			for i := p; i < total; i += producers {
				enqueue(t, qc, fmt.Sprintf("msg-%04d", i), nil)
			}
		})
	}
	wg.Wait()
	putTook := time.Since(putStart)

	var mu sync.Mutex
	history := map[string][]*delivery{} // by message id
	var gets, emptyGets, deletes atomic.Int64
	drainStart := time.Now()
	rounds := 0
	for deletes.Load() < total {
		rounds++
		if rounds > 20 {
			t.Fatalf("not drained after 20 rounds: %d deleted", deletes.Load())
		}
		roundAt := f.clock.Now()
		for c := range consumers {
			wg.Go(func() {
				rng := rand.New(rand.NewPCG(seed, uint64(rounds*consumers+c)))
				qc := f.svc.NewQueueClient(name)
				for {
					n := int32(1 + rng.IntN(16))
					resp, err := qc.DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{NumberOfMessages: &n, VisibilityTimeout: ptr(int32(vt))})
					if err != nil {
						t.Errorf("consumer %d: DequeueMessages: %v", c, err)
						return
					}
					gets.Add(1)
					if len(resp.Messages) == 0 {
						emptyGets.Add(1)
						return
					}
					for _, m := range resp.Messages {
						d := &delivery{consumer: c, at: roundAt, visible: deref(m.TimeNextVisible), receipt: deref(m.PopReceipt), count: deref(m.DequeueCount), text: deref(m.MessageText)}
						mu.Lock()
						history[deref(m.MessageID)] = append(history[deref(m.MessageID)], d)
						mu.Unlock()
						if rng.IntN(100) < 5 {
							continue // crashed before deleting
						}
						_, err := qc.DeleteMessage(ctx, deref(m.MessageID), d.receipt, nil)
						if err != nil {
							t.Errorf("consumer %d: Delete %s inside its window: %v", c, deref(m.MessageID), err)
							continue
						}
						mu.Lock()
						d.deleted = true
						mu.Unlock()
						deletes.Add(1)
					}
				}
			})
		}
		wg.Wait()
		if rounds == 1 {
			took := time.Since(drainStart)
			t.Logf("round 1: %d messages processed by %d consumers in %v (%.0f msg/s get+delete); %d puts by %d producers took %v (%.0f msg/s)",
				deletes.Load(), consumers, took, float64(deletes.Load())/took.Seconds(), total, producers, putTook, total/putTook.Seconds())
		}
		if t.Failed() {
			t.FailNow()
		}
		f.clock.Advance(vt * time.Second)
	}
	t.Logf("drained in %d rounds: %d gets (%d empty), %d deliveries for %d messages", rounds, gets.Load(), emptyGets.Load(), deliveries(history), len(history))

	if len(history) != total {
		t.Errorf("%d distinct messages delivered, want %d", len(history), total)
	}
	texts := map[string]bool{}
	for id, ds := range history {
		sort.Slice(ds, func(i, j int) bool { return ds[i].count < ds[j].count })
		receipts := map[string]bool{}
		deleted := 0
		for i, d := range ds {
			if d.count != int64(i+1) {
				t.Errorf("message %s: delivery %d has DequeueCount %d", id, i+1, d.count)
			}
			if receipts[d.receipt] {
				t.Errorf("message %s: pop receipt %q issued twice", id, d.receipt)
			}
			receipts[d.receipt] = true
			if !d.visible.Equal(d.at.Add(vt * time.Second)) {
				t.Errorf("message %s: TimeNextVisible %v, want %v", id, d.visible, d.at.Add(vt*time.Second))
			}
			if i > 0 && d.at.Before(ds[i-1].visible) {
				t.Errorf("message %s handed to consumer %d at %v, inside the window of its previous delivery (to consumer %d, until %v)",
					id, d.consumer, d.at, ds[i-1].consumer, ds[i-1].visible)
			}
			if d.deleted {
				deleted++
				if i != len(ds)-1 {
					t.Errorf("message %s delivered again after it was deleted", id)
				}
			}
		}
		if deleted != 1 {
			t.Errorf("message %s deleted %d times, want exactly 1", id, deleted)
		}
		if texts[ds[0].text] {
			t.Errorf("text %q delivered under two message ids", ds[0].text)
		}
		texts[ds[0].text] = true
	}
	qc := f.svc.NewQueueClient(name)
	if n := approxCount(t, qc); n != 0 {
		t.Errorf("%d messages left", n)
	}
	f.clock.Advance(time.Hour)
	if got := dequeue(t, qc, 32, 30); len(got) != 0 {
		t.Errorf("%d messages left after the drain", len(got))
	}
}

func deliveries(h map[string][]*delivery) int {
	n := 0
	for _, ds := range h {
		n += len(ds)
	}
	return n
}

// TestRacingReceiptHolders: clients holding the same pop receipt race to
// delete and update the message; exactly one wins, the others get 404
// MessageNotFound (Update Message and Delete Message are last-writer-wins
// only in the sense that the first to commit invalidates the receipt).
func TestRacingReceiptHolders(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	qc := f.createQueue(qname("race"), nil)
	for round := range 20 {
		enqueue(t, qc, fmt.Sprint("r", round), nil)
		m := dequeue(t, qc, 1, 60)[0]
		// Updates then move the message to another instant, so the
		// losers find nothing where their receipt points (404); an
		// update to the very same instant would make them 400
		// PopReceiptMismatch instead (see internal/queue).
		f.clock.Advance(time.Second)
		var wins, losses atomic.Int32
		var wg sync.WaitGroup
		for c := range 6 {
			wg.Go(func() {
				var err error
				if c%2 == 0 {
					_, err = qc.DeleteMessage(ctx, deref(m.MessageID), deref(m.PopReceipt), nil)
				} else {
					_, err = qc.UpdateMessage(ctx, deref(m.MessageID), deref(m.PopReceipt), fmt.Sprint("by ", c), &azqueue.UpdateMessageOptions{VisibilityTimeout: ptr(int32(60))})
				}
				var re *azcore.ResponseError
				switch {
				case err == nil:
					wins.Add(1)
				case errors.As(err, &re) && re.StatusCode == http.StatusNotFound && re.ErrorCode == "MessageNotFound":
					losses.Add(1)
				default:
					t.Errorf("round %d client %d: %v", round, c, err)
				}
			})
		}
		wg.Wait()
		if wins.Load() != 1 || losses.Load() != 5 {
			t.Fatalf("round %d: %d winners and %d losers, want 1 and 5", round, wins.Load(), losses.Load())
		}
		_, _ = qc.ClearMessages(ctx, nil)
	}
}
