package cosmos

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"unicode/utf8"
)

// Azure keeps an item's properties in the order they were written, and
// puts its own after them: _rid, _self, _etag, _attachments, _ts (the
// Create Document answer in the REST reference; the same order in every
// item Azure returns). A body the client sent is therefore stored as it
// came, compacted, with any system properties it carried dropped and the
// server's appended; only a body the server built itself (a patch) is
// encoded from its decoded form.

// orderedBody is item body raw (a JSON object already decoded without
// error) compacted, without its top-level system properties, and with
// it's appended. ok is false where the raw text cannot be kept as it is:
// invalid UTF-8 (which decoding replaced) or a property named twice
// (decoding kept the last).
func orderedBody(raw []byte, it *Item) (body []byte, ok bool) {
	if !utf8.Valid(raw) {
		return nil, false
	}
	var compact bytes.Buffer
	compact.Grow(len(raw) + 160)
	if err := json.Compact(&compact, raw); err != nil {
		return nil, false
	}
	src := compact.Bytes()
	out := make([]byte, 0, len(src)+160)
	out = append(out, '{')
	seen := make([]string, 0, 16)
	members := 0
	for i := 1; i < len(src) && src[i] != '}'; {
		keyEnd := skipJSONString(src, i)
		valEnd := skipJSONValue(src, keyEnd+1)
		key := string(src[i+1 : keyEnd-1])
		if bytes.IndexByte(src[i:keyEnd], '\\') >= 0 {
			if json.Unmarshal(src[i:keyEnd], &key) != nil {
				return nil, false
			}
		}
		if slices.Contains(seen, key) {
			return nil, false
		}
		seen = append(seen, key)
		if !slices.Contains(itemSystemProps, key) {
			if members > 0 {
				out = append(out, ',')
			}
			out = append(out, src[i:valEnd]...)
			members++
		}
		i = valEnd
		if i < len(src) && src[i] == ',' {
			i++
		}
	}
	if members > 0 {
		out = append(out, ',')
	}
	out = append(out, `"_rid":`...)
	out = appendJSONString(out, it.RID)
	out = append(out, `,"_self":`...)
	out = appendJSONString(out, it.Self)
	out = append(out, `,"_etag":`...)
	out = appendJSONString(out, it.ETag)
	out = append(out, `,"_attachments":"attachments/","_ts":`...)
	out = strconv.AppendInt(out, it.TS, 10)
	return append(out, '}'), true
}

// skipJSONString returns the index just past the string starting at
// src[i] (a '"') in compact, valid JSON.
func skipJSONString(src []byte, i int) int {
	for i++; i < len(src); i++ {
		switch src[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return len(src)
}

// skipJSONValue returns the index just past the value starting at src[i]
// in compact, valid JSON.
func skipJSONValue(src []byte, i int) int {
	depth := 0
	for ; i < len(src); i++ {
		switch src[i] {
		case '"':
			i = skipJSONString(src, i) - 1
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 {
				return i
			}
			depth--
		case ',':
			if depth == 0 {
				return i
			}
		}
		if depth == 0 && (src[i] == '"' || src[i] == '}' || src[i] == ']') {
			return i + 1
		}
	}
	return len(src)
}
