package powerloss_test

import (
	"context"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
)

// queueCap keeps each queue short enough for one Peek Messages (at most
// 32) to see all of it.
const queueCap = 12

// queueLoad puts messages, deletes them with the pop receipt the put
// returned, and now and then clears the queue. A message is keyed by its
// text (unique per put); its id plays the ETag's part.
type queueLoad struct{ svc *azqueue.ServiceClient }

func (*queueLoad) name() string { return "queue" }

func queueName(w *worker) string { return fmt.Sprintf("powerloss-w%d", w.id) }

func (l *queueLoad) connect(n *node) error {
	svc, err := azqueue.NewServiceClientFromConnectionString(n.connectionString, &azqueue.ClientOptions{ClientOptions: noRetry})
	l.svc = svc
	return err
}

// setup has nothing to share: each worker creates its queue in its first
// step, acknowledged like any write.
func (*queueLoad) setup(context.Context) error { return nil }

func (l *queueLoad) step(ctx context.Context, w *worker) error {
	qc := l.svc.NewQueueClient(queueName(w))
	if _, ok := w.state[""]; !ok {
		// The queue itself, under the empty key.
		w.begin(map[string]string{"": "queue"})
		if _, err := qc.Create(ctx, nil); err != nil {
			return fmt.Errorf("create queue: %w", err)
		}
		return w.commit(map[string]item{"": {content: "queue", etag: "queue"}})
	}
	var live, deletable []string
	for _, key := range sortedKeys(w.state) {
		if key == "" {
			continue
		}
		live = append(live, key)
		if w.state[key].handle != "" {
			deletable = append(deletable, key)
		}
	}
	r := w.rng.IntN(20)
	switch {
	case r == 0 || len(live) >= queueCap && len(deletable) == 0:
		changes, result := map[string]string{}, map[string]item{}
		for _, key := range live {
			changes[key], result[key] = "", item{}
		}
		w.begin(changes)
		if _, err := qc.ClearMessages(ctx, nil); err != nil {
			return fmt.Errorf("clear messages: %w", err)
		}
		return w.commit(result)
	case len(deletable) > 0 && (r < 9 || len(live) >= queueCap):
		key := deletable[w.rng.IntN(len(deletable))]
		cur := w.state[key]
		w.begin(map[string]string{key: ""})
		if _, err := qc.DeleteMessage(ctx, cur.etag, cur.handle, nil); err != nil {
			return fmt.Errorf("delete message %s: %w", cur.etag, err)
		}
		return w.commit(map[string]item{key: {}})
	default:
		text := w.opID() + "-" + w.padding(512)
		w.begin(map[string]string{text: text})
		resp, err := qc.EnqueueMessage(ctx, text, nil)
		if err != nil {
			return fmt.Errorf("put message: %w", err)
		}
		if len(resp.Messages) != 1 {
			return fmt.Errorf("put message: %d messages in the response", len(resp.Messages))
		}
		m := resp.Messages[0]
		return w.commit(map[string]item{text: {content: text, etag: *m.MessageID, handle: *m.PopReceipt}})
	}
}

// observe peeks at the whole queue.
func (l *queueLoad) observe(ctx context.Context, w *worker) (map[string]item, error) {
	qc := l.svc.NewQueueClient(queueName(w))
	resp, err := qc.PeekMessages(ctx, &azqueue.PeekMessagesOptions{NumberOfMessages: ptr(int32(32))})
	if isStatus(err, 404) {
		return map[string]item{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("peek messages: %w", err)
	}
	if len(resp.Messages) == 32 {
		return nil, fmt.Errorf("queue %s holds 32 messages or more; at most %d were left in it", queueName(w), queueCap+1)
	}
	out := map[string]item{"": {content: "queue", etag: "queue"}}
	for _, m := range resp.Messages {
		text := *m.MessageText
		if _, dup := out[text]; dup {
			return nil, fmt.Errorf("message %q is in the queue twice", text)
		}
		out[text] = item{content: text, etag: *m.MessageID}
	}
	return out, nil
}
