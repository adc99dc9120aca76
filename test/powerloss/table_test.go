package powerloss_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

const tableRows = 5

// tableLoad inserts and replaces entities one at a time and in
// entity-group transactions, conditional on the ETag the worker last saw,
// and deletes them conditionally.
type tableLoad struct{ tc *aztables.Client }

func (*tableLoad) name() string { return "table" }

func (l *tableLoad) connect(n *node) error {
	svc, err := aztables.NewServiceClientFromConnectionString(n.connectionString, &aztables.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		return err
	}
	l.tc = svc.NewClient("powerloss")
	return nil
}

func (l *tableLoad) setup(ctx context.Context) error {
	_, err := l.tc.CreateTable(ctx, nil)
	return err
}

type tableEntity struct {
	PartitionKey, RowKey string
	Op, Pad              string
}

func (e tableEntity) content() string { return fields(e.Op, e.Pad) }

func (l *tableLoad) step(ctx context.Context, w *worker) error {
	pk := fmt.Sprintf("w%d", w.id)
	rows := w.rng.Perm(tableRows)
	r := w.rng.IntN(10)
	if r < 6 {
		rk := fmt.Sprintf("r%d", rows[0])
		cur, exists := w.state[rk]
		if exists && r < 2 {
			w.begin(map[string]string{rk: ""})
			if _, err := l.tc.DeleteEntity(ctx, pk, rk, &aztables.DeleteEntityOptions{IfMatch: ptr(azcore.ETag(cur.etag))}); err != nil {
				return fmt.Errorf("delete entity %s/%s: %w", pk, rk, err)
			}
			return w.commit(map[string]item{rk: {}})
		}
		e := tableEntity{PartitionKey: pk, RowKey: rk, Op: w.opID(), Pad: w.padding(2000)}
		body, err := json.Marshal(e)
		if err != nil {
			return err
		}
		w.begin(map[string]string{rk: e.content()})
		var etag azcore.ETag
		if exists {
			resp, err := l.tc.UpdateEntity(ctx, body, &aztables.UpdateEntityOptions{IfMatch: ptr(azcore.ETag(cur.etag)), UpdateMode: aztables.UpdateModeReplace})
			if err != nil {
				return fmt.Errorf("update entity %s/%s: %w", pk, rk, err)
			}
			etag = resp.ETag
		} else {
			resp, err := l.tc.AddEntity(ctx, body, nil)
			if err != nil {
				return fmt.Errorf("insert entity %s/%s: %w", pk, rk, err)
			}
			etag = resp.ETag
		}
		return w.commit(map[string]item{rk: {content: e.content(), etag: string(etag)}})
	}

	// An entity-group transaction over 2 to 4 rows.
	changes := map[string]string{}
	var actions []aztables.TransactionAction
	op := w.opID()
	for _, row := range rows[:2+w.rng.IntN(3)] {
		rk := fmt.Sprintf("r%d", row)
		cur, exists := w.state[rk]
		if exists && w.rng.IntN(5) == 0 {
			body, err := json.Marshal(map[string]string{"PartitionKey": pk, "RowKey": rk})
			if err != nil {
				return err
			}
			actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeDelete, Entity: body, IfMatch: ptr(azcore.ETag(cur.etag))})
			changes[rk] = ""
			continue
		}
		e := tableEntity{PartitionKey: pk, RowKey: rk, Op: op, Pad: w.padding(2000)}
		body, err := json.Marshal(e)
		if err != nil {
			return err
		}
		if exists {
			actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeUpdateReplace, Entity: body, IfMatch: ptr(azcore.ETag(cur.etag))})
		} else {
			actions = append(actions, aztables.TransactionAction{ActionType: aztables.TransactionTypeAdd, Entity: body})
		}
		changes[rk] = e.content()
	}
	w.begin(changes)
	if _, err := l.tc.SubmitTransaction(ctx, actions, nil); err != nil {
		return fmt.Errorf("entity-group transaction on %s %s: %w", pk, describe(changes), err)
	}
	// The batch response carries no ETags: read them back, and with them
	// that the transaction wrote what it was given.
	result := map[string]item{}
	for rk, content := range changes {
		if content == "" {
			result[rk] = item{}
			continue
		}
		resp, err := l.tc.GetEntity(ctx, pk, rk, nil)
		if err != nil {
			return fmt.Errorf("get entity %s/%s after its transaction: %w", pk, rk, err)
		}
		var e tableEntity
		if err := json.Unmarshal(resp.Value, &e); err != nil {
			return err
		}
		if e.content() != content {
			return fmt.Errorf("entity %s/%s reads %s right after a transaction wrote %s", pk, rk, e.content(), content)
		}
		result[rk] = item{content: content, etag: string(resp.ETag)}
	}
	return w.commit(result)
}

// observe queries the worker's partition and reads each row: a row the
// query returns must read with the same ETag, and every row must be
// returned by the query.
func (l *tableLoad) observe(ctx context.Context, w *worker) (map[string]item, error) {
	pk := fmt.Sprintf("w%d", w.id)
	listed := map[string]item{}
	pager := l.tc.NewListEntitiesPager(&aztables.ListEntitiesOptions{Filter: ptr(fmt.Sprintf("PartitionKey eq '%s'", pk))})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			return nil, fmt.Errorf("query entities: %w", err)
		}
		for _, raw := range page.Entities {
			var e struct {
				tableEntity
				ETag string `json:"odata.etag"`
			}
			if err := json.Unmarshal(raw, &e); err != nil {
				return nil, err
			}
			listed[e.RowKey] = item{content: e.content(), etag: e.ETag}
		}
	}
	out := map[string]item{}
	for row := range tableRows {
		rk := fmt.Sprintf("r%d", row)
		resp, err := l.tc.GetEntity(ctx, pk, rk, nil)
		if isStatus(err, 404) {
			if it, ok := listed[rk]; ok {
				return nil, fmt.Errorf("entity %s/%s is queried (%s) but reads as missing", pk, rk, it.content)
			}
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("get entity %s/%s: %w", pk, rk, err)
		}
		var e tableEntity
		if err := json.Unmarshal(resp.Value, &e); err != nil {
			return nil, err
		}
		it := item{content: e.content(), etag: string(resp.ETag)}
		if listed[rk] != it {
			return nil, fmt.Errorf("entity %s/%s reads as %+v but is queried as %+v", pk, rk, it, listed[rk])
		}
		delete(listed, rk)
		out[rk] = it
	}
	for rk := range listed {
		return nil, fmt.Errorf("entity %s/%s is queried but no worker writes it", pk, rk)
	}
	return out, nil
}
