package search

// The analysis tables name bleve components by their registered names and
// types; importing bleve's config registers every analyzer, tokenizer,
// filter and token map they refer to, wherever Analysis is used.
import _ "github.com/blevesearch/bleve/v2/config"
