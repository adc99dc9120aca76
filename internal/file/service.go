package file

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/extentstore"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/liveness"
	"github.com/cerulean-db/cerulean/internal/svcconfig"
)

// Config is what a Service needs.
type Config = svcconfig.Config

// Service is the File service of every account the server hosts: the
// rules of shares, directories, files and their ranges over the kv store.
// It speaks no HTTP; NewHandler serves it on the wire.
type Service struct {
	store kv.Store
	// content is store as the content store of files' data.
	content *extentstore.Store[fileRef]
	// accounts are not a domain rule: the handler authenticates against
	// them, and is built from the Service alone.
	accounts *azauth.Accounts
	now      func() time.Time
	log      *slog.Logger
	waiters  *lockWaiters
	// watchers are told of committed changes (WatchChanges).
	watchers *changeWatchers
	// processes, when set, tells which server processes sharing the store
	// are running: handles record their opener, and SweepOrphanHandles
	// closes those whose process is gone.
	processes *liveness.Registry
	// namesUpgraded is set once the store holds no directory entry of
	// the layout before case-insensitive names (names_upgrade.go);
	// upgradeMu lets one operation run the upgrade while others wait.
	namesUpgraded atomic.Bool
	upgradeMu     sync.Mutex
	// retention is how many days a deleted share stays restorable, 0 for
	// none (WithShareRetention; shares_softdelete.go).
	retention int
	// defaultQuota is the quota of a share created without one (GiB).
	defaultQuota int
	// breaker breaks SMB caching before FileREST reads and writes.
	breaker breakerSlot
}

// An Option configures a Service.
type Option func(*Service)

// WithLargeShares gives a share created without a quota the largest one,
// 100 TiB, as an Azure account with large file shares on does (a
// management-plane setting: the JavaScript and .NET SDKs' recording
// accounts report 102400 for such shares, the Go and Java ones 5120).
func WithLargeShares(on bool) Option {
	return func(s *Service) {
		if on {
			s.defaultQuota = MaxQuota
		}
	}
}

// WithShareRetention keeps deleted shares restorable for days (1 to 365),
// as share soft delete does on an Azure account; 0 deletes them at once.
func WithShareRetention(days int) Option { return func(s *Service) { s.retention = days } }

// UseProcesses makes handles record this process as their opener and
// SweepOrphanHandles close only the handles of processes that are gone.
// Without it, SweepOrphanHandles closes every handle, which is right only
// at the start of a process that has the store to itself.
func (s *Service) UseProcesses(p *liveness.Registry) { s.processes = p }

// CollectLater has the data of deleted files and shares, and large
// content a write freed, collected by later once the write has
// committed, off the request: it is answered at once, as Azure answers it
// (see extentstore.CollectLater). Without it the answer waits until the
// data is gone.
func (s *Service) CollectLater(later func(work func(context.Context))) { s.content.CollectLater(later) }

// owner is the id handles opened by this process record.
func (s *Service) owner() string {
	if s.processes == nil {
		return ""
	}
	return s.processes.ID()
}

// New returns a Service over cfg.Store.
func New(cfg Config, opts ...Option) *Service {
	cfg = cfg.WithDefaults()
	// The content store collects the data a commit dropped once the
	// commit is done.
	content := extentstore.New(cfg.Store, objects, cfg.Now, cfg.Logger)
	s := &Service{store: content, content: content, accounts: cfg.Accounts, now: cfg.Now, log: cfg.Logger,
		waiters: &lockWaiters{files: map[fileRef]chan struct{}{}}, watchers: &changeWatchers{}}
	for _, o := range opts {
		o(s)
	}
	return s
}

// clock returns the commit time: UTC at the wire's 100 ns precision.
func (s *Service) clock() time.Time { return s.now().UTC().Truncate(100 * time.Nanosecond) }

