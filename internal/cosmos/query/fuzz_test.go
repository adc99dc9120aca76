package query

import (
	"errors"
	"testing"
)

var fuzzSeeds = []string{
	"SELECT * FROM c",
	"SELECT c.id, c.a.b[0] AS x FROM c WHERE c.a > 1 AND NOT c.b OR c.c IN (1, 'a') ORDER BY c.id DESC",
	"SELECT DISTINCT TOP 3 VALUE {a: c.x, 'b': [1, -2.5e3, null, true, undefined]} FROM root c",
	"SELECT VALUE COUNT(1) FROM c JOIN t IN c.tags GROUP BY t",
	"SELECT c.g, SUM(c.n), AVG(c.n), MIN(c.n), MAX(c.n) FROM c GROUP BY c.g",
	"SELECT * FROM c WHERE EXISTS(SELECT VALUE t FROM t IN c.tags WHERE t = @p)",
	"SELECT ARRAY(SELECT VALUE x FROM x IN c.arr) AS a, (SELECT VALUE MAX(y) FROM y IN c.arr) FROM c",
	"SELECT VALUE c.s LIKE '%a_[b-c]!%' ESCAPE '!' FROM c OFFSET 1 LIMIT 2",
	"SELECT VALUE c.x BETWEEN 1 AND 2 ? c.y ?? 'z' : ~c.z << 2 FROM c",
	"SELECT VALUE CONCAT(UPPER(c.s), SUBSTRING(c.s, 1, 2), TOSTRING(c.n)) FROM c",
	"SELECT VALUE DateTimeAdd('mm', c.n, GetCurrentDateTime()) FROM c",
	"SELECT VALUE ARRAY_SLICE(c.arr, -1, 2) FROM c ORDER BY c.arr",
	"SELECT VALUE REGEXMATCH(c.s, '^a.*', 'ix') FROM c",
	"select value 'it''s' || \"\\u00e9\" -- comment",
	"SELECT VALUE [IIF(c.b, CHOOSE(2, 1, 2), OBJECTTOARRAY(c.a)), SetUnion(c.tags, ['z']), STRINGTOOBJECT(c.s)] FROM c",
	"SELECT c.id FROM c JOIN (SELECT VALUE t FROM t IN c.tags WHERE t IN ('a', @p)) x GROUP BY c.id ORDER BY c.id",
}

func fuzzDocs() []map[string]any {
	return []map[string]any{
		{"id": "1", "a": map[string]any{"b": []any{1.0, "x"}}, "tags": []any{"a", "b"}, "arr": []any{3.0, 1.0}, "s": "abc", "n": 2.0, "g": "x", "x": 1.5},
		{"id": "2", "a": 5.0, "b": false, "tags": []any{}, "arr": "no", "s": nil, "n": "two", "g": nil},
		{"id": "3"},
	}
}

// FuzzParse: any text either parses or fails with *Error; nothing panics.
func FuzzParse(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		q, err := Parse(text)
		if err != nil {
			var qe *Error
			if !errors.As(err, &qe) {
				t.Fatalf("Parse(%q) error %T is not *Error", text, err)
			}
			return
		}
		_ = q.Plan()
	})
}

// FuzzRun: whatever parses runs to results or an *Error, without
// panicking (Run's recover would hide a panic, so the test checks the
// message for the internal-error marker).
func FuzzRun(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, "x")
	}
	docs := fuzzDocs()
	f.Fuzz(func(t *testing.T, text, param string) {
		q, err := Parse(text)
		if err != nil {
			return
		}
		res, err := q.Run(docs, map[string]any{"@p": param, "n": 2.0, "o": 1.0})
		if err != nil {
			var qe *Error
			if !errors.As(err, &qe) {
				t.Fatalf("Run(%q) error %T is not *Error", text, err)
			}
			if isInternal(qe) {
				t.Fatalf("Run(%q) panicked: %s", text, qe.Message)
			}
			return
		}
		for _, v := range res {
			if containsUndefined(v) {
				t.Fatalf("Run(%q) result contains undefined: %#v", text, res)
			}
		}
	})
}

func containsUndefined(v any) bool {
	switch x := v.(type) {
	case undefinedType:
		return true
	case []any:
		for _, e := range x {
			if containsUndefined(e) {
				return true
			}
		}
	case map[string]any:
		for _, e := range x {
			if containsUndefined(e) {
				return true
			}
		}
	}
	return false
}
