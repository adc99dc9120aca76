package queue

import (
	"time"

	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

func accountKey(acct string) tuple.Key { return tuple.New(accountTag).Str(acct) }

func servicePropsKey(acct string) tuple.Key { return accountKey(acct).Raw("p") }

func queueKey(acct, queue string) tuple.Key { return queuesPrefix(acct).Str(queue) }

func queuesPrefix(acct string) tuple.Key { return accountKey(acct).Raw("q") }

// messagesPrefix is the start of one queue's messages, ordered by the time
// they become visible and then by insertion.
func messagesPrefix(acct, queue string) tuple.Key { return accountKey(acct).Raw("m").Str(queue) }

func messageKey(acct, queue string, visible time.Time, seq uint64) tuple.Key {
	return messagesPrefix(acct, queue).Uint(unixNanos(visible)).Uint(seq)
}

// visibleEnd is the first message key of queue not yet visible at now:
// every key before it has visibleAt <= now.
func visibleEnd(acct, queue string, now time.Time) tuple.Key {
	return messagesPrefix(acct, queue).Uint(unixNanos(now) + 1)
}

// unixNanos orders times as unsigned integers; times before 1970 (which a
// sane clock never produces) clamp to zero.
func unixNanos(t time.Time) uint64 {
	n := t.UnixNano()
	if n < 0 {
		return 0
	}
	return uint64(n)
}

// accountTag starts every key of an account's resources.
const accountTag = keyspace.QueueAccounts

// ObjectKey reports whether key is a queue message (the metrics count
// objects with it).
func ObjectKey(key []byte) bool {
	_, ok := tuple.Tagged(key, accountTag, 'm')
	return ok
}
