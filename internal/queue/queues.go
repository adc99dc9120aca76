package queue

import (
	"context"
	"errors"
	"fmt"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// CreateQueue creates a queue. It reports created=false, without error,
// when the queue exists with exactly the same metadata (Azure's 204), and
// fails with ErrQueueAlreadyExists when its metadata differs.
func (s *Service) CreateQueue(ctx context.Context, acct, name string, meta azhttp.Metadata) (created bool, err error) {
	err = s.store.Update(ctx, func(tx kv.Txn) error {
		q, err := loadQueue(tx, acct, name)
		switch {
		case err == nil:
			if q.Metadata.Equal(meta) {
				created = false
				return nil
			}
			return azerr.ErrQueueAlreadyExists
		case !errors.Is(err, azerr.ErrQueueNotFound):
			return err
		}
		created = true
		return tx.Set(queueKey(acct, name), record.Encode(&queueRecord{Created: s.clock(), Metadata: meta}))
	})
	if err != nil {
		return false, fmt.Errorf("create queue: %w", err)
	}
	return created, nil
}

// DeleteQueue removes a queue and every message in it.
func (s *Service) DeleteQueue(ctx context.Context, acct, name string) error {
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		if err := clearQueue(tx, acct, name); err != nil {
			return err
		}
		return tx.Delete(queueKey(acct, name))
	})
	if err != nil {
		return fmt.Errorf("delete queue: %w", err)
	}
	return nil
}

// QueueProperties is what Get Queue Metadata returns.
type QueueProperties struct {
	Metadata azhttp.Metadata
	// ApproximateMessages counts the messages that have not expired,
	// visible or not, in one snapshot.
	ApproximateMessages int
}

// GetQueueProperties returns a queue's metadata and message count.
func (t *Tx) GetQueueProperties(acct, name string) (*QueueProperties, error) {
	q, err := loadQueue(t.tx, acct, name)
	if err != nil {
		return nil, err
	}
	n := 0
	p := messagesPrefix(acct, name)
	err = t.tx.Scan(p, kv.PrefixEnd(p), func(_, v []byte) error {
		exp, err := expiresAt(v)
		if err != nil {
			return err
		}
		if exp.IsZero() || exp.After(t.now) {
			n++
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return &QueueProperties{Metadata: q.Metadata, ApproximateMessages: n}, nil
}

// GetQueueProperties runs Tx.GetQueueProperties on a snapshot.
func (s *Service) GetQueueProperties(ctx context.Context, acct, name string) (*QueueProperties, error) {
	var out *QueueProperties
	err := s.view(ctx, func(t *Tx) (err error) {
		out, err = t.GetQueueProperties(acct, name)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("get queue properties: %w", err)
	}
	return out, nil
}

// GetQueueACL returns a queue's stored access policies.
func (s *Service) GetQueueACL(ctx context.Context, acct, name string) ([]azauth.SignedIdentifier, error) {
	var out []azauth.SignedIdentifier
	err := s.store.View(ctx, func(r kv.Reader) error {
		q, err := loadQueue(r, acct, name)
		if err == nil {
			out = q.ACL
		}
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("get queue acl: %w", err)
	}
	return out, nil
}

// updateQueue applies change to an existing queue (last writer wins).
func (s *Service) updateQueue(ctx context.Context, acct, name string, change func(*queueRecord)) error {
	return s.store.Update(ctx, func(tx kv.Txn) error {
		q, err := loadQueue(tx, acct, name)
		if err != nil {
			return err
		}
		change(q)
		return tx.Set(queueKey(acct, name), record.Encode(q))
	})
}

// SetQueueMetadata replaces a queue's metadata.
func (s *Service) SetQueueMetadata(ctx context.Context, acct, name string, meta azhttp.Metadata) error {
	if err := s.updateQueue(ctx, acct, name, func(q *queueRecord) { q.Metadata = meta }); err != nil {
		return fmt.Errorf("set queue metadata: %w", err)
	}
	return nil
}

// SetQueueACL replaces a queue's stored access policies.
func (s *Service) SetQueueACL(ctx context.Context, acct, name string, acl []azauth.SignedIdentifier) error {
	if err := s.updateQueue(ctx, acct, name, func(q *queueRecord) { q.ACL = acl }); err != nil {
		return fmt.Errorf("set queue acl: %w", err)
	}
	return nil
}

// NamedQueue is one List Queues entry.
type NamedQueue struct {
	Name     string
	Metadata azhttp.Metadata
}

// ListQueues returns up to max queues whose names start with prefix, from
// marker on (a marker is the first name of the page), and the marker of
// the next page ("" at the end).
func (s *Service) ListQueues(ctx context.Context, acct, prefix, marker string, max int) ([]NamedQueue, string, error) {
	var out []NamedQueue
	next := ""
	err := s.store.View(ctx, func(r kv.Reader) error {
		out = out[:0]
		var err error
		next, err = record.Page(r, queuesPrefix(acct), prefix, marker, max, func(name string, q *queueRecord) {
			out = append(out, NamedQueue{Name: name, Metadata: q.Metadata})
		})
		return err
	})
	if err != nil {
		return nil, "", fmt.Errorf("list queues: %w", err)
	}
	return out, next, nil
}
