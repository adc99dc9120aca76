package queue

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// benchQueueSizes are the queue lengths the scale benchmarks measure at.
// The million-message size takes minutes to fill, so it runs only when
// CERULEAN_BENCH_1M is set:
//
//	CERULEAN_BENCH_1M=1 go test -run '^$' -bench QueueScale -benchtime 20000x ./internal/queue
func benchQueueSizes() []int {
	sizes := []int{1_000, 10_000, 100_000}
	if os.Getenv("CERULEAN_BENCH_1M") != "" {
		sizes = append(sizes, 1_000_000)
	}
	return sizes
}

// fillBatch is how many messages one filling transaction puts (about
// 1.3 MB of writes, well under kv.MaxTxnSize).
const fillBatch = 10_000

// backlogClock reads the real clock, or an hour before it while filling:
// the queue is a backlog put well before it is consumed.
type backlogClock struct{ filling atomic.Bool }

func (c *backlogClock) Now() time.Time {
	if c.filling.Load() {
		return time.Now().Add(-time.Hour)
	}
	return time.Now()
}

// newScaleService is a Service over Pebble on an in-memory file system:
// the LSM's work (memtables, flushes, compactions, tombstones) without
// the disk's fsync latency, which would drown the per-length differences.
func newScaleService(b *testing.B) (*Service, *backlogClock) {
	b.Helper()
	store := testkit.MemPebble(b)
	accounts, err := azauth.LoadAccounts(func(string) string { return "" })
	if err != nil {
		b.Fatal(err)
	}
	clock := &backlogClock{}
	s := New(Config{Store: store, Accounts: accounts, Now: clock.Now, Logger: slog.New(slog.DiscardHandler)})
	if _, err := s.CreateQueue(context.Background(), acct, "q", nil); err != nil {
		b.Fatal(err)
	}
	return s, clock
}

// fillQueue puts n messages on queue q in transactions of fillBatch, with
// the clock an hour back.
func fillQueue(b *testing.B, s *Service, clock *backlogClock, n int) {
	b.Helper()
	clock.filling.Store(true)
	defer clock.filling.Store(false)
	text := strings.Repeat("x", 32)
	for n > 0 {
		batch := min(n, fillBatch)
		err := s.Update(context.Background(), func(tx *Tx) error {
			for range batch {
				if _, err := tx.PutMessage(acct, "q", text, PutOptions{}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
		n -= batch
	}
}

// BenchmarkQueueScale measures Put Message and Get Messages + Delete
// Message (1 and 32 messages a call) on queues of growing length. One op
// is one message put, or one message got and deleted. Get+Delete tops the
// queue up outside the timer so that its length stays near size.
func BenchmarkQueueScale(b *testing.B) {
	ctx := context.Background()
	for _, size := range benchQueueSizes() {
		b.Run(fmt.Sprintf("put/len=%d", size), func(b *testing.B) {
			s, clock := newScaleService(b)
			fillQueue(b, s, clock, size)
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				if _, err := s.PutMessage(ctx, acct, "q", "hello", PutOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		for _, per := range []int{1, 32} {
			b.Run(fmt.Sprintf("get%d-delete/len=%d", per, size), func(b *testing.B) {
				s, clock := newScaleService(b)
				fillQueue(b, s, clock, size)
				refill := max(min(size/10, fillBatch), per)
				taken := 0
				b.ReportAllocs()
				b.ResetTimer()
				for done := 0; done < b.N; {
					msgs, err := s.GetMessages(ctx, acct, "q", per, DefaultGetVisibility)
					if err != nil {
						b.Fatal(err)
					}
					if len(msgs) == 0 {
						b.Fatalf("queue of %d ran dry after %d", size, done)
					}
					for _, m := range msgs {
						if err := s.DeleteMessage(ctx, acct, "q", m.ID, m.PopReceipt); err != nil {
							b.Fatal(err)
						}
					}
					done += len(msgs)
					taken += len(msgs)
					if taken >= refill {
						b.StopTimer()
						fillQueue(b, s, clock, taken)
						taken = 0
						b.StartTimer()
					}
				}
			})
		}
	}
}
