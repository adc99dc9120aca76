package cosmos

import (
	"encoding/json"
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// undefinedComponent is the canonical form of a partition-key component
// whose path is absent from the item (Cosmos DB's "None"/undefined value,
// sent by SDKs as {}).
const undefinedComponent = "{}"

// pkComponent renders one partition-key value canonically, so that the
// value from a header and the same value extracted from an item give the
// same key: numbers as float64 (1 and 1.0 are one value), objects as
// undefined.
func pkComponent(v any) (string, error) {
	switch x := v.(type) {
	case nil:
		return "null", nil
	case map[string]any:
		if len(x) != 0 {
			return "", badRequest("A partition key value must be a string, number, boolean, null or {} (undefined).")
		}
		return undefinedComponent, nil
	case json.Number:
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) {
			return "", badRequest("The partition key number %s is out of range.", x)
		}
		v = f
	case float64, string, bool:
	default:
		return "", badRequest("A partition key value must be a string, number, boolean, null or {} (undefined).")
	}
	b, err := marshal(v)
	if err != nil {
		return "", badRequest("The partition key value is invalid.")
	}
	return string(b), nil
}

// PartitionKey names a logical partition: the JSON array of the key's
// components, as the x-ms-documentdb-partitionkey header and the batch
// format carry it (["a"], ["a", 1] for a hierarchical key, [] or [{}] for
// a container without one). Empty names none: a write then takes the key
// from its document. A feed or query may name a prefix of a hierarchical
// key, or none for the whole container.
//
// It stays in its JSON form so that the gateway passes the header through
// and script bindings build it with NewPartitionKey; it is parsed (and
// rejected with ErrBadRequest) by the operation that uses it.
type PartitionKey string

// NewPartitionKey returns the key with the given components: strings,
// numbers, booleans, nil (JSON null) or an empty map[string]any (the
// undefined value).
func NewPartitionKey(components ...any) (PartitionKey, error) {
	if components == nil {
		components = []any{}
	}
	b, err := marshal(components)
	if err != nil {
		return "", badRequest("The partition key value is invalid.")
	}
	return PartitionKey(b), nil
}

func (pk PartitionKey) components() ([]string, bool, error) {
	return parsePartitionKeyHeader(string(pk))
}

// parsePartitionKeyHeader parses x-ms-documentdb-partitionkey, a JSON
// array of the key's components. ok is false when the header is absent.
func parsePartitionKeyHeader(h string) (pk []string, ok bool, err error) {
	h = strings.TrimSpace(h)
	if h == "" {
		return nil, false, nil
	}
	vals, err := decodePartitionKey(h)
	if err != nil && strings.Contains(h, `\U`) {
		vals, err = decodePartitionKey(goEscapes.ReplaceAllStringFunc(h, goEscapeToRune))
	}
	if err != nil {
		return nil, true, badRequest("The partition key %q is invalid: it must be a JSON array.", h)
	}
	for _, v := range vals {
		c, err := pkComponent(v)
		if err != nil {
			return nil, true, err
		}
		pk = append(pk, c)
	}
	return pk, true, nil
}

func decodePartitionKey(h string) ([]any, error) {
	dec := json.NewDecoder(strings.NewReader(h))
	dec.UseNumber()
	var vals []any
	err := dec.Decode(&vals)
	return vals, err
}

// goEscapes matches the \UXXXXXXXX escapes of Go's strconv.QuoteToASCII,
// which azcosmos uses to quote partition-key strings: JSON has no such
// escape, so characters outside the Basic Multilingual Plane arrive so.
var goEscapes = regexp.MustCompile(`\\U[0-9a-fA-F]{8}`)

func goEscapeToRune(m string) string {
	n, err := strconv.ParseUint(m[2:], 16, 32)
	if err != nil || !utf8.ValidRune(rune(n)) {
		return m
	}
	return string(rune(n))
}

// lookupPath returns the value at a property path of a document.
func lookupPath(doc map[string]any, path []string) (any, bool) {
	var cur any = doc
	for _, p := range path {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		cur, ok = m[p]
		if !ok {
			return nil, false
		}
	}
	return cur, true
}

// partitionKeyOf extracts an item's partition key.
func (c *container) partitionKeyOf(doc map[string]any) ([]string, error) {
	var pk []string
	for _, p := range c.pkPaths {
		v, ok := lookupPath(doc, p)
		if !ok {
			pk = append(pk, undefinedComponent)
			continue
		}
		comp, err := pkComponent(v)
		if err != nil {
			return nil, err
		}
		pk = append(pk, comp)
	}
	return pk, nil
}

// requestPartitionKey resolves the logical partition of a point operation
// from the header: it must name every component (a container without a
// partition key takes [] or [{}]).
func (c *container) requestPartitionKey(pk []string, ok bool) ([]string, error) {
	if len(c.pkPaths) == 0 {
		return nil, nil
	}
	if !ok {
		return nil, badRequest("PartitionKey value must be supplied for this operation.")
	}
	if len(pk) != len(c.pkPaths) {
		return nil, badRequest("Partition key provided either doesn't correspond to definition in the collection or doesn't match partition key field values specified in the document.")
	}
	return pk, nil
}

// scopePartitionKey resolves the partitions a feed or query reads: nil
// for all, else a full key or a prefix of a hierarchical one.
func (c *container) scopePartitionKey(pk []string, ok bool) ([]string, error) {
	if !ok || len(c.pkPaths) == 0 {
		return nil, nil
	}
	if len(pk) == 0 || len(pk) > len(c.pkPaths) {
		return nil, badRequest("Partition key provided either doesn't correspond to definition in the collection or doesn't match partition key field values specified in the document.")
	}
	return pk, nil
}
