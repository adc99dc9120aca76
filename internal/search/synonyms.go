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
			terms, err := synonymTerms(parts[0], n+1)
			if err != nil {
				return nil, err
			}
			rules = append(rules, SynonymRule{Inputs: terms, Equivalent: true})
		case 2:
			in, err := synonymTerms(parts[0], n+1)
			if err != nil {
				return nil, err
			}
			out, err := synonymTerms(parts[1], n+1)
			if err != nil {
				return nil, err
			}
			rules = append(rules, SynonymRule{Inputs: in, Outputs: out})
		default:
			return nil, fmt.Errorf("line %d: a rule may contain '=>' at most once", n+1)
		}
	}
	return rules, nil
}

func synonymTerms(s string, line int) ([]string, error) {
	var terms []string
	var cur strings.Builder
	flush := func() error {
		t := strings.Join(strings.Fields(cur.String()), " ")
		cur.Reset()
		if t == "" {
			return fmt.Errorf("line %d: empty term", line)
		}
		terms = append(terms, t)
		return nil
	}
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
		case s[i] == ',':
			if err := flush(); err != nil {
				return nil, err
			}
		default:
			cur.WriteByte(s[i])
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return terms, nil
}
