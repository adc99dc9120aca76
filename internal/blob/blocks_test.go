package blob

import (
	"errors"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestPutBlockListDatesUncommittedBlob: a blob that has only uncommitted
// blocks takes If-Modified-Since and If-Unmodified-Since against the time
// its last block was staged. Azure answers 412 to Put Block List with
// If-Modified-Since ten seconds after the block was staged
// (go-azblob-TestBlobPutBlockListIfModifiedSinceFalse); a blob with no
// blocks at all is not there to be dated, so no date condition fails.
func TestPutBlockListDatesUncommittedBlob(t *testing.T) {
	start := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	clock := testkit.NewClock(start)
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	s := New(Config{Store: store, Now: clock.Now})
	ctx := t.Context()
	if _, err := s.CreateContainer(ctx, ContainerRef{Account: testAcct, Container: "c"}, CreateContainerOptions{}); err != nil {
		t.Fatal(err)
	}
	ref := Ref{Account: testAcct, Container: "c", Name: "b"}
	if _, err := s.PutBlock(ctx, ref, []byte("id-1"), contentOf([]byte("one")), ""); err != nil {
		t.Fatal(err)
	}
	clock.Advance(5 * time.Second)
	if _, err := s.PutBlock(ctx, ref, []byte("id-2"), contentOf([]byte("two")), ""); err != nil {
		t.Fatal(err)
	}
	staged := start.Add(5 * time.Second)
	clock.Advance(time.Second)
	list := []BlockRef{{ID: []byte("id-1"), From: Latest}, {ID: []byte("id-2"), From: Latest}}
	commit := func(c conditions.Conditions) error {
		_, err := s.PutBlockList(ctx, ref, list, PutBlobOptions{Conditions: Preconditions{Conditions: c}})
		return err
	}
	for _, tc := range []struct {
		name string
		c    conditions.Conditions
	}{
		{"If-Modified-Since after the last block", conditions.Conditions{IfModifiedSince: staged.Add(10 * time.Second)}},
		{"If-Modified-Since at the last block", conditions.Conditions{IfModifiedSince: staged}},
		{"If-Unmodified-Since before the last block", conditions.Conditions{IfUnmodifiedSince: staged.Add(-time.Second)}},
	} {
		if err := commit(tc.c); !errors.Is(err, azerr.ErrConditionNotMet) {
			t.Errorf("%s: %v, want ConditionNotMet", tc.name, err)
		}
	}
	if err := commit(conditions.Conditions{IfModifiedSince: staged.Add(-time.Second), IfUnmodifiedSince: staged}); err != nil {
		t.Fatalf("dates that hold for the last block: %v", err)
	}

	// No blob and no blocks: nothing is dated.
	empty := Ref{Account: testAcct, Container: "c", Name: "empty"}
	if _, err := s.PutBlockList(ctx, empty, nil, PutBlobOptions{Conditions: Preconditions{Conditions: conditions.Conditions{IfModifiedSince: clock.Now().Add(time.Hour)}}}); err != nil {
		t.Errorf("empty commit of a new blob with If-Modified-Since: %v", err)
	}
}
