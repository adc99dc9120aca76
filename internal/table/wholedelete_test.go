package table

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/table/odata"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestTableDeleteLeavesNothing deletes a table holding small and large
// (chunked) entities in several partitions and an access policy: what
// is left is what the store held before the table was made, but the ETag
// watermark its writes raised; the table next to it keeps its entity.
func TestTableDeleteLeavesNothing(t *testing.T) {
	s := newTestService(t)
	ctx := t.Context()
	if _, err := s.CreateTable(ctx, testAccount, "Other"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.WriteEntity(ctx, testAccount, "Other", EntityWrite{Kind: WriteInsert, PartitionKey: "p", RowKey: "r"}); err != nil {
		t.Fatal(err)
	}
	before := testkit.Keys(t, s.store, nil)
	if _, err := s.CreateTable(ctx, testAccount, "Full"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetTableACL(ctx, testAccount, "Full", []azauth.SignedIdentifier{{ID: "policy"}}); err != nil {
		t.Fatal(err)
	}
	var large []Property
	for i := range 15 {
		large = append(large, Property{fmt.Sprintf("S%d", i), odata.StringValue(strings.Repeat("x", 32<<10))})
	}
	for _, w := range []EntityWrite{
		{Kind: WriteInsert, PartitionKey: "p", RowKey: "small", Properties: []Property{{"N", odata.StringValue("v")}}},
		{Kind: WriteInsert, PartitionKey: "p", RowKey: "large", Properties: large},
		{Kind: WriteInsert, PartitionKey: "q", RowKey: "large", Properties: large},
	} {
		if _, err := s.WriteEntity(ctx, testAccount, "Full", w); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.CheckInvariants(ctx); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteTable(ctx, testAccount, "full"); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckInvariants(ctx); err != nil {
		t.Fatalf("after the deletion: %v", err)
	}
	watermark := string(clockKey())
	skip := func(k string) bool { return k == watermark }
	if d := testkit.DiffKeys(before.Without(skip), testkit.Keys(t, s.store, nil).Without(skip)); d != "" {
		t.Fatalf("the deleted table left keys: %s", d)
	}
}
