package search

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
)

// ShingleTokenFilter is Lucene's ShingleFilter: it joins runs of
// minShingleSize to maxShingleSize successive tokens with tokenSeparator,
// each at the position of the run's first token, after that token when
// outputUnigrams keeps the single tokens ("a b c" with the defaults is a,
// "a b", b, "b c", c). A position left empty (a stop word removed) takes
// part as filterToken. The service writes all six properties back (the
// Java SDK's recording
// CustomAnalyzerTests.canCreateAllAnalysisComponentsSync); the defaults
// are 2, 2, true, false, " " and "_".
type ShingleTokenFilter struct {
	ComponentHead
	MaxShingleSize             *json.Number `json:"maxShingleSize" shape:"int"`
	MinShingleSize             *json.Number `json:"minShingleSize" shape:"int"`
	OutputUnigrams             *bool        `json:"outputUnigrams"`
	OutputUnigramsIfNoShingles *bool        `json:"outputUnigramsIfNoShingles"`
	TokenSeparator             *string      `json:"tokenSeparator"`
	FilterToken                *string      `json:"filterToken"`
}

func (*ShingleTokenFilter) tokenFilter() {}

func (c *ShingleTokenFilter) serve(b *analysisBuilder, where string) error {
	lo, hi, err := intRange(where, "minShingleSize", "maxShingleSize", c.MinShingleSize, c.MaxShingleSize, 2, 1<<31-1, 2, 2)
	if err != nil {
		return err
	}
	c.MinShingleSize, c.MaxShingleSize = number(fmt.Sprint(lo)), number(fmt.Sprint(hi))
	for _, d := range []struct {
		p   **bool
		def bool
	}{{&c.OutputUnigrams, true}, {&c.OutputUnigramsIfNoShingles, false}} {
		if *d.p == nil {
			*d.p = ptr(d.def)
		}
	}
	if c.TokenSeparator == nil {
		c.TokenSeparator = ptr(" ")
	}
	if c.FilterToken == nil {
		c.FilterToken = ptr("_")
	}
	return b.filter(c.Name, shingleConfig(lo, hi, *c.OutputUnigrams, *c.OutputUnigramsIfNoShingles, *c.TokenSeparator, *c.FilterToken))
}

func shingleConfig(lo, hi int64, unigrams, unigramsIfNone bool, separator, filler string) map[string]any {
	return map[string]any{"type": shingleFilterName, "min": float64(lo), "max": float64(hi), "unigrams": unigrams,
		"unigrams_if_none": unigramsIfNone, "separator": separator, "filler": filler}
}

// shingleFilterName is the bleve token filter that serves
// ShingleTokenFilter and the predefined shingle.
const shingleFilterName = "cerulean_shingle"

type shingles struct {
	min, max                 int
	unigrams, unigramsIfNone bool
	separator, filler        string
}

// Filter follows Lucene's ShingleFilter, whose tests show its output
// around an empty position: "please divide _ sentence" (one position
// empty before sentence) gives please, "please divide", divide,
// "divide _", "_ sentence", sentence, the filler's offsets those of the
// start of the token after it.
func (s shingles) Filter(in analysis.TokenStream) analysis.TokenStream {
	if len(in) == 0 {
		return in
	}
	// slots are the tokens with a nil for each empty position.
	type slot struct {
		tok      *analysis.Token
		pos      int
		from, to int
	}
	var slots []slot
	for i, t := range in {
		if i > 0 {
			for p := in[i-1].Position + 1; p < t.Position; p++ {
				slots = append(slots, slot{pos: p, from: t.Start, to: t.Start})
			}
		}
		slots = append(slots, slot{tok: t, pos: t.Position, from: t.Start, to: t.End})
	}
	var out analysis.TokenStream
	made := 0
	var term strings.Builder
	for i, first := range slots {
		if s.unigrams && first.tok != nil {
			out = append(out, first.tok)
		}
		for n := s.min; n <= s.max && i+n <= len(slots); n++ {
			run := slots[i : i+n]
			real := false
			term.Reset()
			for k, sl := range run {
				if k > 0 {
					term.WriteString(s.separator)
				}
				if sl.tok == nil {
					term.WriteString(s.filler)
					continue
				}
				real = true
				term.Write(sl.tok.Term)
			}
			if !real {
				continue
			}
			// Stacked tokens can end before the run starts; the shingle
			// then ends where it starts.
			out = append(out, &analysis.Token{Term: []byte(term.String()), Start: first.from, End: max(first.from, run[n-1].to), Position: first.pos, Type: analysis.Shingle})
			made++
		}
	}
	if made == 0 && !s.unigrams && s.unigramsIfNone {
		return in
	}
	return out
}

func init() {
	registerTokenFilter(shingleFilterName, func(config map[string]any) (analysis.TokenFilter, error) {
		lo, lok := config["min"].(float64)
		hi, hok := config["max"].(float64)
		sep, sok := config["separator"].(string)
		filler, fok := config["filler"].(string)
		if !lok || !hok || !sok || !fok || lo < 2 || hi < lo {
			return nil, fmt.Errorf("bad sizes, separator or filler")
		}
		unigrams, _ := config["unigrams"].(bool)
		ifNone, _ := config["unigrams_if_none"].(bool)
		return shingles{min: int(lo), max: int(hi), unigrams: unigrams, unigramsIfNone: ifNone, separator: sep, filler: filler}, nil
	})
}
