package queue

import (
	"bytes"
	"context"
	"errors"

	"github.com/cerulean-db/cerulean/internal/invariant"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// CheckInvariants reads every account's queues and messages in one
// snapshot and verifies what Get Messages and the pop receipts rely on:
// every queue record decodes; every message decodes and sits under the
// key its record names (visibleAt and Seq: the visibility window lives in
// the key), in a queue that exists; a message's id and Seq are unique in
// its queue; its dequeue count is not negative and its pop receipt was
// issued no earlier than the Put that made it; it expires after it was
// inserted. It describes the first violations in its error. Run it on a
// quiet store.
func (s *Service) CheckInvariants(ctx context.Context) error {
	c := queueChecker{queues: map[[2]string]bool{}, messagesOf: map[[2]string]int{}, ids: map[[2]string]map[[16]byte]bool{}, seqs: map[[2]string]map[uint64]bool{}}
	return invariant.Check(ctx, s.store, "queue", func(r kv.Reader, v *invariant.Violations) error {
		c.v = v
		return v.ScanAccounts(r, accountTag, c.entry)
	}, func(v *invariant.Violations) {
		for q, n := range c.messagesOf {
			if !c.queues[q] {
				v.Add("queue %s/%s holds %d messages but does not exist", q[0], q[1], n)
			}
		}
	})
}

// queueChecker gathers one snapshot's queues and messages. Keys arrive
// in order, an account's queue records ('q') after its messages ('m'),
// so message ownership is settled once the scan is done.
type queueChecker struct {
	queues     map[[2]string]bool
	messagesOf map[[2]string]int
	ids        map[[2]string]map[[16]byte]bool
	seqs       map[[2]string]map[uint64]bool
	v          *invariant.Violations
}

// entry files one record of an account: a queue or a message.
func (c *queueChecker) entry(acct string, kind byte, rd *tuple.Reader, k, v []byte) error {
	switch kind {
	case 'q':
		name, err := rd.Str()
		if err == nil {
			err = record.Decode(v, &queueRecord{})
		}
		c.queues[[2]string{acct, name}] = err == nil
		return err
	case 'm':
		queue, err := rd.Str()
		if err != nil {
			return err
		}
		return c.message(acct, queue, k, v)
	}
	return errors.New("unknown kind of record")
}

// message checks one message of queue; k is its key.
func (c *queueChecker) message(acct, queue string, k, v []byte) error {
	m, err := decodeMessage(v)
	if err != nil {
		return err
	}
	q := [2]string{acct, queue}
	id := formatID(m.ID)
	if !bytes.Equal(k, messageKey(acct, queue, m.Visible, m.Seq)) {
		c.v.Add("message %s of %s/%s is not under the key its record names (visible at %d, Seq %d)", id, acct, queue, unixNanos(m.Visible), m.Seq)
	}
	c.messagesOf[q]++
	if c.ids[q] == nil {
		c.ids[q], c.seqs[q] = map[[16]byte]bool{}, map[uint64]bool{}
	}
	if c.ids[q][m.ID] {
		c.v.Add("message id %s appears twice in %s/%s", id, acct, queue)
	}
	if c.seqs[q][m.Seq] {
		c.v.Add("message %s of %s/%s shares Seq %d with another message", id, acct, queue, m.Seq)
	}
	c.ids[q][m.ID], c.seqs[q][m.Seq] = true, true
	switch {
	case m.DequeueCount < 0:
		c.v.Add("message %s of %s/%s has dequeue count %d", id, acct, queue, m.DequeueCount)
	case m.Receipt < m.Seq>>seqShift:
		c.v.Add("message %s of %s/%s has a pop receipt of version %d, older than its Put (Seq %d)", id, acct, queue, m.Receipt, m.Seq)
	case !m.Expires.IsZero() && !m.Expires.After(m.Inserted):
		c.v.Add("message %s of %s/%s expires at %v, not after its insertion at %v", id, acct, queue, m.Expires, m.Inserted)
	}
	return nil
}
