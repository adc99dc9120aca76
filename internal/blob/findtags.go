package blob

import (
	"context"
	"slices"
	"strings"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// TagFilter is a parsed Find Blobs by Tags expression: comparisons joined
// by AND (operators = > >= < <=), and at most one @container = 'name'.
type TagFilter struct {
	Container string // from @container, "" for any
	cmps      []tagComparison
}

// ParseTagFilter parses a Find Blobs by Tags where= expression.
func ParseTagFilter(s string) (*TagFilter, error) {
	c, err := parseTagExpression(s, true)
	if err != nil {
		return nil, err
	}
	f := &TagFilter{}
	for _, cmp := range c.or[0] { // the find grammar has no OR and no groups
		if cmp.key == "@container" {
			if cmp.op != "=" || f.Container != "" {
				return nil, errBadTagExpression
			}
			f.Container = cmp.value
			continue
		}
		f.cmps = append(f.cmps, cmp)
	}
	if len(f.cmps) == 0 {
		return nil, errBadTagExpression // a filter must compare at least one tag
	}
	// "Same sided range operations on the same key are invalid (for
	// example, "Rank" > '10' AND "Rank" >= '15')" (the blob index tags
	// guide); a range bounded on both sides is fine.
	for i, a := range f.cmps {
		for _, b := range f.cmps[i+1:] {
			if a.key == b.key && rangeSide(a.op) != 0 && rangeSide(a.op) == rangeSide(b.op) {
				return nil, errBadTagExpression
			}
		}
	}
	return f, nil
}

// rangeSide is +1 for a lower bound (> >=), -1 for an upper one (< <=)
// and 0 for equality.
func rangeSide(op string) int {
	switch op {
	case ">", ">=":
		return 1
	case "<", "<=":
		return -1
	}
	return 0
}

func (f *TagFilter) match(tags Tags) bool {
	c := &TagCondition{}
	for _, cmp := range f.cmps {
		if !c.compare(cmp, tags) {
			return false
		}
	}
	return true
}

// FoundBlob is one Find Blobs by Tags result, with the blob's tags that
// the filter names.
type FoundBlob struct {
	Container, Name string
	Tags            Tags
}

// FindBlobsOptions are Find Blobs by Tags' paging parameters and scope.
type FindBlobsOptions struct {
	Container string // "" searches every container of the account
	Marker    string // where the previous page stopped
	Max       int
}

// FindBlobsByTags returns, in container then name order, one page of the
// blobs whose tags satisfy f, and the marker of the next page ("" when
// there is none). It scans the tag index entries of the filter's first
// tag and checks each candidate's record against the whole filter.
func (s *Service) FindBlobsByTags(ctx context.Context, acct string, f *TagFilter, o FindBlobsOptions) ([]FoundBlob, string, error) {
	var out []FoundBlob
	var next string
	err := s.store.View(ctx, func(r kv.Reader) error {
		containers, err := s.filterContainers(r, acct, f, o.Container)
		if err != nil {
			return err
		}
		markContainer, markName, _ := strings.Cut(o.Marker, "/")
		for _, container := range containers {
			if o.Marker != "" && container < markContainer {
				continue
			}
			names, err := tagCandidates(r, acct, container, f.cmps[0])
			if err != nil {
				return err
			}
			for _, name := range names {
				if o.Marker != "" && container == markContainer && name < markName {
					continue
				}
				b, err := loadBlob(r, acct, container, name)
				if err != nil {
					return err
				}
				if b == nil || !f.match(b.Tags) {
					continue
				}
				if len(out) == o.Max {
					next = container + "/" + name
					return nil
				}
				found := FoundBlob{Container: container, Name: name}
				for _, t := range b.Tags {
					if slices.ContainsFunc(f.cmps, func(c tagComparison) bool { return c.key == t.Key }) {
						found.Tags = append(found.Tags, t)
					}
				}
				out = append(out, found)
			}
		}
		return nil
	})
	return out, next, err
}

// filterContainers lists the containers a search covers, in name order.
func (s *Service) filterContainers(r kv.Reader, acct string, f *TagFilter, scope string) ([]string, error) {
	switch {
	case scope != "":
		if err := requireContainer(r, acct, scope); err != nil {
			return nil, err
		}
		if f.Container != "" && f.Container != scope {
			return nil, nil
		}
		return []string{scope}, nil
	case f.Container != "":
		if err := requireContainer(r, acct, f.Container); err != nil {
			return nil, nil //nolint:nilerr // a search of a missing container finds nothing
		}
		return []string{f.Container}, nil
	}
	var out []string
	p := containersPrefix(acct)
	err := r.Scan(p, kv.PrefixEnd(p), func(k, _ []byte) error {
		name, err := nameAfter(k, len(p))
		if err != nil {
			return err
		}
		out = append(out, name)
		return nil
	})
	return out, err
}

// tagCandidates are the names, sorted and unique, of the container's blobs
// whose tag index entries satisfy cmp.
func tagCandidates(r kv.Reader, acct, container string, cmp tagComparison) ([]string, error) {
	p := tagIndexPrefix(acct, container).Str(cmp.key)
	if cmp.op == "=" {
		p = p.Str(cmp.value)
	}
	one := &TagCondition{}
	var out []string
	err := r.Scan(p, kv.PrefixEnd(p), func(k, _ []byte) error {
		rd, err := tuple.NewReader(k, len(tagIndexPrefix(acct, container).Str(cmp.key)))
		var value, name string
		if err == nil {
			if value, err = rd.Str(); err == nil {
				name, err = rd.Str()
			}
		}
		if err != nil {
			return err
		}
		if one.compare(cmp, Tags{{Key: cmp.key, Value: value}}) {
			out = append(out, name)
		}
		return nil
	})
	slices.Sort(out)
	return slices.Compact(out), err
}
