package parity

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// A KnownDifference is a recording cerulean does not yet answer as Azure
// did: the index of the first request that differs, and why.
type KnownDifference struct {
	Index  int
	Reason string
}

// LoadKnownDifferences reads the known-differences list: one recording a
// line, "service/file.json #INDEX reason", blank lines and lines starting
// with "#" ignored. Every entry must give a reason.
func LoadKnownDifferences(path string) (map[string]KnownDifference, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	known := map[string]KnownDifference{}
	s := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; s.Scan(); n++ {
		line := strings.TrimSpace(s.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.SplitN(line, " ", 3)
		if len(fields) < 3 || !strings.HasPrefix(fields[1], "#") || strings.TrimSpace(fields[2]) == "" {
			return nil, fmt.Errorf("%s:%d: want \"service/file.json #INDEX reason\"", path, n)
		}
		idx, err := strconv.Atoi(fields[1][1:])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: index: %w", path, n, err)
		}
		if _, dup := known[fields[0]]; dup {
			return nil, fmt.Errorf("%s:%d: %s listed twice", path, n, fields[0])
		}
		known[fields[0]] = KnownDifference{Index: idx, Reason: strings.TrimSpace(fields[2])}
	}
	return known, s.Err()
}

// CheckKnown compares replay results with the known differences and
// returns one problem a line: a difference that is not listed, a listed
// one whose first differing request moved, a listed one that now
// matches, and a listed recording that does not exist.
func CheckKnown(results []Result, known map[string]KnownDifference) []string {
	var problems []string
	seen := map[string]bool{}
	for _, r := range results {
		name := r.Recording.Name
		seen[name] = true
		k, listed := known[name]
		switch {
		case r.Diff != nil && !listed:
			problems = append(problems, fmt.Sprintf("new difference: %s %s", name, r.Diff))
		case r.Diff != nil && r.Diff.Index != k.Index:
			problems = append(problems, fmt.Sprintf("%s: the first difference moved from #%d to %s", name, k.Index, r.Diff))
		case r.Diff == nil && listed:
			problems = append(problems, fmt.Sprintf("%s now matches Azure: remove it from the known differences (%s)", name, k.Reason))
		}
	}
	for name := range known {
		if !seen[name] {
			problems = append(problems, fmt.Sprintf("known difference for a recording that does not exist: %s", name))
		}
	}
	return problems
}
