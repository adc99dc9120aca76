package indexer

import (
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/search"
)

// skill is one built-in utility skill of a skillset, run with the
// document as its context.
type skill struct {
	typ, name string
	inputs    map[string]string // input name → source (a path or "= expression")
	outputs   map[string]string // output name → target name under /document
	params    map[string]any
}

// Skill types cerulean runs; every other needs Azure AI services.
const (
	shaperSkill      = "#Microsoft.Skills.Util.ShaperSkill"
	mergeSkill       = "#Microsoft.Skills.Text.MergeSkill"
	splitSkill       = "#Microsoft.Skills.Text.SplitSkill"
	conditionalSkill = "#Microsoft.Skills.Util.ConditionalSkill"
)

func parseSkillset(def search.Definition) ([]skill, error) {
	ss, ok := def.(*search.Skillset)
	if !ok {
		return nil, fmt.Errorf("the skillset definition is a %T", def)
	}
	out := make([]skill, 0, len(ss.Skills))
	for _, s := range ss.Skills {
		sk, err := parseSkill(s)
		if err != nil {
			return nil, err
		}
		out = append(out, sk)
	}
	return out, nil
}

func parseSkill(s search.Skill) (skill, error) {
	h := s.Head()
	sk := skill{typ: h.ODataType, name: h.SkillName(), inputs: map[string]string{}, outputs: map[string]string{}, params: skillParams(s)}
	switch sk.typ {
	case shaperSkill, mergeSkill, splitSkill, conditionalSkill:
	default:
		return sk, fmt.Errorf("the skill '%s' of type '%s' needs Azure AI services, which cerulean does not provide; it runs only the utility skills Shaper, Merge, Split and Conditional", sk.name, sk.typ)
	}
	if c := h.SkillContext(); c != "" && c != "/document" {
		return sk, fmt.Errorf("the skill '%s' has the context '%s'; cerulean runs skills only in the context '/document'", sk.name, c)
	}
	for _, in := range h.Inputs {
		if len(in.Inputs) > 0 {
			return sk, fmt.Errorf("the skill '%s' has nested inputs, which cerulean does not run", sk.name)
		}
		if strings.Contains(in.Source, "*") {
			return sk, fmt.Errorf("the skill '%s' reads '%s'; cerulean does not enumerate collections ('*') in skill inputs", sk.name, in.Source)
		}
		sk.inputs[in.Name] = in.Source
	}
	for _, o := range h.Outputs {
		target := o.TargetName
		if target == "" {
			target = o.Name
		}
		sk.outputs[o.Name] = target
	}
	return sk, nil
}

// skillParams are the parameters of the skills that have any, as the run
// functions read them.
func skillParams(s search.Skill) map[string]any {
	params := map[string]any{}
	switch s := s.(type) {
	case *search.MergeSkill:
		setString(params, "insertPreTag", s.InsertPreTag)
		setString(params, "insertPostTag", s.InsertPostTag)
	case *search.SplitSkill:
		setString(params, "textSplitMode", s.TextSplitMode)
		if s.MaximumPageLength != nil {
			params["maximumPageLength"] = *s.MaximumPageLength
		}
	}
	return params
}

func setString(params map[string]any, name string, v *string) {
	if v != nil {
		params[name] = *v
	}
}

// enrich runs the skills over one document's enrichment tree (/document).
func enrich(skills []skill, doc map[string]any) error {
	for _, sk := range skills {
		in := map[string]any{}
		for name, src := range sk.inputs {
			v, err := evalSource(doc, src)
			if err != nil {
				return fmt.Errorf("skill '%s' input '%s': %w", sk.name, name, err)
			}
			in[name] = v
		}
		var out map[string]any
		var err error
		switch sk.typ {
		case shaperSkill:
			out = map[string]any{"output": in}
		case mergeSkill:
			out, err = runMerge(sk.params, in)
		case splitSkill:
			out, err = runSplit(sk.params, in)
		case conditionalSkill:
			if truthy(in["condition"]) {
				out = map[string]any{"output": in["whenTrue"]}
			} else {
				out = map[string]any{"output": in["whenFalse"]}
			}
		}
		if err != nil {
			return fmt.Errorf("skill '%s': %w", sk.name, err)
		}
		for name, target := range sk.outputs {
			if v, ok := out[name]; ok {
				doc[target] = v
			}
		}
	}
	return nil
}

