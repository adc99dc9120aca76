package search

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
)

// PathHierarchyTokenizer is Lucene's path hierarchy tokenizer
// (PathHierarchyTokenizerV2): each level of a path is a token, all at one
// position. "/a/b/c" is /a, /a/b, /a/b/c; reverse makes the suffixes
// /a/b/c, a/b/c, b/c, c; skip leaves out that many levels from the start
// (from the end when reverse); the delimiter is written as replacement.
// maxTokenLength is Lucene's buffer size, which sizes a buffer that
// grows and leaves the tokens as they are. The service writes delimiter,
// replacement, maxTokenLength, reverse and skip back (the Java SDK's
// recording CustomAnalyzerTests.canCreateAllAnalysisComponentsSync).
type PathHierarchyTokenizer struct {
	ComponentHead
	Delimiter      *string      `json:"delimiter"`
	Replacement    *string      `json:"replacement"`
	MaxTokenLength *json.Number `json:"maxTokenLength" shape:"int"`
	Reverse        *bool        `json:"reverse"`
	Skip           *json.Number `json:"skip" shape:"int"`
}

func (*PathHierarchyTokenizer) tokenizer() {}

func (c *PathHierarchyTokenizer) serve(b *analysisBuilder, where string) error {
	oneChar := func(p **string, key string) error {
		if *p == nil {
			*p = ptr("/")
		}
		if utf8.RuneCountInString(**p) != 1 {
			return invalid(where+"."+key, "The %s must be one character.", key)
		}
		return nil
	}
	if c.Replacement == nil && c.Delimiter != nil {
		c.Replacement = ptr(*c.Delimiter)
	}
	if err := oneChar(&c.Delimiter, "delimiter"); err != nil {
		return err
	}
	if err := oneChar(&c.Replacement, "replacement"); err != nil {
		return err
	}
	n, err := defaultInt(c.MaxTokenLength, where+".maxTokenLength", 1, 300, 300)
	if err != nil {
		return err
	}
	skip, err := defaultInt(c.Skip, where+".skip", 0, 1<<31-1, 0)
	if err != nil {
		return err
	}
	c.MaxTokenLength, c.Skip = number(fmt.Sprint(n)), number(fmt.Sprint(skip))
	if c.Reverse == nil {
		c.Reverse = ptr(false)
	}
	bn := bleveName("tokenizer", c.Name)
	b.a.Tokenizers[bn] = map[string]any{"type": pathTokenizerName, "delimiter": *c.Delimiter, "replacement": *c.Replacement, "reverse": *c.Reverse, "skip": float64(skip)}
	b.tokenizers[c.Name] = bn
	return nil
}

// pathTokenizerName is the bleve tokenizer that serves
// PathHierarchyTokenizer.
const pathTokenizerName = "cerulean_path_hierarchy"

type pathTokenizer struct {
	delimiter, replacement string
	reverse                bool
	skip                   int
}

// Tokenize cuts the text into levels and emits their running
// concatenations. Forwards, a level starts at each delimiter ("/a/b/c" is
// /a, /b, /c; "a/b" is a, /b); reversed, a level ends after each
// delimiter ("/a/b/c" is /, a/, b/, c). These are Lucene's documented
// outputs: "/a/b/c/" is /a, /a/b, /a/b/c, /a/b/c/; "//" is /, //; skip 1
// on "/a/b/c" is /b, /b/c from offset 2; reversed, "/a/b/c" with skip 1
// is /a/b/, a/b/, b/ ending at offset 5. "One two" is one token (the
// recording CustomAnalyzerTests.canAnalyzeWithAllPossibleNamesSync).
func (t pathTokenizer) Tokenize(input []byte) analysis.TokenStream {
	text := string(input)
	// cuts are the byte offsets where levels meet, text's ends included.
	cuts := []int{0}
	for i := 0; i < len(text); {
		j := strings.Index(text[i:], t.delimiter)
		if j < 0 {
			break
		}
		cut := i + j
		if t.reverse {
			cut += len(t.delimiter)
		}
		if cut > 0 && cut < len(text) {
			cuts = append(cuts, cut)
		}
		i += j + len(t.delimiter)
	}
	cuts = append(cuts, len(text))
	levels := len(cuts) - 1
	if len(text) == 0 || t.skip >= levels {
		return nil
	}
	var out analysis.TokenStream
	emit := func(s, e int) {
		term := strings.ReplaceAll(text[s:e], t.delimiter, t.replacement)
		out = append(out, &analysis.Token{Term: []byte(term), Start: s, End: e, Position: 1, Type: analysis.AlphaNumeric})
	}
	if t.reverse {
		end := cuts[levels-t.skip]
		for i := 0; i < levels-t.skip; i++ {
			emit(cuts[i], end)
		}
		return out
	}
	for i := t.skip + 1; i <= levels; i++ {
		emit(cuts[t.skip], cuts[i])
	}
	return out
}

func init() {
	registerTokenizer(pathTokenizerName, func(config map[string]any) (analysis.Tokenizer, error) {
		d, dok := config["delimiter"].(string)
		r, rok := config["replacement"].(string)
		rev, _ := config["reverse"].(bool)
		skip, sok := config["skip"].(float64)
		if !dok || !rok || !sok || d == "" || skip < 0 {
			return nil, errors.New("bad delimiter, replacement or skip")
		}
		return pathTokenizer{delimiter: d, replacement: r, reverse: rev, skip: int(skip)}, nil
	})
}
