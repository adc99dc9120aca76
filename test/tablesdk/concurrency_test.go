package tablesdk_test

import (
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
)

// TestNoLostUpdate: 16 clients increment one counter by read, merge with
// If-Match, retry on 412. The final value equals the number of merges
// that succeeded: none was lost, none applied twice.
func TestNoLostUpdate(t *testing.T) {
	f := newFixture(t)
	c := f.newTable()
	ctx := t.Context()
	_, err := c.AddEntity(ctx, entity("p", "counter", map[string]any{"N": int32(0)}), nil)
	must(t, err, "AddEntity")

	const workers, perWorker = 16, 15
	var succeeded, conflicts atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		client, err := aztables.NewServiceClientFromConnectionString(f.env.ConnectionString, clientOptions())
		must(t, err, "client")
		tc := client.NewClient(c.name)
		wg.Go(func() {
			for done := 0; done < perWorker; {
				resp, err := tc.GetEntity(ctx, "p", "counter", nil)
				if err != nil {
					errs <- err
					return
				}
				var e aztables.EDMEntity
				if err := json.Unmarshal(resp.Value, &e); err != nil {
					errs <- err
					return
				}
				n := e.Properties["N"].(int32)
				_, err = tc.UpdateEntity(ctx, entity("p", "counter", map[string]any{"N": n + 1}),
					&aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge, IfMatch: &resp.ETag})
				var re *azcore.ResponseError
				switch {
				case err == nil:
					succeeded.Add(1)
					done++
				case errors.As(err, &re) && re.StatusCode == http.StatusPreconditionFailed && re.ErrorCode == "UpdateConditionNotSatisfied":
					conflicts.Add(1)
				default:
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	e, _ := getEntity(t, c, "p", "counter")
	if got := int64(e.Properties["N"].(int32)); got != succeeded.Load() || got != workers*perWorker {
		t.Fatalf("counter = %d, successful increments = %d (want %d)", got, succeeded.Load(), workers*perWorker)
	}
	t.Logf("%d increments, %d lost races retried", succeeded.Load(), conflicts.Load())
}
