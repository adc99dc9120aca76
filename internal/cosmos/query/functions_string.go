package query

import (
	"encoding/json"
	"regexp"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxStringResult bounds strings built by REPLICATE and friends.
const maxStringResult = 1 << 20

func init() {
	register("CONCAT", 2, -1, pure(fnConcat))
	register("CONTAINS", 2, 3, pure(stringPredicate(strings.Contains)))
	register("STARTSWITH", 2, 3, pure(stringPredicate(strings.HasPrefix)))
	register("ENDSWITH", 2, 3, pure(stringPredicate(strings.HasSuffix)))
	register("STRINGEQUALS", 2, 3, pure(stringPredicate(func(a, b string) bool { return a == b })))
	register("INDEX_OF", 2, 3, pure(fnIndexOf))
	register("LENGTH", 1, 1, pure(stringFunc(func(s string) any { return float64(utf8.RuneCountInString(s)) })))
	register("LOWER", 1, 1, pure(stringFunc(func(s string) any { return strings.ToLower(s) })))
	register("UPPER", 1, 1, pure(stringFunc(func(s string) any { return strings.ToUpper(s) })))
	register("LTRIM", 1, 1, pure(stringFunc(func(s string) any { return strings.TrimLeftFunc(s, unicode.IsSpace) })))
	register("RTRIM", 1, 1, pure(stringFunc(func(s string) any { return strings.TrimRightFunc(s, unicode.IsSpace) })))
	register("TRIM", 1, 1, pure(stringFunc(func(s string) any { return strings.TrimSpace(s) })))
	register("REVERSE", 1, 1, pure(stringFunc(func(s string) any {
		r := []rune(s)
		for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
			r[i], r[j] = r[j], r[i]
		}
		return string(r)
	})))
	register("SUBSTRING", 3, 3, pure(runeCut(func(r []rune, n []int) []rune { return r[n[0]:min(n[0]+n[1], len(r))] })))
	register("LEFT", 2, 2, pure(runeCut(func(r []rune, n []int) []rune { return r[:n[0]] })))
	register("RIGHT", 2, 2, pure(runeCut(func(r []rune, n []int) []rune { return r[len(r)-n[0]:] })))
	register("REPLACE", 3, 3, pure(fnReplace))
	register("REPLICATE", 2, 2, pure(fnReplicate))
	register("TOSTRING", 1, 1, pure(fnToString))
	register("STRINGTOARRAY", 1, 1, pure(parseJSONAs(rankArray)))
	register("STRINGTOBOOLEAN", 1, 1, pure(parseJSONAs(rankBool)))
	register("STRINGTONULL", 1, 1, pure(parseJSONAs(rankNull)))
	register("STRINGTONUMBER", 1, 1, pure(parseJSONAs(rankNumber)))
	register("STRINGTOOBJECT", 1, 1, pure(parseJSONAs(rankObject)))
	register("REGEXMATCH", 2, 3, fnRegexMatch)
	register("STRINGJOIN", 2, 2, pure(fnStringJoin))
	register("STRINGSPLIT", 2, 2, pure(fnStringSplit))
}

func stringFunc(f func(string) any) func([]any) any {
	return func(a []any) any {
		s, ok := a[0].(string)
		if !ok {
			return undefined
		}
		return f(s)
	}
}

func fnConcat(a []any) any {
	var b strings.Builder
	for _, v := range a {
		s, ok := v.(string)
		if !ok {
			return undefined
		}
		b.WriteString(s)
	}
	return b.String()
}

// stringPredicate adapts a two-string test with Cosmos's optional third
// argument, a boolean asking for a case-insensitive comparison.
func stringPredicate(test func(s, sub string) bool) func([]any) any {
	return func(a []any) any {
		s, ok1 := a[0].(string)
		sub, ok2 := a[1].(string)
		if !ok1 || !ok2 {
			return undefined
		}
		if len(a) == 3 {
			ignoreCase, ok := a[2].(bool)
			if !ok {
				return undefined
			}
			if ignoreCase {
				s, sub = strings.ToLower(s), strings.ToLower(sub)
			}
		}
		return test(s, sub)
	}
}

// INDEX_OF counts in characters, not bytes.
func fnIndexOf(a []any) any {
	s, ok1 := a[0].(string)
	sub, ok2 := a[1].(string)
	if !ok1 || !ok2 {
		return undefined
	}
	rs, start := []rune(s), 0
	if len(a) == 3 {
		f, ok := toNumber(a[2])
		if !ok || !isInteger(f) {
			return undefined
		}
		if f < 0 || f > float64(len(rs)) {
			return -1.0
		}
		start = int(f)
	}
	i := strings.Index(string(rs[start:]), sub)
	if i < 0 {
		return -1.0
	}
	return float64(start + utf8.RuneCountInString(string(rs[start:])[:i]))
}

