package queue

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// Limits of the Queue service, as Azure documents them.
const (
	// MaxMessageSize bounds a message's text, in UTF-8 bytes.
	MaxMessageSize = 64 << 10
	// MaxVisibilityTimeout bounds every visibility timeout.
	MaxVisibilityTimeout = 7 * 24 * time.Hour
	// DefaultTTL is a message's time-to-live when Put Message names none.
	DefaultTTL = 7 * 24 * time.Hour
	// MaxMessagesPerGet bounds numofmessages of Get and Peek Messages.
	MaxMessagesPerGet = 32
	// DefaultGetVisibility is Get Messages' visibility timeout when the
	// request names none.
	DefaultGetVisibility = 30 * time.Second
)

// maxExpiredPerGet bounds how many expired messages one Get Messages
// deletes on its way, keeping its transaction small; the sweeper takes
// the rest.
const maxExpiredPerGet = 256

// Message is one message as the wire shows it.
type Message struct {
	ID       string
	Inserted time.Time
	// Expires is zero for a message that never expires.
	Expires      time.Time
	Visible      time.Time // TimeNextVisible
	PopReceipt   string    // empty in Peek Messages results
	DequeueCount int64
	Text         string
}

func (m *message) wire(withReceipt bool) Message {
	out := Message{ID: formatID(m.ID), Inserted: m.Inserted, Expires: m.Expires, Visible: m.Visible, DequeueCount: m.DequeueCount, Text: m.Text}
	if withReceipt {
		out.PopReceipt = issueReceipt(m)
	}
	return out
}

// PutOptions are Put Message's parameters.
type PutOptions struct {
	// Visibility delays the message's first visibility (0 to 7 days).
	Visibility time.Duration
	// TTL is the time-to-live; zero means DefaultTTL. NoExpiry
	// (messagettl=-1) overrides it.
	TTL      time.Duration
	NoExpiry bool
}

// PutMessage adds a message to the back of a queue. The returned message
// carries a pop receipt that can update or delete it.
func (t *Tx) PutMessage(acct, queue, text string, o PutOptions) (*Message, error) {
	if len(text) > MaxMessageSize {
		return nil, errMessageTooLarge
	}
	if o.TTL == 0 {
		o.TTL = DefaultTTL
	}
	if !o.NoExpiry && o.Visibility >= o.TTL {
		return nil, azerr.InvalidQueryParameterValue("visibilitytimeout", secondsText(o.Visibility), "messagettl must be greater than visibilitytimeout")
	}
	if _, err := loadQueue(t.tx, acct, queue); err != nil {
		return nil, err
	}
	m := &message{
		ID:       newMessageID(),
		Seq:      t.nextSeq(),
		Inserted: t.now,
		Visible:  t.now.Add(o.Visibility),
		Receipt:  t.tx.Version(),
		Text:     text,
	}
	if !o.NoExpiry {
		m.Expires = expiry(t.now, o.TTL)
	}
	// Seq holds this transaction's version: the key is new.
	if err := kv.Insert(t.tx, messageKey(acct, queue, m.Visible, m.Seq), encodeMessage(m)); err != nil {
		return nil, err
	}
	out := m.wire(true)
	return &out, nil
}

