package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strconv"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// tableWorkload marks workloads that need the Table client.
type tableWorkload interface {
	Workload
	tables()
}

type tableBase struct{ t *aztables.Client }

func (tableBase) tables()                      {}
func (tableBase) Verify(context.Context) error { return nil }

// Setup makes what the workload runs on; workloads that need more call
// it first.
func (b *tableBase) Setup(ctx context.Context, c *Clients) error {
	b.t = c.Tables.NewClient(fmt.Sprintf("bench%08x", rand.Uint32()))
	_, err := b.t.CreateTable(ctx, nil)
	return err
}

func entity(pk, rk string, n int) []byte {
	b, _ := json.Marshal(map[string]any{"PartitionKey": pk, "RowKey": rk, "Value": n, "Name": "entity " + rk})
	return b
}

// tableInsert inserts a fresh entity per operation.
type tableInsert struct {
	tableBase
	n atomic.Int64
}

func (w *tableInsert) Name() string { return "table-insert" }

func (w *tableInsert) Op(ctx context.Context, worker int) (int64, error) {
	e := entity("p"+strconv.Itoa(worker), strconv.FormatInt(w.n.Add(1), 10), 1)
	_, err := w.t.AddEntity(ctx, e, nil)
	return int64(len(e)), err
}

// tablePointGet reads one of a set of entities by key per operation.
type tablePointGet struct{ tableBase }

const pointEntities = 100

func (w *tablePointGet) Name() string { return "table-point-get" }

func (w *tablePointGet) Setup(ctx context.Context, c *Clients) error {
	if err := w.tableBase.Setup(ctx, c); err != nil {
		return err
	}
	for i := range pointEntities {
		if _, err := w.t.AddEntity(ctx, entity("p", strconv.Itoa(i), i), nil); err != nil {
			return err
		}
	}
	return nil
}

func (w *tablePointGet) Op(ctx context.Context, worker int) (int64, error) {
	resp, err := w.t.GetEntity(ctx, "p", strconv.Itoa(worker%pointEntities), nil)
	return int64(len(resp.Value)), err
}

// tablePartitionQuery reads a 1,000-entity partition completely.
type tablePartitionQuery struct{ tableBase }

const partitionEntities = 1000

func (w *tablePartitionQuery) Name() string { return "table-partition-query" }

func (w *tablePartitionQuery) Setup(ctx context.Context, c *Clients) error {
	if err := w.tableBase.Setup(ctx, c); err != nil {
		return err
	}
	for start := 0; start < partitionEntities; start += 100 {
		actions := make([]aztables.TransactionAction, 0, 100)
		for i := start; i < start+100; i++ {
			actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd, Entity: entity("part", fmt.Sprintf("%05d", i), i)})
		}
		if _, err := w.t.SubmitTransaction(ctx, actions, nil); err != nil {
			return err
		}
	}
	return nil
}

func (w *tablePartitionQuery) Op(ctx context.Context, _ int) (int64, error) {
	filter := "PartitionKey eq 'part'"
	pager := w.t.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: &filter})
	seen, bytes, err := drain(ctx, pager, func(p aztables.ListEntitiesResponse) [][]byte { return p.Entities })
	if err != nil {
		return 0, err
	}
	if seen != partitionEntities {
		return 0, fmt.Errorf("queried %d entities, want %d", seen, partitionEntities)
	}
	return bytes, nil
}

// tableBatch100 commits a 100-insert entity group transaction per operation.
type tableBatch100 struct {
	tableBase
	n atomic.Int64
}

func (w *tableBatch100) Name() string { return "table-batch-100" }

func (w *tableBatch100) Op(ctx context.Context, _ int) (int64, error) {
	pk := "batch" + strconv.FormatInt(w.n.Add(1), 10)
	actions := make([]aztables.TransactionAction, 0, 100)
	var bytes int64
	for i := range 100 {
		e := entity(pk, fmt.Sprintf("%03d", i), i)
		bytes += int64(len(e))
		actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd, Entity: e})
	}
	_, err := w.t.SubmitTransaction(ctx, actions, nil)
	return bytes, err
}