// intArg returns a number argument truncated to an int, clamped to
// [0, limit].
func intArg(v any, limit int) (int, bool) {
	f, ok := toNumber(v)
	if !ok {
		return 0, false
	}
	f = float64(toInt(f))
	switch {
	case f < 0:
		return 0, true
	case f > float64(limit):
		return limit, true
	}
	return int(f), true
}

// runeCut adapts SUBSTRING, LEFT and RIGHT: the arguments after string
// a[0] are character counts, each truncated and clamped to [0, the
// string's length], and cut takes the characters they name from its
// runes.
func runeCut(cut func(r []rune, n []int) []rune) func([]any) any {
	return func(a []any) any {
		s, ok := a[0].(string)
		if !ok {
			return undefined
		}
		r := []rune(s)
		n := make([]int, len(a)-1)
		for i, v := range a[1:] {
			if n[i], ok = intArg(v, len(r)); !ok {
				return undefined
			}
		}
		return string(cut(r, n))
	}
}

func fnReplace(a []any) any {
	s, ok1 := a[0].(string)
	old, ok2 := a[1].(string)
	repl, ok3 := a[2].(string)
	if !ok1 || !ok2 || !ok3 {
		return undefined
	}
	if old == "" {
		return s
	}
	if n := strings.Count(s, old); n > 0 && len(s)+n*(len(repl)-len(old)) > maxStringResult {
		return undefined
	}
	return strings.ReplaceAll(s, old, repl)
}

func fnReplicate(a []any) any {
	s, ok := a[0].(string)
	f, ok2 := toNumber(a[1])
	if !ok || !ok2 || f < 0 {
		return undefined
	}
	n := toInt(f)
	if len(s) > 0 && n > int64(maxStringResult/len(s)) {
		return undefined
	}
	return strings.Repeat(s, int(n))
}

// fnToString renders any defined value as a string: strings as they are,
// other values as their JSON text.
func fnToString(a []any) any {
	switch v := a[0].(type) {
	case undefinedType:
		return undefined
	case string:
		return v
	case nil:
		return "null"
	case bool:
		if v {
			return "true"
		}
		return "false"
	}
	if f, ok := toNumber(a[0]); ok {
		return formatNumber(f)
	}
	return toJSON(a[0])
}

// parseJSONAs implements the StringToX functions: the string must hold
// JSON text of the wanted type, else the result is undefined.
func parseJSONAs(want int) func([]any) any {
	return func(a []any) any {
		s, ok := a[0].(string)
		if !ok {
			return undefined
		}
		var v any
		if err := json.Unmarshal([]byte(strings.TrimSpace(s)), &v); err != nil {
			return undefined
		}
		if rank(v) != want {
			return undefined
		}
		return v
	}
}

// fnRegexMatch accepts the Cosmos modifiers m, s, i and x. Go's RE2
// syntax differs from .NET's in rare constructs (backreferences,
// lookaround), which are reported as an error.
func fnRegexMatch(run *runContext, a []any) any {
	s, ok1 := a[0].(string)
	pat, ok2 := a[1].(string)
	if !ok1 || !ok2 {
		return undefined
	}
	flags := ""
	if len(a) == 3 {
		mods, ok := a[2].(string)
		if !ok {
			return undefined
		}
		for _, m := range mods {
			switch m {
			case 'i', 'm', 's':
				if !strings.ContainsRune(flags, m) {
					flags += string(m)
				}
			case 'x':
				pat = stripExtendedPattern(pat)
			default:
				failf("invalid modifier '%c' in RegexMatch: only m, s, i and x are allowed", m)
			}
		}
	}
	if flags != "" {
		pat = "(?" + flags + ")" + pat
	}
	re, ok := run.regexps[pat]
	if !ok {
		var err error
		if re, err = regexp.Compile(pat); err != nil {
			failf("invalid regular expression in RegexMatch: %v", err)
		}
		if run.regexps == nil {
			run.regexps = map[string]*regexp.Regexp{}
		}
		run.regexps[pat] = re
	}
	return re.MatchString(s)
}

// stripExtendedPattern removes unescaped white space, as the x modifier
// asks.
func stripExtendedPattern(p string) string {
	var b strings.Builder
	escaped := false
	for _, r := range p {
		if !escaped && unicode.IsSpace(r) {
			continue
		}
		escaped = !escaped && r == '\\'
		b.WriteRune(r)
	}
	return b.String()
}

func fnStringJoin(a []any) any {
	arr, ok1 := a[0].([]any)
	sep, ok2 := a[1].(string)
	if !ok1 || !ok2 {
		return undefined
	}
	parts := make([]string, len(arr))
	for i, v := range arr {
		s, ok := v.(string)
		if !ok {
			return undefined
		}
		parts[i] = s
	}
	return strings.Join(parts, sep)
}

func fnStringSplit(a []any) any {
	s, ok1 := a[0].(string)
	sep, ok2 := a[1].(string)
	if !ok1 || !ok2 {
		return undefined
	}
	parts := strings.Split(s, sep)
	out := make([]any, len(parts))
	for i, p := range parts {
		out[i] = p
	}
	return out
}
