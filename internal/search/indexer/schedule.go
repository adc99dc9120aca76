package indexer

import (
	"context"
	"errors"
	"time"

	"github.com/cerulean-db/cerulean/internal/background"
	"github.com/cerulean-db/cerulean/internal/search"
)

// schedule is an indexer's schedule: every interval from start (or from
// its latest run when it has no start time).
type schedule struct {
	interval time.Duration
	start    *time.Time
	key      string
}

func parseSchedule(def search.Definition) (*schedule, bool) {
	ix, ok := def.(*search.Indexer)
	if !ok || ix.Disabled != nil && *ix.Disabled || ix.Schedule == nil {
		return nil, false
	}
	iv := ix.Schedule.Interval
	d, err := search.ParseDuration(iv)
	if err != nil || d <= 0 {
		return nil, false
	}
	s := &schedule{interval: d, key: iv}
	if st := ix.Schedule.StartTime; st != nil && *st != "" {
		t, err := time.Parse(time.RFC3339Nano, *st)
		if err != nil {
			return nil, false
		}
		t = t.UTC()
		s.start = &t
		s.key += "|" + *st
	}
	return s, true
}

// next is the first slot of the schedule after now.
func (s *schedule) next(from, now time.Time) time.Time {
	if !from.After(now) {
		n := now.Sub(from)/s.interval + 1
		from = from.Add(n * s.interval)
	}
	return from
}

// due decides, inside the claim's transaction, whether the indexer is due
// and if so moves its next due time past now.
func (s *schedule) due(st *state, now time.Time) bool {
	if st.Schedule != s.key {
		st.NextDue, st.Schedule = nil, s.key
	}
	var at time.Time
	switch {
	case st.NextDue != nil:
		at = *st.NextDue
	case s.start != nil:
		at = *s.start
	case st.LastStart != nil:
		at = st.LastStart.Add(s.interval)
	default:
		at = now
	}
	if now.Before(at) {
		return false
	}
	anchor := at
	if s.start != nil {
		anchor = *s.start
	}
	next := s.next(anchor, now)
	st.NextDue = &next
	return true
}

// RunDue runs, one after another, every scheduled indexer that is due
// and that no other run holds, and returns the names it ran. Whether an
// indexer is due comes from its state in kv, so engines in several
// processes agree, and the claim that starts each run is taken in the
// transaction that moves the next due time: of two engines calling
// RunDue together, one runs each due indexer.
func (e *Engine) RunDue(ctx context.Context) ([]string, error) {
	indexers, err := e.cfg.Search.List(ctx, search.Indexers)
	if err != nil {
		return nil, err
	}
	var ran []string
	for _, res := range indexers {
		s, ok := parseSchedule(res.Definition)
		if !ok {
			continue
		}
		c, err := e.claim(ctx, res.Name, s.due)
		if errors.Is(err, errNotDue) || errors.Is(err, ErrInProgress) {
			continue
		}
		if err != nil {
			return ran, err
		}
		e.execute(ctx, res.Name, c)
		ran = append(ran, res.Name)
	}
	return ran, nil
}

// StartScheduler checks the schedules every tick until the returned stop
// function is called (or the Engine is closed); stop waits for a run in
// progress to end.
func (e *Engine) StartScheduler(tick time.Duration) (stop func()) {
	return background.NowAndEvery(e.base, tick, func(ctx context.Context) {
		if _, err := e.RunDue(ctx); err != nil && ctx.Err() == nil {
			e.log.Warn("indexer: scheduled runs", "err", err)
		}
	})
}
