package queuesdk_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// processClient is a queue service client of the process p.
func processClient(t *testing.T, p *servertest.Process) *azqueue.ServiceClient {
	t.Helper()
	cred, err := azqueue.NewSharedKeyCredential(azauth.DevAccount, azauth.DevKey)
	must(t, err, "credential")
	o := clientOptions()
	o.Retry = policy.RetryOptions{MaxRetries: -1, TryTimeout: 10 * time.Second}
	svc, err := azqueue.NewServiceClientWithSharedKeyCredential(fmt.Sprintf("http://127.0.0.1:%d/%s/", p.QueuePort, azauth.DevAccount), cred, o)
	must(t, err, "client")
	return svc
}

// TestDurability kills the server with SIGKILL while producers are
// putting, restarts it on the same data, and checks that every
// acknowledged Put survived, nothing was invented or duplicated, and the
// messages a consumer had dequeued are still invisible — their windows
// survived the restart — and still deletable with the pre-crash receipts.
func TestDurability(t *testing.T) {
	t.Parallel()
	bin := servertest.BuildBinary(t)
	dir := t.TempDir()
	p := servertest.StartProcess(t, bin, dir)
	ctx := context.Background()
	svc := processClient(t, p)
	name := qname("durable")
	_, err := svc.CreateQueue(ctx, name, nil)
	must(t, err, "create")
	qc := svc.NewQueueClient(name)

	var mu sync.Mutex
	acked := map[string]string{} // text -> message id
	var attempted sync.Map       // text -> true
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				text := fmt.Sprintf("w%d-%06d", w, i)
				attempted.Store(text, true)
				resp, err := qc.EnqueueMessage(ctx, text, &azqueue.EnqueueMessageOptions{TimeToLive: ptr(int32(-1))})
				if err != nil {
					return // the server is gone
				}
				mu.Lock()
				acked[text] = deref(resp.Messages[0].MessageID)
				mu.Unlock()
			}
		})
	}
	testkit.PollUntil(func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(acked) >= 400
	}, 5*time.Millisecond, 0)
	// A consumer takes some messages for an hour, then the server dies
	// with puts in flight.
	hidden := dequeue(t, qc, 16, 3600)
	if len(hidden) != 16 {
		t.Fatalf("dequeued %d before the crash", len(hidden))
	}
	p.Kill()
	stop.Store(true)
	wg.Wait()
	t.Logf("%d puts acknowledged before SIGKILL", len(acked))

	p = servertest.StartProcess(t, bin, dir)
	qc = processClient(t, p).NewQueueClient(name)
	hiddenIDs := map[string]bool{}
	for _, m := range hidden {
		hiddenIDs[deref(m.MessageID)] = true
	}
	found := map[string]string{} // text -> id
	for {
		msgs := dequeue(t, qc, 32, 3600)
		if len(msgs) == 0 {
			break
		}
		for _, m := range msgs {
			text, id := deref(m.MessageText), deref(m.MessageID)
			if hiddenIDs[id] {
				t.Errorf("message %s (%s) was invisible before the crash but handed out after it", id, text)
			}
			if _, dup := found[text]; dup {
				t.Errorf("message %q delivered twice", text)
			}
			if _, ok := attempted.Load(text); !ok {
				t.Errorf("message %q was never put", text)
			}
			if deref(m.DequeueCount) != 1 {
				t.Errorf("message %q: DequeueCount %d after restart, want 1", text, deref(m.DequeueCount))
			}
			found[text] = id
		}
	}
	hiddenTexts := map[string]bool{}
	for _, m := range hidden {
		hiddenTexts[deref(m.MessageText)] = true
	}
	lost := 0
	for text, id := range acked {
		if hiddenTexts[text] {
			continue
		}
		if got, ok := found[text]; !ok || got != id {
			lost++
			if lost <= 5 {
				t.Errorf("acknowledged put %q (id %s) lost in the crash", text, id)
			}
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d acknowledged puts lost", lost, len(acked))
	}
	if n := approxCount(t, qc); int(n) != len(found)+len(hidden) {
		t.Errorf("count after restart %d, want %d delivered + %d hidden", n, len(found), len(hidden))
	}
	for _, m := range hidden {
		_, err := qc.DeleteMessage(ctx, deref(m.MessageID), deref(m.PopReceipt), nil)
		must(t, err, "delete %s with its pre-crash receipt", deref(m.MessageID))
	}
}
