package linearizability_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/anishathalye/porcupine"

	"github.com/cerulean-db/cerulean/internal/servertest"
)

var noRetry = policy.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}

// TestTableIfMatchMerges: reads and If-Match merges of one entity form a
// linearizable register history (the same model as a blob's).
func TestTableIfMatchMerges(t *testing.T) { inRounds(t, oneServer, tableIfMatchMerges) }

func tableIfMatchMerges(t *testing.T, fes []*servertest.Env) {
	tables := clientsFor(fes, func(env *servertest.Env) *aztables.Client {
		svc, err := aztables.NewServiceClientFromConnectionString(env.ConnectionString, &aztables.ClientOptions{ClientOptions: noRetry})
		if err != nil {
			t.Fatal(err)
		}
		return svc.NewClient("lin")
	})
	ctx := t.Context()
	tc := tables.at(0)
	if _, err := tc.CreateTable(ctx, nil); err != nil {
		t.Fatal(err)
	}
	entity := func(v string) []byte {
		b, _ := json.Marshal(map[string]any{"PartitionKey": "p", "RowKey": "r", "Value": v})
		return b
	}
	add, err := tc.AddEntity(ctx, entity("init"), nil)
	if err != nil {
		t.Fatal(err)
	}
	initial := regState{"init", string(add.ETag)}
	checkRegister(t, initial, func(cl int) register {
		tc := tables.at(cl)
		return register{
			read: func() (string, string, error) {
				resp, err := tc.GetEntity(ctx, "p", "r", nil)
				return jsonValue(resp.Value, resp.ETag, err)
			},
			condWrite: func(ifMatch azcore.ETag, value string) (string, error) {
				resp, err := tc.UpdateEntity(ctx, entity(value), &aztables.UpdateEntityOptions{IfMatch: &ifMatch, UpdateMode: aztables.UpdateModeMerge})
				return string(resp.ETag), err
			},
		}
	})
}

// Queue operations with a visibility window longer than the test, so that
// no outcome depends on time. The history is partitioned by message (a
// Get that found nothing is not recorded), so each message's life is
// checked on its own: put before any delivery, one delivery while hidden,
// deletion only with the receipt of that delivery, nothing after deletion.
// Ordering is left to the queue's own unit tests: with many messages in
// flight, checking it here makes the search explode.
type (
	qPut    struct{ Text string }
	qGet    struct{ Text, Receipt string }
	qDelete struct{ Text, Receipt string }
	qState  struct {
		Put, Deleted bool
		Receipt      string // the hidden delivery's receipt, "" while available
	}
)

func queueText(input any) string {
	switch in := input.(type) {
	case qPut:
		return in.Text
	case qGet:
		return in.Text
	case qDelete:
		return in.Text
	}
	return ""
}

var queueModel = porcupine.Model{
	Partition: func(history []porcupine.Operation) [][]porcupine.Operation {
		by := map[string][]porcupine.Operation{}
		var order []string
		for _, op := range history {
			k := queueText(op.Input)
			if _, ok := by[k]; !ok {
				order = append(order, k)
			}
			by[k] = append(by[k], op)
		}
		out := make([][]porcupine.Operation, 0, len(order))
		for _, k := range order {
			out = append(out, by[k])
		}
		return out
	},
	Init: func() any { return qState{} },
	Step: func(state, input, output any) (bool, any) {
		s := state.(qState)
		switch in := input.(type) {
		case qPut:
			return !s.Put, qState{Put: true}
		case qGet:
			if !s.Put || s.Deleted || s.Receipt != "" {
				return false, s
			}
			return true, qState{Put: true, Receipt: in.Receipt}
		case qDelete:
			ok := output.(bool)
			if ok != (s.Put && !s.Deleted && s.Receipt == in.Receipt) {
				return false, s
			}
			if ok {
				return true, qState{Put: true, Deleted: true}
			}
			return true, s
		}
		return false, s
	},
	DescribeOperation: func(input, output any) string {
		return fmt.Sprintf("%T%+v -> %+v", input, input, output)
	},
}

// TestQueueGetDelete: puts, gets and deletes from concurrent clients form
// a linearizable history: no message is handed out twice while hidden,
// and only the receipt that took a message deletes it.
func TestQueueGetDelete(t *testing.T) { inRounds(t, oneServer, queueGetDelete) }

func queueGetDelete(t *testing.T, fes []*servertest.Env) {
	queues := clientsFor(fes, func(env *servertest.Env) *azqueue.QueueClient {
		svc, err := azqueue.NewServiceClientFromConnectionString(env.ConnectionString, &azqueue.ClientOptions{ClientOptions: noRetry})
		if err != nil {
			t.Fatal(err)
		}
		return svc.NewQueueClient("lin")
	})
	ctx := t.Context()
	q := queues.at(0)
	if _, err := q.Create(ctx, nil); err != nil {
		t.Fatal(err)
	}
	hidden := int32(600)
	h := &history{}
	runClients(t, func(cl int, rng *rand.Rand) {
		q := queues.at(cl)
		type held struct{ id, text, receipt string }
		var mine []held
		for i := range *opsEach {
			switch r := rng.IntN(10); {
			case r < 4:
				text := fmt.Sprintf("c%d-%d", cl, i)
				h.record(cl, qPut{text}, func() any {
					if _, err := q.EnqueueMessage(ctx, text, nil); err != nil {
						t.Errorf("put: %v", err)
					}
					return nil
				})
			case r < 7 || len(mine) == 0:
				call := time.Now().UnixNano()
				resp, err := q.DequeueMessage(ctx, &azqueue.DequeueMessageOptions{VisibilityTimeout: &hidden})
				ret := time.Now().UnixNano()
				if err != nil {
					t.Errorf("get: %v", err)
					continue
				}
				if len(resp.Messages) == 0 {
					continue
				}
				m := resp.Messages[0]
				mine = append(mine, held{*m.MessageID, *m.MessageText, *m.PopReceipt})
				h.add(cl, qGet{*m.MessageText, *m.PopReceipt}, nil, call, ret)
			default:
				k := rng.IntN(len(mine))
				m := mine[k]
				mine = slices.Delete(mine, k, k+1)
				h.record(cl, qDelete{m.text, m.receipt}, func() any {
					_, err := q.DeleteMessage(ctx, m.id, m.receipt, nil)
					if err != nil && statusCode(err) != http.StatusNotFound {
						t.Errorf("delete: %v", err)
					}
					return err == nil
				})
			}
		}
	})
	check(t, queueModel, h)
}
