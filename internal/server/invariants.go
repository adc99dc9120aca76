package server

import (
	"context"
	"errors"
	"fmt"
)

// invariantChecker is a service that can verify what it keeps in the
// store.
type invariantChecker interface {
	CheckInvariants(ctx context.Context) error
}

// logSettler is a service that keeps logs whose appends an engine may
// number after commit (kv.Settle): it numbers what waits, so that a
// check sees every committed append.
type logSettler interface {
	SettleLogs(ctx context.Context) error
}

// checkedService is one service CheckInvariants asks.
type checkedService struct {
	name string
	svc  invariantChecker
}

// checkInvariantsOf registers svc with CheckInvariants.
func (s *Server) checkInvariantsOf(name string, svc invariantChecker) {
	s.checked = append(s.checked, checkedService{name, svc})
}

// CheckInvariants asks every service to verify its stored state (each
// reads one snapshot of the store, once its logs are settled) and joins what they find, each
// violation prefixed with its service's name; the stored-bytes counts
// are checked against a full scan too. Tests call it once the
// server is quiet (Config.BeforeStoreClose); it needs the store open.
func (s *Server) CheckInvariants(ctx context.Context) error {
	var errs []error
	// A store from a release without counts is counted first; the check
	// covers that count too.
	s.counted.Wait()
	// The counts include an append from its commit, a scan from its
	// numbering: the logs are settled first.
	for _, c := range s.checked {
		if l, ok := c.svc.(logSettler); ok {
			if err := l.SettleLogs(ctx); err != nil {
				errs = append(errs, fmt.Errorf("%s: settling its logs: %w", c.name, err))
			}
		}
	}
	if err := s.counted.Check(ctx); err != nil {
		errs = append(errs, fmt.Errorf("stored-bytes counts: %w", err))
	}
	for _, c := range s.checked {
		if err := c.svc.CheckInvariants(ctx); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", c.name, err))
		}
	}
	return errors.Join(errs...)
}

// beforeStoreClose runs Config.BeforeStoreClose the first time Shutdown
// reaches the store (a second Shutdown finds it closed).
func (s *Server) beforeStoreClose(ctx context.Context) {
	if hook := s.onStoreClose; hook != nil {
		s.onStoreClose = nil
		hook(ctx, s)
	}
}
