package cosmos

import (
	"encoding/json"
	"errors"
	"testing"
)

// FuzzParsePatch: whatever the patch parser accepts applies to a document
// without panicking, and either fails with a Cosmos error or yields a
// document that still encodes.
func FuzzParsePatch(f *testing.F) {
	for _, s := range []string{
		`{"operations":[{"op":"add","path":"/a","value":1}]}`,
		`[{"op":"incr","path":"/n","value":2},{"op":"remove","path":"/arr/0"}]`,
		`{"condition":"from c where c.n = 1","operations":[{"op":"move","from":"/a","path":"/b"}]}`,
		`{"operations":[{"op":"set","path":"/arr/-","value":{"x":[1,2]}}]}`,
		`{"operations":[{"op":"replace","path":"/a~1b/c~0","value":null}]}`,
	} {
		f.Add(s)
	}
	c := &container{pkPaths: [][]string{{"pk"}}}
	f.Fuzz(func(t *testing.T, body string) {
		pr, err := parsePatch([]byte(body))
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("parse error is not a Cosmos error: %T %v", err, err)
			}
			return
		}
		pr.Condition = "" // the query engine has its own fuzzing
		doc, err := decodeObject([]byte(`{"id":"x","pk":"p","n":1,"a":"s","arr":[1,{"k":2},[3]],"o":{"p":{"q":true}}}`))
		if err != nil {
			t.Fatal(err)
		}
		out, err := pr.apply(doc, c)
		if err != nil {
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("apply error is not a Cosmos error: %T %v", err, err)
			}
			return
		}
		if _, err := json.Marshal(out); err != nil {
			t.Fatalf("patched document does not encode: %v", err)
		}
		if out["pk"] != "p" || out["id"] != "x" {
			t.Fatalf("patch changed id or partition key: %v", out)
		}
	})
}

// FuzzParseAuthToken: the Authorization header parser never panics and
// either rejects with 401 or returns a full master token.
func FuzzParseAuthToken(f *testing.F) {
	for _, s := range []string{
		"type%3Dmaster%26ver%3D1.0%26sig%3DabcdEFGH0123456789abcdEFGH0123456789abcdEFG%3D",
		"type=master&ver=1.0&sig=" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
		"type=resource&ver=1.0&sig=x",
		"%zz", "", "&&&", "type=master&ver=2.0&sig=AA==",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, h string) {
		tok, err := parseAuthToken(h)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Status != 401 {
				t.Fatalf("rejection is not a 401 Cosmos error: %v", err)
			}
			return
		}
		if tok.Type != "master" || tok.Version != "1.0" || len(tok.Signature) != 32 {
			t.Fatalf("accepted an incomplete token: %+v", tok)
		}
	})
}
