package table

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// Azure's entity limits. Sizes are counted as Azure counts them: strings
// in UTF-16 bytes (two per code unit), per the size formula of "Understanding
// the Table service data model".
const (
	maxKeyBytes      = 1 << 10  // PartitionKey, RowKey
	maxProperties    = 252      // besides PartitionKey, RowKey and Timestamp
	maxPropertyName  = 255      // characters
	maxValueBytes    = 64 << 10 // one String or Binary value
	maxEntityBytes   = 1 << 20  // the whole entity
	systemProperties = 3
)

// sortProperties puts props in the order Azure keeps the properties of
// an entity written by Update, Merge, Insert Or Replace or Insert Or
// Merge (a batch's included): by name, byte by byte, so "Birthday"
// before "age". Insert Entity keeps the order the request gave. Every
// Table recording under test/parity agrees: the Python, Go and .NET
// tests' entities read back after an update, merge or upsert list their
// properties sorted (test_table_entity.py's test_update_entity,
// test_merge_entity, test_insert_or_replace_entity_*,
// test_insert_or_merge_entity_*; go-aztables-TestMergeEntity_storage;
// net-TableClientLiveTests-UpsertAndQueryWithSingleQuoteNames), those
// inserted list them as sent.
func sortProperties(props []Property) {
	slices.SortFunc(props, func(a, b Property) int { return strings.Compare(a.Name, b.Name) })
}

// Property is one user property of an entity.
type Property struct {
	Name  string
	Value odata.Value
}

// Entity is a stored entity: its keys, the commit version that wrote it,
// its server-set Timestamp (in ticks) and its properties in the order
// they were written.
type Entity struct {
	PartitionKey, RowKey string
	Version              uint64
	Timestamp            int64
	Properties           []Property
}

// Get returns a property by name, the system properties included.
func (e *Entity) Get(name string) (odata.Value, bool) {
	switch name {
	case "PartitionKey":
		return odata.StringValue(e.PartitionKey), true
	case "RowKey":
		return odata.StringValue(e.RowKey), true
	case "Timestamp":
		return odata.DateTimeValue(e.Timestamp), true
	}
	for _, p := range e.Properties {
		if p.Name == name {
			return p.Value, true
		}
	}
	return odata.Value{}, false
}

// ETag is the entity's ETag (see doc.go).
func (e *Entity) ETag() string { return etag(e.Version) }

// merge overlays props onto e's properties: named ones are replaced in
// place, new ones appended.
func (e *Entity) merge(props []Property) {
	for _, p := range props {
		found := false
		for i := range e.Properties {
			if e.Properties[i].Name == p.Name {
				e.Properties[i].Value, found = p.Value, true
				break
			}
		}
		if !found {
			e.Properties = append(e.Properties, p)
		}
	}
}

// validate checks the whole entity against Azure's limits; merges are
// checked after merging, since the result is what must fit.
func (e *Entity) validate() error {
	if len(e.Properties) > maxProperties {
		return azerr.ErrTooManyProperties.WithMessage("The entity contains more properties than allowed. Each entity can include up to %d properties to store data. Each entity also has 3 system properties.", maxProperties)
	}
	if e.size() > maxEntityBytes {
		return azerr.ErrEntityTooLarge.WithMessage("The entity is larger than the maximum allowed size (1MB).")
	}
	return nil
}

// size is Azure's entity size formula: 4 bytes, the keys' characters at
// two bytes each, and per property 8 bytes, its name's characters at two
// bytes each and its value's size.
func (e *Entity) size() int {
	n := 4 + utf16Bytes(e.PartitionKey) + utf16Bytes(e.RowKey)
	for _, p := range e.Properties {
		n += 8 + utf16Bytes(p.Name) + valueSize(p.Value)
	}
	return n
}

func valueSize(v odata.Value) int {
	switch v.Type {
	case odata.String:
		return 4 + utf16Bytes(v.Str)
	case odata.Binary:
		return 4 + len(v.Str)
	case odata.Boolean:
		return 1
	case odata.Int32:
		return 4
	case odata.Guid:
		return 16
	default: // Int64, Double, DateTime
		return 8
	}
}

// utf16Bytes is the size of s in UTF-16.
func utf16Bytes(s string) int {
	n := 0
	for _, r := range s {
		n += 2 * utf16.RuneLen(r)
	}
	return n
}

// validateKey applies Azure's rules for PartitionKey and RowKey values.
func validateKey(name, v string) error {
	if utf16Bytes(v) > maxKeyBytes {
		return azerr.ErrKeyValueTooLarge.WithMessage("The %s value exceeds the maximum size of 1 KiB.", name)
	}
	if !utf8.ValidString(v) {
		return azerr.ErrInvalidInput.WithMessage("The %s value is not valid UTF-8.", name)
	}
	for _, r := range v {
		if r == '/' || r == '\\' || r == '#' || r == '?' || r <= 0x1f || r >= 0x7f && r <= 0x9f {
			return azerr.ErrOutOfRangeInput.WithMessage("The '%s' parameter of value '%s' is out of range: the characters / \\ # ? and control characters are not allowed.", name, v)
		}
	}
	return nil
}

// validatePropertyName applies Azure's rules for property names: at most
// 255 characters, and a C# identifier.
func validatePropertyName(name string) error {
	if utf8.RuneCountInString(name) > maxPropertyName {
		return azerr.ErrPropertyNameTooLong.WithMessage("The property name %.40q... exceeds the maximum allowed length (%d).", name, maxPropertyName)
	}
	for i, r := range name {
		if r == '_' || unicode.IsLetter(r) || i > 0 && (unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r) || unicode.Is(unicode.Pc, r)) {
			continue
		}
		return azerr.ErrPropertyNameInvalid.WithMessage("The property name %q is invalid: property names must be C# identifiers.", name)
	}
	if name == "" {
		return azerr.ErrPropertyNameInvalid.WithMessage("A property name is empty.")
	}
	return nil
}

// validateValue checks one value against the per-value size limits.
func validateValue(name string, v odata.Value) error {
	switch v.Type {
	case odata.String:
		if utf16Bytes(v.Str) > maxValueBytes {
			return azerr.ErrPropertyValueTooLarge.WithMessage("The value of property %q is larger than 64 KiB.", name)
		}
	case odata.Binary:
		if len(v.Str) > maxValueBytes {
			return azerr.ErrPropertyValueTooLarge.WithMessage("The value of property %q is larger than 64 KiB.", name)
		}
	case odata.DateTime:
		if v.Num < odata.MinDateTime || v.Num > odata.MaxDateTime {
			return azerr.ErrOutOfRangeInput.WithMessage("The DateTime value of property %q is outside 1601-01-01 to 9999-12-31.", name)
		}
	}
	return nil
}
