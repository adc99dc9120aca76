package powerloss_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

const cosmosItems = 5

// cosmosLoad creates, replaces and deletes items singly and in
// transactional batches, every replace and delete conditional on the ETag
// the worker last saw. Each worker writes its own logical partition.
type cosmosLoad struct {
	client *azcosmos.Client
	cc     *azcosmos.ContainerClient
}

func (*cosmosLoad) name() string { return "cosmos" }

func (l *cosmosLoad) connect(n *node) error {
	cred, err := azcosmos.NewKeyCredential(cosmosKey)
	if err != nil {
		return err
	}
	l.client, err = azcosmos.NewClientWithKey(n.cosmosURL, cred, &azcosmos.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		return err
	}
	l.cc, err = l.client.NewContainer("powerloss", "items")
	return err
}

func (l *cosmosLoad) setup(ctx context.Context) error {
	if _, err := l.client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "powerloss"}, nil); err != nil {
		return err
	}
	db, err := l.client.NewDatabase("powerloss")
	if err != nil {
		return err
	}
	_, err = db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "items", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil)
	return err
}

type cosmosItem struct {
	ID   string `json:"id"`
	PK   string `json:"pk"`
	Op   string `json:"op"`
	Pad  string `json:"pad"`
	ETag string `json:"_etag,omitempty"`
}

func (d cosmosItem) content() string { return fields(d.Op, d.Pad) }

func (l *cosmosLoad) step(ctx context.Context, w *worker) error {
	pkValue := fmt.Sprintf("w%d", w.id)
	pk := azcosmos.NewPartitionKeyString(pkValue)
	ids := w.rng.Perm(cosmosItems)
	r := w.rng.IntN(10)
	doc := func(id, op string) (cosmosItem, []byte, error) {
		d := cosmosItem{ID: id, PK: pkValue, Op: op, Pad: w.padding(2000)}
		b, err := json.Marshal(d)
		return d, b, err
	}
	if r < 6 {
		id := fmt.Sprintf("i%d", ids[0])
		cur, exists := w.state[id]
		if exists && r < 2 {
			w.begin(map[string]string{id: ""})
			if _, err := l.cc.DeleteItem(ctx, pk, id, &azcosmos.ItemOptions{IfMatchEtag: ptr(azcore.ETag(cur.etag))}); err != nil {
				return fmt.Errorf("delete item %s: %w", id, err)
			}
			return w.commit(map[string]item{id: {}})
		}
		d, body, err := doc(id, w.opID())
		if err != nil {
			return err
		}
		w.begin(map[string]string{id: d.content()})
		var resp azcosmos.ItemResponse
		if exists {
			resp, err = l.cc.ReplaceItem(ctx, pk, id, body, &azcosmos.ItemOptions{IfMatchEtag: ptr(azcore.ETag(cur.etag))})
		} else {
			resp, err = l.cc.CreateItem(ctx, pk, body, nil)
		}
		if err != nil {
			return fmt.Errorf("write item %s: %w", id, err)
		}
		return w.commit(map[string]item{id: {content: d.content(), etag: string(resp.ETag)}})
	}

	// A transactional batch over 2 to 4 items.
	batch := l.cc.NewTransactionalBatch(pk)
	changes := map[string]string{}
	var order []string
	op := w.opID()
	for _, n := range ids[:2+w.rng.IntN(3)] {
		id := fmt.Sprintf("i%d", n)
		cur, exists := w.state[id]
		order = append(order, id)
		if exists && w.rng.IntN(5) == 0 {
			batch.DeleteItem(id, &azcosmos.TransactionalBatchItemOptions{IfMatchETag: ptr(azcore.ETag(cur.etag))})
			changes[id] = ""
			continue
		}
		d, body, err := doc(id, op)
		if err != nil {
			return err
		}
		if exists {
			batch.ReplaceItem(id, body, &azcosmos.TransactionalBatchItemOptions{IfMatchETag: ptr(azcore.ETag(cur.etag))})
		} else {
			batch.CreateItem(body, nil)
		}
		changes[id] = d.content()
	}
	w.begin(changes)
	resp, err := l.cc.ExecuteTransactionalBatch(ctx, batch, nil)
	if err != nil {
		return fmt.Errorf("transactional batch %s: %w", describe(changes), err)
	}
	if !resp.Success || len(resp.OperationResults) != len(order) {
		var codes []int32
		for _, res := range resp.OperationResults {
			codes = append(codes, res.StatusCode)
		}
		return fmt.Errorf("transactional batch %s failed: statuses %v", describe(changes), codes)
	}
	result := map[string]item{}
	for i, id := range order {
		if changes[id] == "" {
			result[id] = item{}
			continue
		}
		result[id] = item{content: changes[id], etag: string(resp.OperationResults[i].ETag)}
	}
	return w.commit(result)
}

// observe queries the worker's partition and reads each item: a queried
// item must read with the same _etag, and every item must be queried.
func (l *cosmosLoad) observe(ctx context.Context, w *worker) (map[string]item, error) {
	pkValue := fmt.Sprintf("w%d", w.id)
	pk := azcosmos.NewPartitionKeyString(pkValue)
	listed := map[string]item{}
	pager := l.cc.NewQueryItemsPager("SELECT * FROM c", pk, nil)
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("query items: %w", err)
		}
		for _, raw := range page.Items {
			var d cosmosItem
			if err := json.Unmarshal(raw, &d); err != nil {
				return nil, err
			}
			listed[d.ID] = item{content: d.content(), etag: d.ETag}
		}
	}
	out := map[string]item{}
	for n := range cosmosItems {
		id := fmt.Sprintf("i%d", n)
		resp, err := l.cc.ReadItem(ctx, pk, id, nil)
		if isStatus(err, http.StatusNotFound) {
			if it, ok := listed[id]; ok {
				return nil, fmt.Errorf("item %s is queried (%s) but reads as missing", id, it.content)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("read item %s: %w", id, err)
		}
		var d cosmosItem
		if err := json.Unmarshal(resp.Value, &d); err != nil {
			return nil, err
		}
		it := item{content: d.content(), etag: string(resp.ETag)}
		if d.ETag != string(resp.ETag) {
			return nil, fmt.Errorf("item %s has _etag %s in its body but ETag %s in the response", id, d.ETag, resp.ETag)
		}
		if listed[id] != it {
			return nil, fmt.Errorf("item %s reads as %+v but is queried as %+v", id, it, listed[id])
		}
		delete(listed, id)
		out[id] = it
	}
	for id := range listed {
		return nil, fmt.Errorf("item %s is queried but no worker writes it", id)
	}
	return out, nil
}
