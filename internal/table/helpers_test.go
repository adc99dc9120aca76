package table

import (
	"context"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

const testAccount = azauth.DevAccount

// testTime is the clock of services built by newTestService.
var (
	testTime  = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	testTicks = odata.Ticks(testTime)
)

// newTestService returns a Service over a fresh in-memory store with a
// fixed clock; when the test ends, the store must pass CheckInvariants.
func newTestService(t testing.TB) *Service {
	t.Helper()
	store := memory.Open()
	accts := azauth.NewAccounts(azauth.Account{Name: azauth.DevAccount, Keys: [][]byte{[]byte("key")}})
	s := New(Config{Store: store, Accounts: accts, Now: func() time.Time { return testTime }})
	t.Cleanup(func() {
		if err := s.CheckInvariants(context.Background()); err != nil {
			t.Errorf("after the test: %v", err)
		}
		if err := store.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	return s
}
