package indexer

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/search"
)

// ExecutionResult is one indexer run as the service reports it
// (IndexerExecutionResult). The fields of these types are in the order
// the service writes them (the Java SDK's recordings
// IndexersManagementTests.canRunIndexerAndGetIndexerStatusSync and the
// Python SDK's test_search_indexer_client_indexers_live).
type ExecutionResult struct {
	// Status is "inProgress", "success", "transientFailure" or "reset".
	Status               string        `json:"status"`
	ErrorMessage         *string       `json:"errorMessage"`
	StartTime            time.Time     `json:"startTime"`
	EndTime              *time.Time    `json:"endTime"`
	ItemsProcessed       int           `json:"itemsProcessed"`
	ItemsFailed          int           `json:"itemsFailed"`
	InitialTrackingState *string       `json:"initialTrackingState"`
	FinalTrackingState   *string       `json:"finalTrackingState"`
	Errors               []ItemError   `json:"errors"`
	Warnings             []ItemWarning `json:"warnings"`
}

// ItemError is an item that failed (SearchIndexerError).
type ItemError struct {
	Key               *string `json:"key"`
	StatusCode        int     `json:"statusCode"`
	Name              *string `json:"name"`
	ErrorMessage      string  `json:"errorMessage"`
	Details           *string `json:"details"`
	DocumentationLink *string `json:"documentationLink"`
}

// ItemWarning is a problem that did not stop an item (SearchIndexerWarning).
type ItemWarning struct {
	Key               *string `json:"key"`
	Name              *string `json:"name"`
	Message           string  `json:"message"`
	Details           *string `json:"details"`
	DocumentationLink *string `json:"documentationLink"`
}

// Limits are the run limits the status reports (SearchIndexerLimits).
type Limits struct {
	MaxRunTime                            string `json:"maxRunTime"`
	MaxDocumentExtractionSize             int64  `json:"maxDocumentExtractionSize"`
	MaxDocumentContentCharactersToExtract int64  `json:"maxDocumentContentCharactersToExtract"`
}

// Status is Get Indexer Status's answer (SearchIndexerStatus) without
// @odata.context, which the handler adds.
type Status struct {
	Name string `json:"name"`
	// Status is "running" (the indexer is operational) or "error".
	Status           string            `json:"status"`
	LastResult       *ExecutionResult  `json:"lastResult"`
	ExecutionHistory []ExecutionResult `json:"executionHistory"`
	Limits           Limits            `json:"limits"`
}

// Bounds on what is kept: history entries per indexer, and errors and
// warnings per result (the rest are counted, not listed), so that one
// result stays well inside a kv value.
const (
	maxHistory       = 50
	maxListed        = 100
	maxMessageLength = 500
	// maxTie bounds the items remembered at the mark; past it, the rest
	// are indexed again by the next run (harmless, as actions are
	// mergeOrUpload).
	maxTie = 500
)

// state is an indexer's durable state.
type state struct {
	// HasMark and Mark are the high-water mark: the newest change indexed.
	HasMark bool  `json:"hm,omitempty"`
	Mark    int64 `json:"m,omitempty"`
	// Tie names the items indexed whose mark is Mark (item.ident).
	Tie []string `json:"t,omitempty"`
	// Epoch counts resets; a run only saves its mark in the epoch it
	// started in, so a reset during a run is not undone by it.
	Epoch uint64 `json:"e,omitempty"`
	// Runs numbers the results recorded (runs and resets).
	Runs  uint64 `json:"n,omitempty"`
	Claim *claim `json:"c,omitempty"`
	// Current is the result of the run in progress.
	Current *ExecutionResult `json:"r,omitempty"`
	// LastStart is when the latest run started; NextDue when the schedule
	// runs the indexer next, for the schedule Schedule describes.
	LastStart *time.Time `json:"ls,omitempty"`
	NextDue   *time.Time `json:"d,omitempty"`
	Schedule  string     `json:"s,omitempty"`
}

