package bench

import (
	"context"
	"fmt"
	"sort"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
)

// workloads builds each named workload fresh for a run.
var workloads = map[string]func() Workload{
	"blob-put-1k":             func() Workload { return &blobPut{name: "blob-put-1k", size: 1 << 10} },
	"blob-get-1k":             func() Workload { return &blobGet{name: "blob-get-1k", size: 1 << 10} },
	"blob-put-8m":             func() Workload { return &blobPut{name: "blob-put-8m", size: 8 << 20} },
	"blob-get-8m":             func() Workload { return &blobGet{name: "blob-get-8m", size: 8 << 20} },
	"blob-cond-update":        func() Workload { return &blobCondUpdate{} },
	"blob-list":               func() Workload { return &blobList{blobs: 10_000} },
	"table-insert":            func() Workload { return &tableInsert{} },
	"table-point-get":         func() Workload { return &tablePointGet{} },
	"table-partition-query":   func() Workload { return &tablePartitionQuery{} },
	"table-batch-100":         func() Workload { return &tableBatch100{} },
	"table-upsert-100k":       func() Workload { return &tableUpsert{} },
	"table-upsert-100k-batch": func() Workload { return &tableUpsertBatch{} },
	"queue-put":               func() Workload { return &queuePut{} },
	"queue-get-delete":        func() Workload { return &queueGetDelete{} },
	"cosmos-create":           func() Workload { return &cosmosCreate{} },
	"cosmos-point-read":       func() Workload { return &cosmosPointRead{} },
	"cosmos-query":            func() Workload { return &cosmosQuery{} },
	"cosmos-batch":            func() Workload { return &cosmosBatch{} },
	"cosmos-upsert-hot":       func() Workload { return &cosmosUpsertHot{} },
	"file-put-range":          func() Workload { return &filePutRange{} },
	"search-query":            func() Workload { return NewSearchQuery(searchQueryDocs) },
}

// Names lists the workloads in a stable order.
func Names() []string {
	out := make([]string, 0, len(workloads))
	for n := range workloads {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// New returns the named workload.
func New(name string) (Workload, error) {
	mk, ok := workloads[name]
	if !ok {
		return nil, fmt.Errorf("unknown workload %q (have %v)", name, Names())
	}
	return mk(), nil
}

// NewBlobList returns blob-list over a container of n blobs (for scaling runs).
func NewBlobList(n int) Workload { return &blobList{blobs: n} }

// drain reads every page of pager and counts the rows rows(page) finds on
// them and their bytes: the measure of the query workloads.
func drain[T any](ctx context.Context, pager *runtime.Pager[T], rows func(T) [][]byte) (seen int, bytes int64, err error) {
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return 0, 0, err
		}
		seen += len(rows(page))
		for _, r := range rows(page) {
			bytes += int64(len(r))
		}
	}
	return seen, bytes, nil
}
