package queue

import (
	"bytes"
	"context"
	"fmt"
	"github.com/cerulean-db/cerulean/internal/background"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// sweepBatch is how many message keys one sweep transaction visits, so
// that sweeping never holds a large read set that requests would conflict
// with.
const sweepBatch = 128

// Sweep deletes the expired messages of every queue of every account, in
// small transactions, and returns how many it deleted. Requests never wait
// for it: expired messages are already invisible to them.
func (s *Service) Sweep(ctx context.Context) (int, error) {
	total := 0
	for _, acct := range s.accounts.Names() {
		marker := ""
		for {
			queues, next, err := s.ListQueues(ctx, acct, "", marker, 1000)
			if err != nil {
				return total, err
			}
			for _, q := range queues {
				n, err := s.sweepQueue(ctx, acct, q.Name)
				total += n
				if err != nil {
					return total, err
				}
			}
			if next == "" {
				break
			}
			marker = next
		}
	}
	return total, nil
}

// sweepQueue walks one queue's messages a batch at a time.
func (s *Service) sweepQueue(ctx context.Context, acct, queue string) (int, error) {
	prefix := messagesPrefix(acct, queue)
	start, end := []byte(prefix), kv.PrefixEnd(prefix)
	total := 0
	for start != nil {
		var next []byte
		deleted := 0
		err := s.store.Update(ctx, func(tx kv.Txn) error {
			next, deleted = nil, 0
			now := s.clock()
			var doomed [][]byte
			seen := 0
			err := tx.Scan(start, end, func(k, v []byte) error {
				if seen == sweepBatch {
					next = bytes.Clone(k)
					return kv.ErrStopScan
				}
				seen++
				exp, err := expiresAt(v)
				if err != nil {
					return err
				}
				if !exp.IsZero() && !exp.After(now) {
					doomed = append(doomed, bytes.Clone(k))
				}
				return nil
			})
			if err != nil {
				return err
			}
			for _, k := range doomed {
				if err := tx.Delete(k); err != nil {
					return err
				}
			}
			deleted = len(doomed)
			return nil
		})
		if err != nil {
			return total, fmt.Errorf("sweep queue %s: %w", queue, err)
		}
		total += deleted
		start = next
	}
	return total, nil
}

// StartSweeper runs Sweep every interval until the returned stop is
// called; stop waits for a sweep in progress to end. Failures are logged
// and retried at the next tick.
func (s *Service) StartSweeper(interval time.Duration) (stop func()) {
	return background.Every(interval, s.log, "queue sweep", s.Sweep)
}