// PutMessage runs Tx.PutMessage in a transaction of its own.
func (s *Service) PutMessage(ctx context.Context, acct, queue, text string, o PutOptions) (*Message, error) {
	var out *Message
	err := s.Update(ctx, func(t *Tx) (err error) {
		out, err = t.PutMessage(acct, queue, text, o)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("put message: %w", err)
	}
	return out, nil
}

// secondsText renders a duration as the whole seconds the wire sent.
func secondsText(d time.Duration) string { return strconv.FormatInt(int64(d/time.Second), 10) }

// expiry is now+ttl, or zero (never) when that is beyond what a stored
// time can carry.
func expiry(now time.Time, ttl time.Duration) time.Time {
	if ttl >= maxExpiry.Sub(now) {
		return time.Time{}
	}
	return now.Add(ttl)
}

// errMessageTooLarge is Azure's answer to a message over 64 KiB: 413
// RequestBodyTooLarge (not the documented-but-unused MessageTooLarge).
var errMessageTooLarge = azerr.ErrRequestBodyTooLarge.WithMessage("The request body is too large and exceeds the maximum permissible limit. (MaxLimit: %d)", MaxMessageSize)

// GetMessages hands out up to n visible messages, oldest visible first,
// hiding each for visibility and giving it a new pop receipt and
// DequeueCount+1. Two transactions that read the same message conflict
// and one runs again, so a message is never handed out twice within its
// visibility window.
func (t *Tx) GetMessages(acct, queue string, n int, visibility time.Duration) ([]Message, error) {
	out, _, err := t.getMessages(acct, queue, n, visibility, nil, nil)
	return out, err
}

// getMessages is GetMessages scanning from start (nil: the queue's first
// message), which must be a head its caller got from headCache, and
// around what other Gets claimed when c is not nil (scanVisible). It also
// returns the head a later scan may start from once this one commits.
func (t *Tx) getMessages(acct, queue string, n int, visibility time.Duration, start []byte, c *claimer) ([]Message, []byte, error) {
	if _, err := loadQueue(t.tx, acct, queue); err != nil {
		return nil, nil, err
	}
	taken, expired, head, err := scanVisible(t.tx, acct, queue, t.now, n, true, start, c)
	if err != nil {
		return nil, nil, err
	}
	for _, e := range expired {
		if err := kv.Remove(t.tx, e.key, e.size); err != nil {
			return nil, nil, err
		}
	}
	var out []Message
	for _, km := range taken {
		if err := kv.Remove(t.tx, km.key, km.size); err != nil {
			return nil, nil, err
		}
		m := km.msg
		m.Visible = t.now.Add(visibility)
		m.DequeueCount++
		m.Receipt = t.tx.Version()
		// A message's keys differ in visibility alone, and the old one
		// is gone: the new key holds nothing.
		if err := kv.Insert(t.tx, messageKey(acct, queue, m.Visible, m.Seq), encodeMessage(m)); err != nil {
			return nil, nil, err
		}
		out = append(out, m.wire(true))
	}
	return out, head, nil
}

// GetMessages runs Tx.GetMessages in a transaction of its own. It starts
// its scan at the queue's cached head, past the tombstones its earlier
// Gets left (see headCache), and passes over the messages concurrent
// Gets of this process are taking without reading them (claimTable), so
// that consumers competing for one queue take different messages instead
// of all reading its first ones and all but one running again. A Get
// that finds every visible message being taken by other Gets waits for
// them and looks again, as it would have run again had it conflicted
// with them (maxClaimWaits).
func (s *Service) GetMessages(ctx context.Context, acct, queue string, n int, visibility time.Duration) ([]Message, error) {
	began := s.clock()
	start := s.heads.start(acct, queue, began)
	c := s.claims.claimer(acct, queue)
	defer c.release()
	var out []Message
	var head []byte
	for round := 0; ; round++ {
		released := c.waitRelease()
		err := s.Update(ctx, func(t *Tx) (err error) {
			c.release() // an attempt run again claims afresh
			c.passed = 0
			out, head, err = t.getMessages(acct, queue, n, visibility, start, c)
			return err
		})
		if err != nil {
			return nil, fmt.Errorf("get messages: %w", err)
		}
		if len(out) > 0 || c.passed == 0 || round == maxClaimWaits {
			break
		}
		// Every visible message was being taken by another Get: wait
		// for one of them to finish, then look again.
		c.release()
		select {
		case <-released:
		case <-time.After(claimWait):
		case <-ctx.Done():
			return nil, fmt.Errorf("get messages: %w", ctx.Err())
		}
	}
	s.heads.advance(acct, queue, head, began)
	return out, nil
}

// A Get that found only messages other Gets were taking looks again up
// to maxClaimWaits times, each once one of them has finished or after
// claimWait: a Get that conflicted with them would have run again too.
const (
	maxClaimWaits = 3
	claimWait     = 100 * time.Millisecond
)

// PeekMessages returns up to n visible messages, oldest visible first,
// without changing them.
func (t *Tx) PeekMessages(acct, queue string, n int) ([]Message, error) {
	if _, err := loadQueue(t.tx, acct, queue); err != nil {
		return nil, err
	}
	taken, _, _, err := scanVisible(t.tx, acct, queue, t.now, n, false, nil, nil)
	if err != nil {
		return nil, err
	}
	var out []Message
	for _, km := range taken {
		out = append(out, km.msg.wire(false))
	}
	return out, nil
}

// PeekMessages runs Tx.PeekMessages on a snapshot.
func (s *Service) PeekMessages(ctx context.Context, acct, queue string, n int) ([]Message, error) {
	var out []Message
	err := s.view(ctx, func(t *Tx) (err error) {
		out, err = t.PeekMessages(acct, queue, n)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("peek messages: %w", err)
	}
	return out, nil
}

type keyedMessage struct {
	key  []byte
	size int      // of the stored value
	msg  *message // nil for an expired message
}

// scanVisible reads the first n messages visible at now that have not
// expired, starting at start (nil: the queue's first message). With
// collect it also returns the expired messages it passed (at most
// maxExpiredPerGet), for the caller to delete. head is where a later
// scan may start once the caller has deleted taken and expired: the first
// key it passed and left in place, or else where it stopped.
//
// With a claimer it returns only messages it could claim (claimTable),
// passing over those other Gets claimed, and reads only what it returns
// (kv.ScanPicking): the Gets taking the others do not conflict with it.
func scanVisible(r kv.Reader, acct, queue string, now time.Time, n int, collect bool, start []byte, c *claimer) (taken, expired []keyedMessage, head []byte, err error) {
	if start == nil {
		start = messagesPrefix(acct, queue)
	}
	end := visibleEnd(acct, queue, now)
	leave := func(k []byte) {
		if head == nil {
			head = bytes.Clone(k)
		}
	}
	visit := func(k, v []byte) (bool, error) {
		exp, err := expiresAt(v)
		if err != nil {
			return false, err
		}
		if !exp.IsZero() && !exp.After(now) {
			if collect && len(expired) < maxExpiredPerGet && (c == nil || c.take(k)) {
				expired = append(expired, keyedMessage{key: bytes.Clone(k), size: len(v)})
				return true, nil
			}
			leave(k)
			return false, nil
		}
		if c != nil && !c.take(k) {
			leave(k) // its taker may yet fail
			return false, nil
		}
		m, err := decodeMessage(v)
		if err != nil {
			return false, err
		}
		taken = append(taken, keyedMessage{key: bytes.Clone(k), size: len(v), msg: m})
		if len(taken) >= n {
			return true, kv.ErrStopScan
		}
		return true, nil
	}
	if c != nil {
		err = kv.ScanPicking(r, start, end, visit)
	} else {
		err = r.Scan(start, end, func(k, v []byte) error {
			_, err := visit(k, v)
			return err
		})
	}
	if head == nil {
		head = end
		if len(taken) == n {
			head = taken[n-1].key // deleted by the caller; the next scan starts there
		}
	}
	return taken, expired, head, err
}

// lookup finds the message a pop receipt names and checks that it is the
// message id names and that the receipt is its current one.
func (t *Tx) lookup(acct, queue, id, popReceipt string) (found keyedMessage, err error) {
	if _, err := loadQueue(t.tx, acct, queue); err != nil {
		return keyedMessage{}, err
	}
	// A receipt that is not Base64 is malformed (Java's recordings
	// QueueAsyncApiTests.deleteMessageInvalidArgs: 400); one that is but
	// names no message is 404 MessageNotFound (.NET's
	// QueueClientTests DeleteMessagAsync_Error, UpdateMessageAsync_Error).
	rc, err := parseReceipt(popReceipt)
	if errors.Is(err, errForeignReceipt) {
		return keyedMessage{}, azerr.ErrMessageNotFound
	}
	if err != nil {
		return keyedMessage{}, azerr.InvalidQueryParameterValue("popreceipt", popReceipt, "Invalid pop receipt format")
	}
	want, ok := parseID(id)
	if !ok {
		return keyedMessage{}, azerr.ErrMessageNotFound
	}
	key := messageKey(acct, queue, rc.visibleAt(), rc.seq)
	v, err := t.tx.Get(key)
	if errors.Is(err, kv.ErrNotFound) {
		return keyedMessage{}, azerr.ErrMessageNotFound
	}
	if err != nil {
		return keyedMessage{}, err
	}
	m, err := decodeMessage(v)
	if err != nil {
		return keyedMessage{}, err
	}
	if m.ID != want || m.expired(t.now) {
		return keyedMessage{}, azerr.ErrMessageNotFound
	}
	if m.Receipt != rc.version {
		return keyedMessage{}, azerr.ErrPopReceiptMismatch
	}
	return keyedMessage{key: key, size: len(v), msg: m}, nil
}

// DeleteMessage removes the message id if popReceipt is its current pop
// receipt: the one the latest Put, Get or Update of it returned.
func (t *Tx) DeleteMessage(acct, queue, id, popReceipt string) error {
	found, err := t.lookup(acct, queue, id, popReceipt)
	if err != nil {
		return err
	}
	return kv.Remove(t.tx, found.key, found.size)
}

// DeleteMessage runs Tx.DeleteMessage in a transaction of its own.
func (s *Service) DeleteMessage(ctx context.Context, acct, queue, id, popReceipt string) error {
	if err := s.Update(ctx, func(t *Tx) error { return t.DeleteMessage(acct, queue, id, popReceipt) }); err != nil {
		return fmt.Errorf("delete message: %w", err)
	}
	return nil
}

// UpdateMessage makes the message visible again after visibility and, when
// text is not nil, replaces its content. It invalidates popReceipt and
// returns the message with its new pop receipt and TimeNextVisible.
func (t *Tx) UpdateMessage(acct, queue, id, popReceipt string, visibility time.Duration, text *string) (*Message, error) {
	if text != nil && len(*text) > MaxMessageSize {
		return nil, errMessageTooLarge
	}
	found, err := t.lookup(acct, queue, id, popReceipt)
	if err != nil {
		return nil, err
	}
	m := found.msg
	visible := t.now.Add(visibility)
	if !m.Expires.IsZero() && visible.After(m.Expires) {
		return nil, azerr.InvalidQueryParameterValue("visibilitytimeout", secondsText(visibility), "the message would become visible after it expires")
	}
	if err := kv.Remove(t.tx, found.key, found.size); err != nil {
		return nil, err
	}
	m.Visible = visible
	m.Receipt = t.tx.Version()
	if text != nil {
		m.Text = *text
	}
	if err := kv.Insert(t.tx, messageKey(acct, queue, m.Visible, m.Seq), encodeMessage(m)); err != nil {
		return nil, err
	}
	out := m.wire(true)
	return &out, nil
}

// UpdateMessage runs Tx.UpdateMessage in a transaction of its own.
func (s *Service) UpdateMessage(ctx context.Context, acct, queue, id, popReceipt string, visibility time.Duration, text *string) (*Message, error) {
	var out *Message
	err := s.Update(ctx, func(t *Tx) (err error) {
		out, err = t.UpdateMessage(acct, queue, id, popReceipt, visibility, text)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("update message: %w", err)
	}
	return out, nil
}

// ClearMessages deletes every message of a queue.
func (s *Service) ClearMessages(ctx context.Context, acct, queue string) error {
	err := s.store.Update(ctx, func(tx kv.Txn) error { return clearQueue(tx, acct, queue) })
	if err != nil {
		return fmt.Errorf("clear messages: %w", err)
	}
	return nil
}

// clearQueue deletes every message of a queue that must exist.
func clearQueue(tx kv.Txn, acct, queue string) error {
	if _, err := loadQueue(tx, acct, queue); err != nil {
		return err
	}
	p := messagesPrefix(acct, queue)
	return tx.DeleteRange(p, kv.PrefixEnd(p))
}
