package extentstore

import (
	"reflect"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// piece is a test extent record; Tag shows that WithSpan keeps the rest.
type piece struct {
	S   Span
	Tag string
}

func (p piece) Span() Span { return p.S }

func (p piece) WithSpan(s Span) piece { p.S = s; return p }

func TestCutKeepsOuterParts(t *testing.T) {
	s := newStore(t)
	prefix := tuple.New("Xx")
	put := func(tx kv.Txn, p piece) error {
		return record.Store(tx, prefix.Uint(uint64(p.S.Offset+p.S.Size)), p)
	}
	a := piece{Span{Data: 1, Offset: 0, Size: 10}, "a"}
	b := piece{Span{Data: 2, DataOff: 4, Offset: 20, Size: 10}, "b"}
	c := piece{Span{Data: 3, Offset: 40, Size: 5}, "c"}
	var dropped map[uint64]piece
	err := s.Update(t.Context(), func(tx kv.Txn) error {
		for _, p := range []piece{a, b, c} {
			if err := put(tx, p); err != nil {
				return err
			}
		}
		var err error
		dropped, err = Cut[piece](tx, prefix, 5, 25)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 0 {
		t.Fatalf("nothing was removed whole, dropped %v", dropped)
	}
	var got []piece
	err = s.View(t.Context(), func(r kv.Reader) (err error) {
		got, err = Overlapping[piece](r, prefix, 0, 100)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []piece{
		{Span{Data: 1, Offset: 0, Size: 5}, "a"},
		{Span{Data: 2, DataOff: 9, Offset: 25, Size: 5}, "b"},
		c,
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("after cutting [5,25): %+v, want %+v", got, want)
	}
	err = s.Update(t.Context(), func(tx kv.Txn) error {
		var err error
		dropped, err = Cut[piece](tx, prefix, 24, 45)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(dropped) != 2 || dropped[2].Tag != "b" || dropped[3].Tag != "c" {
		t.Fatalf("cutting [24,45) dropped %+v, want b and c", dropped)
	}
	err = s.View(t.Context(), func(r kv.Reader) (err error) {
		got, err = Overlapping[piece](r, prefix, 3, 30)
		return err
	})
	if err != nil || len(got) != 1 || got[0].S.Size != 5 {
		t.Fatalf("left: %+v, %v", got, err)
	}
}
