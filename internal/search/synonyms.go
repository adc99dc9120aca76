package search

import (
	"fmt"
	"strings"
)

// SynonymRule is one rule of a Solr-format synonym map: "a, b, c" makes
// every term equivalent (Equivalent true, Inputs all three); "a, b => c"
// replaces a or b by c (Inputs a and b, Outputs c).
type SynonymRule struct {
	Inputs     []string
	Outputs    []string
	Equivalent bool
}

// ParseSynonyms parses Solr-format synonym rules, one per line; blank
// lines and lines starting with '#' are skipped. Commas inside a term are
// written "\,".
func ParseSynonyms(text string) ([]SynonymRule, error) {
	var rules []SynonymRule
	for n, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "=>")
		switch len(parts) {
		case 1:
			if terms := synonymTerms(parts[0]); len(terms) > 0 {
				rules = append(rules, SynonymRule{Inputs: terms, Equivalent: true})
			}
		case 2:
			in, out := synonymTerms(parts[0]), synonymTerms(parts[1])
			if len(in) > 0 && len(out) > 0 {
				rules = append(rules, SynonymRule{Inputs: in, Outputs: out})
			}
		default:
			return nil, fmt.Errorf("Syntax error in line %d: '%s'. Only one explicit mapping (=>) can be specified in a synonym rule.", n+1, line) //nolint:staticcheck // the service's message, written as it writes it
		}
	}
	return rules, nil
}

// synonymTerms splits one side of a rule at its commas. Empty terms are
// skipped, and a side with none makes no rule, as Solr's parser does:
// the service accepts a map whose lines are single characters, "," and
// " " among them (the Python SDK's synonym map recording, whose update
// sends "Washington, Wash. => WA" one character a line).
func synonymTerms(s string) []string {
	var terms []string
	var cur strings.Builder
	flush := func() {
		if t := strings.Join(strings.Fields(cur.String()), " "); t != "" {
			terms = append(terms, t)
		}
		cur.Reset()
	}
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
		case s[i] == ',':
			flush()
		default:
			cur.WriteByte(s[i])
		}
	}
	flush()
	return terms
}
