package cosmos

// Limits Cosmos DB documents for one item and one query, enforced before
// the server builds anything from the request, so that no request costs
// memory or stack out of proportion to its size (the body itself is
// bounded by maxBody).
const (
	// maxItemDepth is the deepest an item's objects and arrays may nest
	// (Cosmos DB's per-item limit: 128 levels of embedded objects and
	// arrays, the item itself being the first).
	maxItemDepth = 128
	// maxQueryText is the longest SQL query text Cosmos DB accepts
	// (256 KiB).
	maxQueryText = 256 << 10
)

// checkItemDepth refuses an item body whose objects and arrays nest
// deeper than maxItemDepth. It only counts brackets outside strings, so
// it costs one pass over the bytes and no allocation; the JSON decoder
// judges everything else.
func checkItemDepth(b []byte) error {
	depth, inString, escaped := 0, false, false
	for _, c := range b {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			if depth++; depth > maxItemDepth {
				return badRequest("The item nests objects and arrays more than %d levels deep.", maxItemDepth)
			}
		case c == '}' || c == ']':
			depth--
		}
	}
	return nil
}

// checkQueryText refuses a query text longer than maxQueryText.
func checkQueryText(text string) error {
	if len(text) > maxQueryText {
		return badRequest("The SQL query text is %d bytes long; the limit is %d.", len(text), maxQueryText)
	}
	return nil
}

// decodeItem decodes an item body a client wrote, within maxItemDepth.
func decodeItem(b []byte) (map[string]any, error) {
	if err := checkItemDepth(b); err != nil {
		return nil, err
	}
	return decodeObject(b)
}
