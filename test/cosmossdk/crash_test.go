package cosmossdk

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cerulean-db/cerulean/internal/servertest"
)

// TestAcknowledgedItemsSurviveKill9 writes items from several clients,
// kills the server with SIGKILL while they write, restarts it on the same
// data directory and checks that every acknowledged item is there with
// the acknowledged _etag.
func TestAcknowledgedItemsSurviveKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a real server")
	}
	bin, dataDir := servertest.BuildBinary(t), t.TempDir()
	proc, env := startKillable(t, bin, dataDir)
	ctx := context.Background()
	createItems(t, newClient(t, env))
	var mu sync.Mutex
	acked := map[string]string{} // "pk/id" -> etag
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			cc, _ := newClient(t, env).NewContainer("db", "items")
			pk := "w" + strconv.Itoa(w)
			for i := 0; ; i++ {
				id := strconv.Itoa(i)
				r, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), mustJSON(t, map[string]any{"id": id, "pk": pk}), nil)
				if err != nil {
					return // the server died
				}
				mu.Lock()
				acked[pk+"/"+id] = string(r.ETag)
				mu.Unlock()
			}
		})
	}
	// Kill once some writes are acknowledged, while others are in flight.
	t0 := time.Now()
	for time.Since(t0) < 15*time.Second {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 10 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	proc.Kill()
	wg.Wait()

	_, env = startKillable(t, bin, dataDir)
	cc, _ := newClient(t, env).NewContainer("db", "items")
	mu.Lock()
	defer mu.Unlock()
	if len(acked) == 0 {
		t.Fatal("no write was acknowledged before the kill")
	}
	for key, etag := range acked {
		pk, id, _ := strings.Cut(key, "/")
		r, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString(pk), id, nil)
		if err != nil {
			t.Fatalf("acknowledged item %s lost: %v", key, err)
		}
		if string(r.ETag) != etag {
			t.Fatalf("item %s has etag %s, acknowledged %s", key, r.ETag, etag)
		}
	}
	t.Logf("%d acknowledged items survived kill -9 (%v)", len(acked), time.Since(t0))
}
