package queue

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

func TestCreateQueueIdempotence(t *testing.T) {
	s, _ := newTestService(t)
	ctx := context.Background()
	meta := azhttp.Metadata{{"a", "1"}, {"b", "2"}}
	created, err := s.CreateQueue(ctx, acct, "q", meta)
	if err != nil || !created {
		t.Fatalf("first create: %v %v", created, err)
	}
	created, err = s.CreateQueue(ctx, acct, "q", azhttp.Metadata{{"b", "2"}, {"a", "1"}})
	if err != nil || created {
		t.Fatalf("create with the same metadata: created=%v err=%v, want 204", created, err)
	}
	_, err = s.CreateQueue(ctx, acct, "q", azhttp.Metadata{{"a", "1"}})
	wantErr(t, err, azerr.ErrQueueAlreadyExists, "create with other metadata")
	_, err = s.CreateQueue(ctx, acct, "q", nil)
	wantErr(t, err, azerr.ErrQueueAlreadyExists, "create with no metadata")
}

func TestQueueMetadataAndCount(t *testing.T) {
	s, _ := newTestService(t)
	ctx := context.Background()
	mustCreate(t, s, "q")
	for range 3 {
		mustPut(t, s, "q", "x", PutOptions{})
	}
	mustGet(t, s, "q", 1, 30e9) // invisible messages still count
	if err := s.SetQueueMetadata(ctx, acct, "q", azhttp.Metadata{{"k", "v"}}); err != nil {
		t.Fatal(err)
	}
	p, err := s.GetQueueProperties(ctx, acct, "q")
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := p.Metadata.Get("k"); v != "v" || p.ApproximateMessages != 3 {
		t.Errorf("properties: %+v", p)
	}
	wantErr(t, s.SetQueueMetadata(ctx, acct, "nope", nil), azerr.ErrQueueNotFound, "set metadata of missing queue")
	_, err = s.GetQueueProperties(ctx, acct, "nope")
	wantErr(t, err, azerr.ErrQueueNotFound, "properties of missing queue")
}

func TestListQueuesPages(t *testing.T) {
	s, _ := newTestService(t)
	ctx := context.Background()
	var want []string
	for i := range 7 {
		name := fmt.Sprintf("q%02d", i)
		mustCreate(t, s, name)
		want = append(want, name)
	}
	mustCreate(t, s, "other")
	var got []string
	marker := ""
	for {
		page, next, err := s.ListQueues(ctx, acct, "q", marker, 3)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range page {
			got = append(got, q.Name)
		}
		if next == "" {
			break
		}
		marker = next
	}
	if !slices.Equal(got, want) {
		t.Errorf("listed %v, want %v", got, want)
	}
}
