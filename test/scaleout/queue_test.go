package scaleout_test

import (
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
)

// TestQueueConsumersAcrossFrontEnds: 8 producers put 2,000 messages while
// 8 consumers, spread over the front ends, drain them with get (32 at a
// time) → delete, so consumers' scans race producers' inserts as well as
// each other. The visibility window outlasts the test, so a message
// handed out twice was handed out twice within one window: each message
// must be delivered exactly once and deleted exactly once with its
// receipt, and the queue must end empty on every front end.
func TestQueueConsumersAcrossFrontEnds(t *testing.T) {
	t.Parallel()
	d := startDeployment(t)
	ctx := t.Context()
	const (
		producers = 8
		consumers = 8
	)
	// 2,000 messages (800 with -short).
	total := 2000
	if testing.Short() {
		total = 800
	}
	if _, err := d.queue(0, "drain").Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var wg, producing sync.WaitGroup
	for p := range producers {
		q := d.queue(p, "drain")
		producing.Go(func() {
			for i := p; i < total; i += producers {
				if _, err := q.EnqueueMessage(ctx, fmt.Sprintf("msg-%04d", i), nil); err != nil {
					t.Errorf("producer %d: put msg-%04d: %v", p, i, err)
					return
				}
			}
		})
	}
	var putTook time.Duration
	wg.Go(func() {
		producing.Wait()
		putTook = time.Since(start)
	})

	type delivery struct {
		consumer int
		receipt  string
		count    int64
	}
	var (
		mu         sync.Mutex
		deliveries = map[string][]delivery{} // by message text
		deleted    atomic.Int64
	)
	hidden, batch := int32(3600), int32(32)
	for c := range consumers {
		q := d.queue(c, "drain")
		wg.Go(func() {
			var idleSince time.Time
			for empty := 0; empty < 3; {
				resp, err := q.DequeueMessages(ctx, &azqueue.DequeueMessagesOptions{NumberOfMessages: &batch, VisibilityTimeout: &hidden})
				if err != nil {
					t.Errorf("consumer %d (front end %d): get: %v", c, c%frontEnds, err)
					return
				}
				if len(resp.Messages) == 0 {
					// Empty gets end a consumer only once everything has
					// been handed out; before that another consumer may
					// merely be ahead of it.
					mu.Lock()
					handedOut := len(deliveries)
					mu.Unlock()
					done := handedOut == total
					switch {
					case done:
						empty++
					case idleSince.IsZero():
						idleSince = time.Now()
					case time.Since(idleSince) > 20*time.Second:
						t.Errorf("consumer %d: the queue has looked empty for 20 s with %d of %d messages handed out", c, handedOut, total)
						return
					}
					time.Sleep(10 * time.Millisecond)
					continue
				}
				idleSince = time.Time{}
				for _, m := range resp.Messages {
					mu.Lock()
					deliveries[*m.MessageText] = append(deliveries[*m.MessageText], delivery{c, *m.PopReceipt, *m.DequeueCount})
					mu.Unlock()
					if _, err := q.DeleteMessage(ctx, *m.MessageID, *m.PopReceipt, nil); err != nil {
						t.Errorf("consumer %d (front end %d): delete %s with its receipt: %v", c, c%frontEnds, *m.MessageText, err)
						continue
					}
					deleted.Add(1)
				}
			}
		})
	}
	wg.Wait()
	t.Logf("%d messages put by %d producers in %v and drained by %d consumers in %v, over %d front ends",
		total, producers, putTook.Round(time.Millisecond), consumers, time.Since(start).Round(time.Millisecond), frontEnds)
	if t.Failed() {
		return
	}

	perConsumer := make([]int, consumers)
	var twice []string
	for text, ds := range deliveries {
		if len(ds) > 1 {
			twice = append(twice, fmt.Sprintf("%s to consumers %v", text, ds))
		}
		for _, dl := range ds {
			perConsumer[dl.consumer]++
			if dl.count != 1 {
				t.Errorf("%s delivered with DequeueCount %d, want 1", text, dl.count)
			}
		}
	}
	sort.Strings(twice)
	if len(twice) > 0 {
		t.Errorf("%d messages delivered twice within one visibility window, e.g. %v", len(twice), twice[:min(len(twice), 5)])
	}
	for i := range total {
		if _, ok := deliveries[fmt.Sprintf("msg-%04d", i)]; !ok {
			t.Errorf("msg-%04d was never delivered: lost", i)
		}
	}
	if n := deleted.Load(); n != int64(total) {
		t.Errorf("%d successful deletes, want %d (one per message)", n, total)
	}
	t.Logf("deliveries per consumer: %v", perConsumer)
	for fe := range frontEnds {
		q := d.queue(fe, "drain")
		peek, err := q.PeekMessages(ctx, &azqueue.PeekMessagesOptions{NumberOfMessages: &batch})
		if err != nil {
			t.Fatalf("front end %d: peek: %v", fe, err)
		}
		if len(peek.Messages) != 0 {
			t.Errorf("front end %d still shows %d messages after the drain", fe, len(peek.Messages))
		}
		props, err := q.GetProperties(ctx, nil)
		if err != nil {
			t.Fatalf("front end %d: properties: %v", fe, err)
		}
		if props.ApproximateMessagesCount == nil || *props.ApproximateMessagesCount != 0 {
			t.Errorf("front end %d: approximate message count %v after the drain, want 0", fe, props.ApproximateMessagesCount)
		}
	}
}
