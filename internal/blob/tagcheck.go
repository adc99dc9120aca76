package blob

import (
	"slices"

	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// tagEntry files one tag index entry (Ba acct t container key value blob).
func (c *checker) tagEntry(acct, container string, rd *tuple.Reader) error {
	key, err := rd.Str()
	if err != nil {
		return err
	}
	value, err := rd.Str()
	if err != nil {
		return err
	}
	name, err := rd.Str()
	if err != nil {
		return err
	}
	b := blobID{acct, container, name}
	c.tagIndex[b] = append(c.tagIndex[b], Tag{Key: key, Value: value})
	return nil
}

// verifyTagIndex checks that the tag index holds exactly the tags of every
// blob: no entry for a tag a blob lacks or a blob that is gone, none
// missing; and that stored tags are valid and sorted.
func (c *checker) verifyTagIndex() {
	for b, rec := range c.blobs {
		tags := rec.Tags
		if valid, err := newTags(tags); err != nil || !slices.Equal(valid, tags) {
			c.Fail("blob %s: stored tags %v are not valid and sorted (%v)", b, tags, err)
		}
		// Index entries come in key order, which is the tags' sort order.
		if got := c.tagIndex[b]; !slices.Equal(got, tags) {
			c.Fail("blob %s: tag index %v, record tags %v", b, got, tags)
		}
	}
	for b, got := range c.tagIndex {
		if c.blobs[b] == nil {
			c.Fail("tag index entries %v for missing blob %s", got, b)
		}
	}
}