// Tx runs operations inside a kv transaction its caller owns, so that they
// commit or roll back together with everything else it does. Its methods
// take no context and never commit. The time they stamp on records is
// read once, when the Tx is made.
type Tx struct {
	r   kv.Reader // where reads go: tx, or a view's snapshot
	tx  kv.Txn    // nil in a view, which only reads
	now time.Time
	seq uint64 // IDs handed out so far in this transaction
	// roomy is set by a Service operation that found, on a snapshot, its
	// share far below its quota: ChargeUsage then skips the exact read.
	roomy bool
	// waiters are woken by the locks this transaction releases, once
	// it commits.
	waiters *lockWaiters
	// watchers are told of the changes it makes, once it commits.
	watchers *changeWatchers
	// owner is the process handles opened here record (UseProcesses).
	owner string
	// retention is the Service's share retention in days: a deleted
	// share is kept restorable (shares_softdelete.go) when it is not 0.
	retention int
}

// In returns the operations of s bound to tx. The store must be ready:
// a transaction the caller owns cannot upgrade an earlier layout, which
// any Service operation (Update, for one) does first.
func (s *Service) In(tx kv.Txn) *Tx {
	return &Tx{r: tx, tx: tx, now: s.clock(), owner: s.owner(), waiters: s.waiters, watchers: s.watchers, retention: s.retention}
}

// Update runs fn in one transaction: a nil return commits everything fn
// did through its Tx, an error or a panic discards all of it. On a
// conflict fn runs again on a fresh snapshot, so it must have no effects
// outside the Tx. Once it commits, waiters on the files whose locks it
// released are woken (LockReleased).
func (s *Service) Update(ctx context.Context, fn func(*Tx) error) error {
	if err := s.ready(ctx); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx kv.Txn) error { return fn(s.In(tx)) })
}

// view runs fn on one committed snapshot; fn may only read.
func (s *Service) view(ctx context.Context, fn func(*Tx) error) error {
	return s.viewStore(ctx, func(r kv.Reader) error { return fn(&Tx{r: r, now: s.clock()}) })
}

// viewStore runs fn on one committed snapshot of the store, once the
// store is ready.
func (s *Service) viewStore(ctx context.Context, fn func(kv.Reader) error) error {
	if err := s.ready(ctx); err != nil {
		return err
	}
	return s.store.View(ctx, fn)
}

// dataBound is above the ID of every data object written before tx, and
// below those tx and later transactions write (newID): what a drop of a
// file's or a share's data spares (extentstore.DropObjects).
func (t *Tx) dataBound() uint64 { return t.tx.Version() << idBits }

// idBits is how many IDs one transaction may hand out: an ID is the
// commit version shifted left by idBits plus a sequence number.
const idBits = 12

var errTooManyIDs = errors.New("file: one transaction created too many directories, files or ranges")

// newID returns an ID no other transaction, and no earlier call in this
// one, ever returned.
func (t *Tx) newID() (uint64, error) {
	v := t.tx.Version()
	if t.seq >= 1<<idBits || v >= 1<<(64-idBits) {
		return 0, errTooManyIDs
	}
	t.seq++
	return v<<idBits | t.seq, nil
}

// Preconditions are the conditional headers a request carries. Azure
// Files is last-writer-wins by design; a client that sends If-Match (or
// the other conditional headers) gets optimistic concurrency on top.
type Preconditions struct {
	conditions.Conditions
	// LeaseID is x-ms-lease-id: writes and deletes of a leased file must
	// carry its lease ID; a read that carries one succeeds only while it
	// is the file's active lease.
	LeaseID string
}

// check evaluates conditional headers, mapping outcomes to Azure's errors.
func check(pre Preconditions, kind conditions.Kind, st conditions.State, exists error) error {
	return pre.Answer(kind, st, conditions.Answers{NotModified: azerr.ErrNotModified, AlreadyExists: exists, NotMet: azerr.ErrConditionNotMet})
}
