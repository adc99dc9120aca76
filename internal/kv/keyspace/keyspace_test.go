package keyspace

import (
	"strings"
	"testing"
)

// TestTagsDisjoint: no two tags are equal and none is a prefix of
// another, so a key belongs to one owner only and a range over one tag
// never reaches into another's keys.
func TestTagsDisjoint(t *testing.T) {
	for i, a := range All {
		if a.Prefix == "" || a.Owner == "" || a.About == "" {
			t.Errorf("tag %q: prefix, owner and description are all required: %+v", a.Prefix, a)
		}
		for j, b := range All {
			if i != j && strings.HasPrefix(b.Prefix, a.Prefix) {
				t.Errorf("tag %q (%s) is a prefix of tag %q (%s)", a.Prefix, a.Owner, b.Prefix, b.Owner)
			}
		}
	}
}

// TestSpaces: each service owns one first byte, no two the same, every
// tag starting with it is that service's, and no tag is a whole space.
func TestSpaces(t *testing.T) {
	seen := map[string]string{}
	for _, s := range Spaces {
		if len(s.Prefix) != 1 {
			t.Errorf("space of %s is %q, want one byte", s.Service, s.Prefix)
		}
		if other, dup := seen[s.Prefix]; dup {
			t.Errorf("space %q is both %s's and %s's", s.Prefix, other, s.Service)
		}
		seen[s.Prefix] = s.Service
		n := 0
		for _, tag := range All {
			if !strings.HasPrefix(tag.Prefix, s.Prefix) {
				continue
			}
			n++
			if tag.Prefix == s.Prefix {
				t.Errorf("tag %q is the whole %s space", tag.Prefix, s.Service)
			}
			if tag.Owner != s.Owner && !strings.HasPrefix(tag.Owner, s.Owner+"/") {
				t.Errorf("tag %q lies in the %s space but belongs to %s", tag.Prefix, s.Service, tag.Owner)
			}
		}
		if n == 0 {
			t.Errorf("space %q (%s) has no tags", s.Prefix, s.Service)
		}
	}
}
