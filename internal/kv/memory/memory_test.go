package memory_test

import (
	"context"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/kvtest"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
)

func TestConformance(t *testing.T) {
	kvtest.Run(t, kvtest.Opener{Open: func(t *testing.T) kv.Store {
		s := memory.Open()
		t.Cleanup(func() {
			if err := s.Close(); err != nil {
				t.Error(err)
			}
		})
		return s
	}})
}

// TestSettleCostsNothing: the embedded engines number appends at commit,
// so kv.Settle, which a change feed runs before every page, runs no
// transaction on them.
func TestSettleCostsNothing(t *testing.T) {
	s := memory.Open()
	defer func() { _ = s.Close() }()
	a, ok := s.(kv.NumbersAtCommit)
	if !ok || !a.NumbersAppendsAtCommit() {
		t.Fatal("the memory engine does not say that it numbers appends at commit")
	}
	if err := kv.Settle(context.Background(), s, []byte("seq"), func(n uint64, _ int) []byte { return nil }); err != nil {
		t.Fatal(err)
	}
}
