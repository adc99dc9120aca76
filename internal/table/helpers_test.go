package table

import (
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

const testAccount = azhttp.DevAccount

// testTime is the clock of services built by newTestService.
var (
	testTime  = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	testTicks = odata.Ticks(testTime)
)

// newTestService returns a Service over a fresh in-memory store with a
// fixed clock.
func newTestService(t testing.TB) *Service {
	t.Helper()
	store := memory.Open()
	t.Cleanup(func() {
		if err := store.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	accts := azhttp.NewAccounts(azhttp.Account{Name: azhttp.DevAccount, Keys: [][]byte{[]byte("key")}})
	return New(Config{Store: store, Accounts: accts, Now: func() time.Time { return testTime }})
}
