package kv

import "time"

// Observer receives a store's commit measurements (the metrics endpoint
// implements it). Engines call it from the committing goroutines: it
// must be safe for concurrent use and must not block.
type Observer interface {
	// Committed reports an Update that succeeded: how long it
	// took, retries and the wait for durability included, and how many
	// attempts it needed (1 when it met no conflict).
	Committed(took time.Duration, attempts int)
	// Conflicted reports an attempt that lost to a concurrent commit
	// (it is then retried, or the Update fails with ErrConflict).
	Conflicted()
	// Synced reports one wait for durability that made commits durable:
	// how many commits it covered (group commit shares one sync).
	Synced(commits int)
}

// Observable is a store that reports to an Observer once given one.
type Observable interface {
	Observe(Observer)
}

// Fallible is a store that can fail for good: after a failed sync it
// cannot tell which commits are durable, so it refuses every call. Failed
// is closed then, and Failure says why; the owner stops serving, and a
// restart recovers every acknowledged write from the write-ahead log.
type Fallible interface {
	Failed() <-chan struct{}
	Failure() error
}
