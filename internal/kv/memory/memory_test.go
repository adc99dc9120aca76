package memory_test

import (
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