// claim is a run's hold on its indexer, renewed after every batch; an
// expired claim (its process stopped) no longer holds. Token is the
// version of the transaction that took it: run numbers start again for
// an indexer deleted and created anew under its name, so owner and run
// alone could take a run of the deleted indexer for one of the new.
type claim struct {
	Owner string    `json:"o"`
	Run   uint64    `json:"r"`
	Epoch uint64    `json:"e"`
	Until time.Time `json:"u"`
	Token uint64    `json:"k,omitempty"`
}

func (c *claim) held(now time.Time) bool { return c != nil && now.Before(c.Until) }

// is reports whether c is the claim mine, which a run took.
func (c *claim) is(mine *claim) bool {
	return c != nil && c.Owner == mine.Owner && c.Run == mine.Run && c.Token == mine.Token
}

// An indexer's keys lie under search.IndexerStatePrefix, which deleting
// the indexer deletes.
func stateKey(name string) []byte { return search.IndexerStatePrefix(name).Str("s") }
func historyPrefix(name string) []byte {
	return search.IndexerStatePrefix(name).Str("h")
}
func historyKey(name string, run uint64) []byte {
	return tuple.Key(historyPrefix(name)).Uint(math.MaxUint64 - run)
}

func loadState(rd kv.Reader, name string) (*state, error) {
	st, _, err := loadStateFound(rd, name)
	return st, err
}

// loadStateFound is loadState, also reporting whether the state is
// stored: a run's state is gone once its indexer has been deleted.
func loadStateFound(rd kv.Reader, name string) (*state, bool, error) {
	st := &state{}
	found, err := record.Load(rd, stateKey(name), st)
	if err != nil {
		return nil, false, fmt.Errorf("load indexer state: %w", err)
	}
	return st, found, nil
}

// loadHistory reads up to maxHistory results, newest first.
func loadHistory(rd kv.Reader, name string) ([]ExecutionResult, error) {
	var out []ExecutionResult
	prefix := historyPrefix(name)
	err := rd.Scan(prefix, kv.PrefixEnd(prefix), func(_, v []byte) error {
		var r ExecutionResult
		if err := record.Decode(v, &r); err != nil {
			return err
		}
		out = append(out, r)
		if len(out) >= maxHistory {
			return kv.ErrStopScan
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("load indexer history: %w", err)
	}
	return out, nil
}

// appendHistory records result run and drops what falls off the end.
func appendHistory(tx kv.Txn, name string, run uint64, r *ExecutionResult) error {
	if err := record.Store(tx, historyKey(name, run), r); err != nil {
		return err
	}
	if run <= maxHistory {
		return nil
	}
	// Keys hold ^run, so older results sort after newer ones.
	start := historyKey(name, run-maxHistory)
	prefix := historyPrefix(name)
	return tx.DeleteRange(start, kv.PrefixEnd(prefix))
}

// trackingState renders a mark as the opaque tracking state the status
// shows.
func trackingState(has bool, mark int64) *string {
	if !has {
		return nil
	}
	s := fmt.Sprintf(`{"highWaterMark":%d}`, mark)
	return &s
}

// sentence renders an error message as the status shows messages:
// capitalised and ending in a full stop (Go errors are neither).
func sentence(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "!") && !strings.HasSuffix(s, "?") {
		s += "."
	}
	return s
}

func truncate(s string) string {
	if len(s) <= maxMessageLength {
		return s
	}
	return s[:maxMessageLength] + "…"
}

func (r *ExecutionResult) addError(key, msg string, code int) {
	r.ItemsFailed++
	if len(r.Errors) >= maxListed {
		return
	}
	e := ItemError{ErrorMessage: truncate(sentence(msg)), StatusCode: code}
	if key != "" {
		e.Key = &key
	}
	r.Errors = append(r.Errors, e)
}

func (r *ExecutionResult) addWarning(key, msg string) {
	if len(r.Warnings) >= maxListed {
		return
	}
	w := ItemWarning{Message: truncate(sentence(msg))}
	if key != "" {
		w.Key = &key
	}
	r.Warnings = append(r.Warnings, w)
}

func (r *ExecutionResult) fail(now time.Time, msg string) {
	r.Status = "transientFailure"
	m := truncate(sentence(msg))
	r.ErrorMessage = &m
	r.EndTime = &now
}