func stringParam(params map[string]any, name, def string) string {
	if s, ok := params[name].(string); ok {
		return s
	}
	return def
}

func runMerge(params map[string]any, in map[string]any) (map[string]any, error) {
	text, _ := in["text"].(string)
	pre, post := stringParam(params, "insertPreTag", " "), stringParam(params, "insertPostTag", " ")
	items, _ := in["itemsToInsert"].([]any)
	offsets, _ := in["offsets"].([]any)
	runes := []rune(text)
	var b strings.Builder
	if len(offsets) == 0 {
		b.WriteString(text)
		for _, it := range items {
			b.WriteString(pre + fmt.Sprint(it) + post)
		}
		return map[string]any{"mergedText": b.String()}, nil
	}
	last := 0
	for i, it := range items {
		if i >= len(offsets) {
			break
		}
		off, err := intParam(offsets[i])
		if err != nil || off < last || off > len(runes) {
			return nil, fmt.Errorf("offset %d is not a position in the text after the previous one", i)
		}
		b.WriteString(string(runes[last:off]))
		b.WriteString(pre + fmt.Sprint(it) + post)
		last = off
	}
	b.WriteString(string(runes[last:]))
	return map[string]any{"mergedText": b.String()}, nil
}

func runSplit(params map[string]any, in map[string]any) (map[string]any, error) {
	text, _ := in["text"].(string)
	mode := stringParam(params, "textSplitMode", "pages")
	max := 5000
	if v, ok := params["maximumPageLength"]; ok && v != nil {
		n, err := intParam(v)
		if err != nil || n < 1 {
			return nil, errors.New("maximumPageLength must be a positive number")
		}
		max = n
	}
	sentences := splitSentences(text)
	out := []any{}
	switch mode {
	case "sentences":
		for _, s := range sentences {
			out = append(out, s)
		}
	case "pages":
		var page strings.Builder
		flush := func() {
			if p := strings.TrimSpace(page.String()); p != "" {
				out = append(out, p)
			}
			page.Reset()
		}
		for _, s := range sentences {
			for utf8.RuneCountInString(s) > max {
				flush()
				r := []rune(s)
				out = append(out, string(r[:max]))
				s = string(r[max:])
			}
			if page.Len() > 0 && utf8.RuneCountInString(page.String())+1+utf8.RuneCountInString(s) > max {
				flush()
			}
			if page.Len() > 0 {
				page.WriteByte(' ')
			}
			page.WriteString(s)
		}
		flush()
	default:
		return nil, fmt.Errorf("textSplitMode '%s' is not pages or sentences", mode)
	}
	return map[string]any{"textItems": out}, nil
}

// splitSentences cuts text after '.', '!' or '?' followed by space.
func splitSentences(text string) []string {
	var out []string
	start := 0
	r := []rune(text)
	for i, c := range r {
		if (c == '.' || c == '!' || c == '?') && (i+1 == len(r) || unicode.IsSpace(r[i+1])) {
			if s := strings.TrimSpace(string(r[start : i+1])); s != "" {
				out = append(out, s)
			}
			start = i + 1
		}
	}
	if s := strings.TrimSpace(string(r[start:])); s != "" {
		out = append(out, s)
	}
	return out
}

func truthy(v any) bool {
	switch t := v.(type) {
	case nil:
		return false
	case bool:
		return t
	case string:
		return t != "" && !strings.EqualFold(t, "false")
	case json.Number:
		f, _ := t.Float64()
		return f != 0
	case float64:
		return t != 0
	}
	return true
}

// evalSource reads a skill input: a path into the enrichment tree
// ("/document/x") or an expression ("= $(/document/x) == null").
func evalSource(doc map[string]any, src string) (any, error) {
	if expr, ok := strings.CutPrefix(strings.TrimSpace(src), "="); ok {
		p := &exprParser{doc: doc, s: expr}
		v, err := p.or()
		if err != nil {
			return nil, err
		}
		p.space()
		if p.i != len(p.s) {
			return nil, fmt.Errorf("the expression '%s' has unexpected text at position %d", src, p.i+1)
		}
		return v, nil
	}
	return treeValue(doc, src), nil
}

