package search

import (
	"fmt"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// validateDefinition checks a definition about to be stored and puts it in
// the service's normalised shape: its own Validate, then what needs the
// store (the resources an indexer or alias names) and the stored
// definition an update replaces (nil on create). It runs inside the
// write's transaction, so references are read where the write commits.
func validateDefinition(rd kv.Reader, d, old Definition, allowDowntime bool) error {
	if ds, ok := d.(*DataSource); ok {
		oldDS, _ := old.(*DataSource)
		ds.keepSecret(oldDS)
	}
	if err := d.Validate(); err != nil {
		return err
	}
	switch d := d.(type) {
	case *Index:
		if old == nil {
			return nil
		}
		oldIndex, err := ParseIndex(old)
		if err != nil {
			return err
		}
		return checkIndexUpdate(oldIndex, d, allowDowntime)
	case *Indexer:
		for _, r := range d.references() {
			if err := mustExist(rd, r.kind, r.name, "indexer."+r.key, "indexer"); err != nil {
				return err
			}
		}
	case *Alias:
		found, err := exists(rd, Indexes, d.Indexes[0])
		if err != nil || found {
			return err
		}
		return aliasMappingError(fmt.Sprintf("An index alias can be created on an existing index. Index \u2013 '%s' was not found within the search service.", d.Indexes[0]))
	}
	return nil
}

// mustExist refuses a reference to a resource that does not exist (an
// empty name refers to nothing).
func mustExist(rd kv.Reader, kind Kind, name, where, what string) error {
	if name == "" {
		return nil
	}
	found, err := exists(rd, kind, name)
	if err != nil {
		return err
	}
	if !found {
		return invalid(where, "The %s refers to the %s '%s', which does not exist.", what, kind.label(), name)
	}
	return nil
}
