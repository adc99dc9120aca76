package faults

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Kind is what an injected fault does.
type Kind string

// The kinds of fault. Each service answers them the way Azure does (see
// answer): Busy and Throttle are the service's throttling answer, Timeout
// its transient time-out, Reset drops the connection before any answer,
// Latency only delays the request.
const (
	Busy     Kind = "busy"
	Throttle Kind = "throttle"
	Timeout  Kind = "timeout"
	Reset    Kind = "reset"
	Latency  Kind = "latency"
)

var kinds = []Kind{Busy, Throttle, Timeout, Reset, Latency}

// Rule injects one kind of fault into a share of the requests for one
// service's operation (every operation when Operation is empty).
type Rule struct {
	Service   string  `json:"service"`
	Operation string  `json:"operation,omitempty"`
	Kind      Kind    `json:"kind"`
	Rate      float64 `json:"rate"`
	// Delay is the latency a Latency rule adds.
	Delay Duration `json:"delay,omitempty"`
	// RetryAfter, when set, is sent as a retry hint (x-ms-retry-after-ms
	// and Retry-After-Ms) with the fault. Cosmos DB's throttling always
	// carries one (100 ms unless set); Storage and Search send none
	// unless set, as Azure does.
	RetryAfter Duration `json:"retryAfter,omitempty"`
}

// Duration is a time.Duration written as Go writes durations ("200ms").
type Duration time.Duration

// MarshalText writes d as "200ms".
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// UnmarshalText reads a Go duration ("200ms", "1.5s").
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return err
	}
	*d = Duration(v)
	return nil
}

// Services are the services faults may be injected into.
var Services = []string{"blob", "queue", "table", "file", "cosmos", "search"}

// Validate reports what is wrong with r.
func (r Rule) Validate() error {
	known := false
	for _, s := range Services {
		known = known || r.Service == s
	}
	if !known {
		return fmt.Errorf("fault rule: unknown service %q (want one of %s)", r.Service, strings.Join(Services, ", "))
	}
	known = false
	for _, k := range kinds {
		known = known || r.Kind == k
	}
	if !known {
		return fmt.Errorf("fault rule for %s: unknown kind %q (want busy, throttle, timeout, reset or latency)", r.Service, r.Kind)
	}
	if !(r.Rate > 0 && r.Rate <= 1) {
		return fmt.Errorf("fault rule for %s: rate %v is not in (0, 1]", r.Service, r.Rate)
	}
	if r.Kind == Latency && (r.Delay <= 0 || time.Duration(r.Delay) > time.Minute) {
		return fmt.Errorf("fault rule for %s: latency needs a delay between 0 and 1m, got %v", r.Service, time.Duration(r.Delay))
	}
	if r.RetryAfter < 0 || time.Duration(r.RetryAfter) > time.Minute {
		return fmt.Errorf("fault rule for %s: retry-after %v is not between 0 and 1m", r.Service, time.Duration(r.RetryAfter))
	}
	return nil
}

// String writes r in the spec syntax Parse reads.
func (r Rule) String() string {
	var b strings.Builder
	b.WriteString(r.Service)
	if r.Operation != "" {
		b.WriteString("/" + r.Operation)
	}
	b.WriteString("=" + string(r.Kind))
	if r.Kind == Latency {
		b.WriteString(":" + time.Duration(r.Delay).String())
	}
	b.WriteString("@" + strconv.FormatFloat(r.Rate*100, 'f', -1, 64) + "%")
	if r.RetryAfter > 0 {
		b.WriteString(";retry-after=" + time.Duration(r.RetryAfter).String())
	}
	return b.String()
}

// String writes rules in the spec syntax Parse reads.
func String(rules []Rule) string {
	parts := make([]string, len(rules))
	for i, r := range rules {
		parts[i] = r.String()
	}
	return strings.Join(parts, ",")
}

// Parse reads a comma-separated list of rules, each
//
//	service[/Operation]=kind[:delay]@rate[;retry-after=duration]
//
// for example "blob/PutBlob=busy@50%", "cosmos=throttle@10%",
// "table=latency:200ms@100%", "queue=reset@0.05". The rate is a share
// (a percentage or a fraction); latency takes a delay.
func Parse(spec string) ([]Rule, error) {
	var rules []Rule
	for _, part := range strings.Split(spec, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		r, err := parseRule(part)
		if err != nil {
			return nil, err
		}
		rules = append(rules, r)
	}
	return rules, nil
}

func parseRule(s string) (Rule, error) {
	var r Rule
	bad := func(why string) (Rule, error) {
		return Rule{}, fmt.Errorf("fault rule %q: %s (want service[/Operation]=kind[:delay]@rate[;retry-after=duration])", s, why)
	}
	body, opts, _ := strings.Cut(s, ";")
	target, action, ok := strings.Cut(body, "=")
	if !ok {
		return bad("no '='")
	}
	r.Service, r.Operation, _ = strings.Cut(strings.TrimSpace(target), "/")
	r.Service = strings.ToLower(r.Service)
	what, rate, ok := strings.Cut(action, "@")
	if !ok {
		return bad("no '@rate'")
	}
	kind, delay, hasDelay := strings.Cut(strings.TrimSpace(what), ":")
	r.Kind = Kind(strings.ToLower(kind))
	if hasDelay {
		d, err := time.ParseDuration(delay)
		if err != nil {
			return bad("bad delay: " + err.Error())
		}
		r.Delay = Duration(d)
	}
	rate = strings.TrimSpace(rate)
	percent := strings.HasSuffix(rate, "%")
	v, err := strconv.ParseFloat(strings.TrimSuffix(rate, "%"), 64)
	if err != nil {
		return bad("bad rate")
	}
	if percent {
		v /= 100
	}
	r.Rate = v
	for _, opt := range strings.Split(opts, ";") {
		if opt = strings.TrimSpace(opt); opt == "" {
			continue
		}
		name, val, _ := strings.Cut(opt, "=")
		if name != "retry-after" {
			return bad("unknown option " + strconv.Quote(name))
		}
		d, err := time.ParseDuration(val)
		if err != nil {
			return bad("bad retry-after: " + err.Error())
		}
		r.RetryAfter = Duration(d)
	}
	if err := r.Validate(); err != nil {
		return Rule{}, errors.Join(fmt.Errorf("fault rule %q", s), err)
	}
	return r, nil
}
