package faults

import (
	"log/slog"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// Injector decides which requests get a fault. It is safe for concurrent
// use; SetRules replaces the rules at once.
type Injector struct {
	log *slog.Logger
	// onInjected, when set, counts each injected fault (metrics).
	onInjected func(service, operation string, kind Kind)

	mu    sync.Mutex
	rules []*armed
}

// armed is a rule and how many requests it has matched, from which the
// share it applies is spread evenly.
type armed struct {
	Rule
	seen uint64
}

// fires reports whether the next matching request gets the fault: the
// count of faults so far is kept at floor(seen × rate). The caller holds
// the injector's lock.
func (a *armed) fires() bool {
	before := uint64(float64(a.seen) * a.Rate)
	a.seen++
	return uint64(float64(a.seen)*a.Rate) > before
}

// New returns an injector with rules, logging each fault to log and
// reporting it to onInjected (either may be nil).
func New(rules []Rule, log *slog.Logger, onInjected func(service, operation string, kind Kind)) (*Injector, error) {
	if log == nil {
		log = slog.Default()
	}
	in := &Injector{log: log, onInjected: onInjected}
	return in, in.SetRules(rules)
}

// SetRules replaces the rules (none turns injection off).
func (in *Injector) SetRules(rules []Rule) error {
	armedRules := make([]*armed, 0, len(rules))
	for _, r := range rules {
		if err := r.Validate(); err != nil {
			return err
		}
		armedRules = append(armedRules, &armed{Rule: r})
	}
	in.mu.Lock()
	in.rules = armedRules
	in.mu.Unlock()
	return nil
}

// Rules returns the rules in force.
func (in *Injector) Rules() []Rule {
	in.mu.Lock()
	defer in.mu.Unlock()
	out := make([]Rule, 0, len(in.rules))
	for _, a := range in.rules {
		out = append(out, a.Rule)
	}
	return out
}

// pick returns the latency to add and the failing rule that fires for a
// request to service's operation, if any: every matching latency rule
// may add its delay; the first failing rule that fires wins.
func (in *Injector) pick(service, operation string) (delay time.Duration, fail *Rule) {
	in.mu.Lock()
	defer in.mu.Unlock()
	for _, a := range in.rules {
		if a.Service != service || (a.Operation != "" && a.Operation != operation) {
			continue
		}
		if a.Kind == Latency {
			if a.fires() {
				delay += time.Duration(a.Delay)
			}
			continue
		}
		if fail == nil && a.fires() {
			r := a.Rule
			fail = &r
		}
	}
	return delay, fail
}

// For returns the azhttp.RequestInfo.Fault hook for service's requests.
func (in *Injector) For(service string) func(http.ResponseWriter, *http.Request, string) error {
	return func(w http.ResponseWriter, r *http.Request, operation string) error {
		delay, fail := in.pick(service, operation)
		if delay > 0 {
			in.injected(r, service, operation, Latency, "delay", delay)
			t := time.NewTimer(delay)
			select {
			case <-t.C:
			case <-r.Context().Done():
				t.Stop()
			}
		}
		if fail == nil {
			return nil
		}
		in.injected(r, service, operation, fail.Kind)
		if fail.Kind == Reset {
			// The server drops the connection without an answer; with
			// the request body unread the peer sees a reset.
			panic(http.ErrAbortHandler)
		}
		return answer(w, service, *fail)
	}
}

func (in *Injector) injected(r *http.Request, service, operation string, kind Kind, attrs ...any) {
	in.log.WarnContext(r.Context(), "injected fault", append([]any{"service", service, "operation", operation,
		"kind", string(kind), "request_id", azhttp.RequestID(r.Context())}, attrs...)...)
	if in.onInjected != nil {
		in.onInjected(service, operation, kind)
	}
}

// cosmosRetryAfter is the retry hint of Cosmos DB's throttling when the
// rule names none.
const cosmosRetryAfter = 100 * time.Millisecond

// answer is the error service answers a failing rule's fault with, as
// Azure answers throttling and time-outs, with the rule's retry hint
// set on w.
func answer(w http.ResponseWriter, service string, r Rule) error {
	retryAfter := time.Duration(r.RetryAfter)
	var err *azerr.Error
	switch service {
	case "cosmos":
		switch r.Kind {
		case Throttle:
			err = &azerr.Error{Status: http.StatusTooManyRequests, Code: "TooManyRequests",
				Message: "Request rate is large. More Request Units may be needed, so no changes were made. Please retry this request later."}
			w.Header().Set("X-Ms-Substatus", "3200")
			if retryAfter == 0 {
				retryAfter = cosmosRetryAfter
			}
		case Timeout:
			err = &azerr.Error{Status: http.StatusRequestTimeout, Code: "RequestTimeout",
				Message: "The request could not be completed within the permitted time. Please retry the request."}
		default:
			err = &azerr.Error{Status: http.StatusServiceUnavailable, Code: "ServiceUnavailable",
				Message: "The service is currently unavailable. Please retry the request."}
		}
	case "search":
		if r.Kind == Timeout {
			err = &azerr.Error{Status: http.StatusGatewayTimeout, Message: "The request timed out. Please retry the request."}
		} else {
			err = &azerr.Error{Status: http.StatusServiceUnavailable, Message: "The service is too busy to process the request. Please retry later."}
		}
	default: // the Storage services
		switch r.Kind {
		case Timeout:
			err = azerr.ErrOperationTimedOut
		case Throttle:
			err = azerr.ErrServerBusy.WithMessage("Operations per second is over the account limit.")
		default:
			err = azerr.ErrServerBusy.WithMessage("The server is busy.")
		}
	}
	if retryAfter > 0 {
		ms := strconv.FormatInt(max(retryAfter.Milliseconds(), 1), 10)
		w.Header().Set("X-Ms-Retry-After-Ms", ms)
		w.Header().Set("Retry-After-Ms", ms)
	}
	return err
}
