package blob

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// Tag is one blob index tag.
type Tag struct{ Key, Value string }

// Tags are a blob's index tags, sorted by key, keys unique.
type Tags []Tag

// Azure's limits on a blob's index tags.
const (
	maxTags     = 10
	maxTagKey   = 128
	maxTagValue = 256
)

var (
	errInvalidTag   = &azerr.Error{Status: http.StatusBadRequest, Code: "InvalidTag", Message: "The tags specified are invalid. It contains characters that are not permitted."}
	errTagsTooLarge = &azerr.Error{Status: http.StatusBadRequest, Code: "TagsTooLarge", Message: "The tags specified exceed the maximum permissible limit."}
)

// validTagChar reports whether Azure allows c in a tag key or value:
// letters, digits, space and + - . / : = _.
func validTagChar(c rune) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.ContainsRune(" +-./:=_", c)
}

// newTags validates tags against Azure's limits and returns them sorted.
func newTags(in []Tag) (Tags, error) {
	if len(in) > maxTags {
		return nil, errTagsTooLarge
	}
	out := slices.Clone(in)
	slices.SortFunc(out, func(a, b Tag) int { return strings.Compare(a.Key, b.Key) })
	for i, t := range out {
		k, v := utf8.RuneCountInString(t.Key), utf8.RuneCountInString(t.Value)
		if k == 0 || k > maxTagKey || v > maxTagValue {
			return nil, errInvalidTag.WithMessage("The tags specified are invalid. Tag keys must be 1 to 128 characters and values at most 256.")
		}
		if strings.IndexFunc(t.Key, func(c rune) bool { return !validTagChar(c) }) >= 0 ||
			strings.IndexFunc(t.Value, func(c rune) bool { return !validTagChar(c) }) >= 0 {
			return nil, errInvalidTag
		}
		if i > 0 && out[i-1].Key == t.Key {
			return nil, errInvalidTag.WithMessage("The tags specified are invalid. Tag keys must be unique.")
		}
	}
	if len(out) == 0 {
		return nil, nil
	}
	return out, nil
}

// lookup returns the value of key and whether the blob has that tag.
func (ts Tags) lookup(key string) (string, bool) {
	for _, t := range ts {
		if t.Key == key {
			return t.Value, true
		}
	}
	return "", false
}

// checkTags evaluates an x-ms-if-tags condition (nil when none was given)
// against a blob, nil when absent: a missing blob fails it.
func checkTags(cond *TagCondition, b *Blob) error {
	if cond == nil {
		return nil
	}
	if cond.malformed != "" {
		return azerr.InvalidHeaderValue("x-ms-if-tags", cond.malformed).WithMessage("The x-ms-if-tags expression is not valid.")
	}
	if b == nil || !cond.Match(b.Tags) {
		return azerr.ErrConditionNotMet
	}
	return nil
}

// checkLeaseFree applies the preconditions of a write that, like a read,
// needs no lease ID but refuses a wrong one (Snapshot Blob): the lease,
// the write conditions, the tag conditions. With needID, an active lease
// also needs its ID (Set Blob Tags).
func (s *Service) checkLeaseFree(b *Blob, pre Preconditions, needID bool) error {
	if err := b.Lease.CheckUse(s.clock(), pre.LeaseID, needID); err != nil {
		return azerr.LeaseError(err, azerr.BlobLeaseCodes)
	}
	if err := check(pre.Conditions, conditions.Write, b.state(), azerr.ErrConditionNotMet); err != nil {
		return err
	}
	return checkTags(pre.IfTags, b)
}

// SetBlobTags replaces the index tags of a blob or, as Azure allows since
// version 2020-08-04, of one of its snapshots (which the tag index, like
// Find Blobs by Tags, leaves out). Like Azure, it changes neither the
// ETag nor the Last-Modified time. A leased blob's tags need its lease ID
// (azblob's live TestSetBlobTagsWithLeaseId, block and append blobs, is
// refused without it); a snapshot or version has no lease.
func (s *Service) SetBlobTags(ctx context.Context, ref Ref, tags Tags, pre Preconditions) error {
	acct, container, name, snapshot := ref.Account, ref.Container, ref.Name, ref.Snapshot
	return s.store.Update(ctx, func(tx kv.Txn) error {
		b, err := findBlob(tx, acct, container, name, snapshot)
		if err != nil {
			return err
		}
		if err := s.checkLeaseFree(b, pre, b.point == ""); err != nil {
			return err
		}
		if b.point != "" {
			// A snapshot or previous version; the blob itself (also when
			// addressed by its current version ID) is indexed below.
			b.Tags = tags
			return record.Store(tx, pointRecordKey(acct, container, name, b.point), b)
		}
		if err := indexTags(tx, acct, container, name, b.Tags, tags); err != nil {
			return err
		}
		b.Tags = tags
		return record.Store(tx, blobKey(acct, container, name), b)
	})
}

// GetBlobTags returns the index tags of a blob or of one of its snapshots.
func (s *Service) GetBlobTags(ctx context.Context, ref Ref, pre Preconditions) (Tags, error) {
	acct, container, name, snapshot := ref.Account, ref.Container, ref.Name, ref.Snapshot
	var out Tags
	err := s.view(ctx, func(t *Tx) error {
		b, err := t.existingBlob(acct, container, name, snapshot, conditions.Read, Preconditions{LeaseID: pre.LeaseID, IfTags: pre.IfTags})
		if err != nil {
			return err
		}
		// The blob's conditions fail as a write's do: 412, never 304.
		if err := check(pre.Conditions, conditions.Write, b.state(), azerr.ErrConditionNotMet); err != nil {
			return err
		}
		out = b.Tags
		return nil
	})
	return out, err
}

// indexTags moves a blob's entries in the tag index from its old tags to
// its new ones, touching only the tags that changed.
func indexTags(tx kv.Txn, acct, container, name string, old, tags Tags) error {
	for _, t := range old {
		if v, ok := tags.lookup(t.Key); ok && v == t.Value {
			continue
		}
		if err := tx.Delete(tagIndexKey(acct, container, t.Key, t.Value, name)); err != nil {
			return err
		}
	}
	for _, t := range tags {
		if v, ok := old.lookup(t.Key); ok && v == t.Value {
			continue
		}
		if err := tx.Set(tagIndexKey(acct, container, t.Key, t.Value, name), nil); err != nil {
			return err
		}
	}
	return nil
}