// treeValue reads /document/a/b from the document; missing is nil.
func treeValue(doc map[string]any, path string) any {
	rest, ok := strings.CutPrefix(path, "/document")
	if !ok {
		return nil
	}
	if rest == "" {
		return doc
	}
	v, _ := lookupPath(doc, rest)
	return v
}

// exprParser evaluates the expressions of Conditional skill inputs:
// literals ('text', numbers, true, false, null), $(/document/path),
// comparisons (== != < <= > >=), !, &&, || and parentheses.
type exprParser struct {
	doc map[string]any
	s   string
	i   int
}

func (p *exprParser) space() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

func (p *exprParser) eat(tok string) bool {
	p.space()
	if strings.HasPrefix(p.s[p.i:], tok) {
		p.i += len(tok)
		return true
	}
	return false
}

func (p *exprParser) or() (any, error) {
	l, err := p.and()
	for err == nil && p.eat("||") {
		var r any
		if r, err = p.and(); err == nil {
			l = truthy(l) || truthy(r)
		}
	}
	return l, err
}

func (p *exprParser) and() (any, error) {
	l, err := p.cmp()
	for err == nil && p.eat("&&") {
		var r any
		if r, err = p.cmp(); err == nil {
			l = truthy(l) && truthy(r)
		}
	}
	return l, err
}

func (p *exprParser) cmp() (any, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for _, op := range []string{"==", "!=", "<=", ">=", "<", ">"} {
		if p.eat(op) {
			r, err := p.unary()
			if err != nil {
				return nil, err
			}
			return compareValues(l, r, op), nil
		}
	}
	return l, nil
}

func (p *exprParser) unary() (any, error) {
	if p.eat("!") {
		v, err := p.unary()
		return !truthy(v), err
	}
	if p.eat("(") {
		v, err := p.or()
		if err == nil && !p.eat(")") {
			err = errors.New("a parenthesis is not closed")
		}
		return v, err
	}
	p.space()
	rest := p.s[p.i:]
	switch {
	case strings.HasPrefix(rest, "$("):
		end := strings.IndexByte(rest, ')')
		if end < 0 {
			return nil, errors.New("a $( path is not closed")
		}
		p.i += end + 1
		return treeValue(p.doc, rest[2:end]), nil
	case strings.HasPrefix(rest, "'") || strings.HasPrefix(rest, `"`):
		end := strings.IndexByte(rest[1:], rest[0])
		if end < 0 {
			return nil, errors.New("a string is not closed")
		}
		p.i += end + 2
		return rest[1 : end+1], nil
	}
	for _, lit := range []struct {
		word string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if strings.HasPrefix(rest, lit.word) {
			p.i += len(lit.word)
			return lit.v, nil
		}
	}
	n := 0
	for n < len(rest) && (rest[n] == '-' || rest[n] == '.' || rest[n] >= '0' && rest[n] <= '9') {
		n++
	}
	if f, err := strconv.ParseFloat(rest[:n], 64); n > 0 && err == nil {
		p.i += n
		return f, nil
	}
	return nil, fmt.Errorf("unexpected text '%s' in the expression", rest)
}

func compareValues(l, r any, op string) bool {
	lf, lnum := number(l)
	rf, rnum := number(r)
	var c int
	switch {
	case lnum && rnum:
		c = cmp.Compare(lf, rf) // JSON numbers: never NaN
	case l == nil || r == nil:
		eq := l == nil && r == nil
		return op == "==" && eq || op == "!=" && !eq
	default:
		c = strings.Compare(fmt.Sprint(l), fmt.Sprint(r))
	}
	switch op {
	case "==":
		return c == 0
	case "!=":
		return c != 0
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	}
	return c >= 0
}

func number(v any) (float64, bool) {
	switch t := v.(type) {
	case float64:
		return t, true
	case json.Number:
		f, err := t.Float64()
		return f, err == nil
	}
	return 0, false
}
