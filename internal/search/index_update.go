package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
)

// checkIndexUpdate refuses what the service refuses on an existing index:
// a changed or removed field (only retrievable, searchAnalyzer and
// synonymMaps may change, and sub-fields may be added), a changed
// analysis component, and new analysis components unless the caller
// allowed downtime.
func checkIndexUpdate(old, next *Index, allowDowntime bool) error {
	if err := compareFields(old.Fields, next.Fields); err != nil {
		return err
	}
	if err := checkNewSuggesters(old, next); err != nil {
		return err
	}
	if allowDowntime {
		return nil
	}
	for _, list := range []struct{ old, next []AnalysisComponent }{
		{components(old.Analyzers), components(next.Analyzers)},
		{components(old.Tokenizers), components(next.Tokenizers)},
		{components(old.TokenFilters), components(next.TokenFilters)},
		{components(old.CharFilters), components(next.CharFilters)},
		{components(old.Normalizers), components(next.Normalizers)},
	} {
		if !sameComponents(list.old, list.next) {
			return needsDowntime()
		}
	}
	return nil
}

// sameComponents reports whether two lists define the same components by
// name, each unchanged.
func sameComponents(old, next []AnalysisComponent) bool {
	byName := map[string]AnalysisComponent{}
	for _, c := range next {
		byName[c.ComponentName()] = c
	}
	for _, o := range old {
		n, ok := byName[o.ComponentName()]
		if !ok || !sameJSON(o, n) {
			return false
		}
		delete(byName, o.ComponentName())
	}
	return len(byName) == 0
}

// checkNewSuggesters refuses a suggester added to an existing index over
// fields the index already had: only fields added by the same update may
// feed a new one (the Java SDK's recording
// IndexManagementTests.createOrUpdateIndexThrowsWhenUpdatingSuggesterWithExistingIndexFieldsSync).
func checkNewSuggesters(old, next *Index) error {
	had := map[string]bool{}
	for _, s := range old.Suggesters {
		had[s.Name] = true
	}
	existing := fieldsByPath(old.Fields)
	for _, s := range next.Suggesters {
		if had[s.Name] {
			continue
		}
		var present []string
		for _, f := range s.SourceFields {
			if existing[f] != nil {
				present = append(present, f)
			}
		}
		if len(present) > 0 {
			msg := fmt.Sprintf("Fields that were already present in an index (%s) cannot be referenced by a new suggester. Only new fields added in the same index update operation are allowed.", strings.Join(present, ", "))
			return detailed(http.StatusBadRequest, "OperationNotAllowed", "InvalidSuggesterUpdate", msg)
		}
	}
	return nil
}

// changeableFieldProperties may differ between a field's old and new
// definitions.
var changeableFieldProperties = []string{"retrievable", "searchAnalyzer", "synonymMaps", "fields"}

func compareFields(oldFields, newFields []*Field) error {
	newByName := map[string]*Field{}
	for _, f := range newFields {
		newByName[f.Name] = f
	}
	for _, o := range oldFields {
		n, ok := newByName[o.Name]
		if !ok {
			return detailed(http.StatusBadRequest, "OperationNotAllowed", "CannotChangeExistingField", fmt.Sprintf("Existing field '%s' cannot be removed.", o.Name))
		}
		a, b := jsonObject(o), jsonObject(n)
		for _, k := range changeableFieldProperties {
			delete(a, k)
			delete(b, k)
		}
		if !sameJSON(a, b) {
			return cannotChange(o.Name)
		}
		if err := compareFields(o.Fields, n.Fields); err != nil {
			return err
		}
	}
	return nil
}

// jsonObject is v's JSON encoding decoded as an object (nil when v does
// not encode as one).
func jsonObject(v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	m, _ := decodeObject(b)
	return m
}

// sameJSON compares two values by their JSON encoding (maps encode with
// sorted keys, so key order does not matter).
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
