package bench

import (
	"context"
	"strconv"
	"sync/atomic"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// upsertRows is how many rows table-upsert-100k cycles through, all in one
// partition: `-n 100000` makes the 100,000 upserts in one
// partition, and a longer run replaces rows the partition already holds.
const upsertRows = 100_000

// tableUpsert makes one Insert Or Replace per operation into one
// partition.
type tableUpsert struct {
	tableBase
	n atomic.Int64
}

func (w *tableUpsert) Name() string { return "table-upsert-100k" }

func (w *tableUpsert) Op(ctx context.Context, _ int) (int64, error) {
	i := int((w.n.Add(1) - 1) % upsertRows)
	e := entity("p", strconv.Itoa(i), i)
	_, err := w.t.UpsertEntity(ctx, e, &aztables.UpsertEntityOptions{UpdateMode: aztables.UpdateModeReplace})
	return int64(len(e)), err
}

// tableUpsertBatch makes 100 Insert Or Replace per operation, as one entity
// group transaction into the same partition table-upsert-100k writes: `-n
// 1000` is the issue's 100,000 upserts the way a bulk load sends them.
type tableUpsertBatch struct {
	tableBase
	n atomic.Int64
}

func (w *tableUpsertBatch) Name() string { return "table-upsert-100k-batch" }

func (w *tableUpsertBatch) Op(ctx context.Context, _ int) (int64, error) {
	first := int(((w.n.Add(1) - 1) * 100) % upsertRows)
	actions := make([]aztables.TransactionAction, 0, 100)
	var bytes int64
	for i := first; i < first+100; i++ {
		e := entity("p", strconv.Itoa(i), i)
		bytes += int64(len(e))
		actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeInsertReplace, Entity: e})
	}
	_, err := w.t.SubmitTransaction(ctx, actions, nil)
	return bytes, err
}
