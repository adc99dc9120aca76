package search

import (
	"net/http"
	"strings"
)

// kindNames are each resource kind's singular and plural operation names.
var kindNames = map[Kind][2]string{
	Indexes:     {"Index", "Indexes"},
	Indexers:    {"Indexer", "Indexers"},
	DataSources: {"DataSource", "DataSources"},
	SynonymMaps: {"SynonymMap", "SynonymMaps"},
	Skillsets:   {"Skillset", "Skillsets"},
	Aliases:     {"Alias", "Aliases"},
}

// operationName names the REST API operation q asks for, as the Search
// reference names them (CreateIndex, SearchDocuments, IndexDocuments,
// RunIndexer). It serves metrics and fault injection; routing itself is
// route's.
func (q *request) operationName() string {
	m := q.r.Method
	if q.statsPath {
		return "GetServiceStatistics"
	}
	if q.indexStatsPath {
		return "GetIndexStatsSummary"
	}
	names := kindNames[q.kind]
	switch {
	case q.name == "" && m == http.MethodGet:
		return "List" + names[1]
	case q.name == "" && m == http.MethodPost:
		return "Create" + names[0]
	case q.name == "":
		return "Unknown"
	case len(q.rest) == 0 && m == http.MethodGet:
		return "Get" + names[0]
	case len(q.rest) == 0 && m == http.MethodPut:
		return "CreateOrUpdate" + names[0]
	case len(q.rest) == 0 && m == http.MethodDelete:
		return "Delete" + names[0]
	case len(q.rest) == 0:
		return "Unknown"
	}
	sub := strings.TrimPrefix(q.rest[0].name, "search.")
	if q.kind != Indexes || sub != "docs" {
		// stats, run, reset, status, analyze, resetskills…
		if sub == "stats" {
			return "GetIndexStatistics"
		}
		return strings.ToUpper(sub[:min(1, len(sub))]) + sub[min(1, len(sub)):] + names[0]
	}
	switch {
	case len(q.rest) == 1 && q.rest[0].hasKey:
		return "LookupDocument"
	case len(q.rest) == 1:
		return "SearchDocuments"
	}
	switch op := strings.TrimPrefix(strings.TrimPrefix(q.rest[1].name, "search."), "post."); op {
	case "$count":
		return "CountDocuments"
	case "index":
		return "IndexDocuments"
	case "search":
		return "SearchDocuments"
	case "suggest":
		return "SuggestDocuments"
	case "autocomplete":
		return "AutocompleteDocuments"
	}
	return "LookupDocument"
}
