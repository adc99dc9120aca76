package pebble_test

import (
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/kvtest"
	"github.com/cerulean-db/cerulean/internal/kv/pebble"
)

func TestConformance(t *testing.T) {
	kvtest.Run(t, kvtest.Opener{
		Open: func(t *testing.T) kv.Store { return openIn(t, t.TempDir()) },
		Reopen: func(t *testing.T, old kv.Store) kv.Store {
			dir := dirs[old.(*pebble.Store)]
			if err := old.Close(); err != nil {
				t.Fatal(err)
			}
			return openIn(t, dir)
		},
	})
}

// openIn opens the store in dir, closed when the test ends.
func openIn(t *testing.T, dir string) *pebble.Store {
	s, err := pebble.Open(dir, pebble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	dirs[s] = dir
	return s
}

// dirs remembers each open store's directory; the suite runs serially.
var dirs = map[*pebble.Store]string{}
