package bench

import (
	"context"
	"errors"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
)

// queueWorkload marks workloads that need the Queue client.
type queueWorkload interface {
	Workload
	queues()
}

type queueBase struct{ q *azqueue.QueueClient }

func (queueBase) queues()                      {}
func (queueBase) Verify(context.Context) error { return nil }

// Setup makes what the workload runs on; workloads that need more call
// it first.
func (b *queueBase) Setup(ctx context.Context, c *Clients) error {
	b.q = c.Queues.NewQueueClient(strings.ToLower(uniqueName("bench")))
	_, err := b.q.Create(ctx, nil)
	return err
}

const message = "a small queue message of about sixty-four bytes for benchmarks."

// queuePut enqueues one message per operation.
type queuePut struct{ queueBase }

func (w *queuePut) Name() string { return "queue-put" }

func (w *queuePut) Op(ctx context.Context, _ int) (int64, error) {
	_, err := w.q.EnqueueMessage(ctx, message, nil)
	return int64(len(message)), err
}

// queueGetDelete receives one message and deletes it per operation,
// refilling the queue when it runs dry (refills are not measured apart).
type queueGetDelete struct{ queueBase }

func (w *queueGetDelete) Name() string { return "queue-get-delete" }

func (w *queueGetDelete) Setup(ctx context.Context, c *Clients) error {
	if err := w.queueBase.Setup(ctx, c); err != nil {
		return err
	}
	return w.refill(ctx, 2000)
}

func (w *queueGetDelete) refill(ctx context.Context, n int) error {
	for range n {
		if _, err := w.q.EnqueueMessage(ctx, message, nil); err != nil {
			return err
		}
	}
	return nil
}

var errQueueEmpty = errors.New("queue stayed empty")

func (w *queueGetDelete) Op(ctx context.Context, _ int) (int64, error) {
	for range 3 {
		resp, err := w.q.DequeueMessage(ctx, nil)
		if err != nil {
			return 0, err
		}
		if len(resp.Messages) == 0 {
			if err := w.refill(ctx, 32); err != nil {
				return 0, err
			}
			continue
		}
		m := resp.Messages[0]
		_, err = w.q.DeleteMessage(ctx, *m.MessageID, *m.PopReceipt, nil)
		return int64(len(*m.MessageText)), err
	}
	return 0, errQueueEmpty
}
