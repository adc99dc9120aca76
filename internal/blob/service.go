package blob

import (
	"context"
	"log/slog"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/extentstore"
	"github.com/cerulean-db/cerulean/internal/lease"
	"github.com/cerulean-db/cerulean/internal/liveness"
	"github.com/cerulean-db/cerulean/internal/svcconfig"
)

// Config is what a Service needs.
type Config = svcconfig.Config

// Service is the Blob service of every account the server hosts: the
// rules of containers, blobs, blocks and pages over the kv store. It speaks
// no HTTP; NewHandler serves it on the wire.
type Service struct {
	// store is the kv store as the content store (package extentstore)
	// wraps it: an update that frees many data objects deletes them
	// once it has committed.
	store *extentstore.Store[blobID]
	// accounts are not a domain rule: the handler authenticates against
	// them, and is built from the Service alone.
	accounts *azauth.Accounts
	now      func() time.Time
	log      *slog.Logger
	dp       dataProtection
	// bodies accounts for upload bytes held in memory (bodymemory.go).
	bodies bodyMemory
}

// UseProcesses makes staged uploads carry this process's id, and
// SweepStaged reclaim only those whose process is gone. Without it,
// SweepStaged takes every staged upload for abandoned, which is right only
// for a store no other process uses.
func (s *Service) UseProcesses(p *liveness.Registry) { s.store.UseProcesses(p) }

// CollectLater has the data of deleted blobs and containers, and the
// large content an overwrite replaced, collected by later once the write
// has committed, off the request: it is answered at once, as Azure
// answers it (see extentstore.CollectLater). Without it the answer waits
// until the data is gone.
func (s *Service) CollectLater(later func(work func(context.Context))) { s.store.CollectLater(later) }

// New returns a Service over cfg.Store.
func New(cfg Config, opts ...Option) *Service {
	cfg = cfg.WithDefaults()
	s := &Service{store: extentstore.New(cfg.Store, objects, cfg.Now, cfg.Logger), accounts: cfg.Accounts, now: cfg.Now, log: cfg.Logger}
	for _, o := range opts {
		o(&s.dp)
	}
	return s
}

// clock returns the commit time: UTC at the wire's 100 ns precision.
func (s *Service) clock() time.Time { return s.now().UTC().Truncate(100 * time.Nanosecond) }

// Preconditions are what a request demands of a resource's current state:
// its conditional headers and the lease it claims to hold.
type Preconditions struct {
	conditions.Conditions
	LeaseID string
	// IfTags is the x-ms-if-tags condition, nil when none was given.
	IfTags *TagCondition
	// CreateOnly: the caller's SAS grants create but not write, so the
	// blob must not exist yet (Azure: AuthorizationPermissionMismatch).
	CreateOnly bool
	// Encryption is the request's customer-provided key and encryption
	// scope; nil for operations that take neither (encryption.go).
	Encryption *Encryption
	// AccessTierSince holds Delete Blob's x-ms-access-tier-if-modified-since
	// and -unmodified-since, which compare with when the tier was set.
	AccessTierSince conditions.Conditions
}

// check evaluates conditional headers, mapping outcomes to Azure's errors;
// exists is the error for If-None-Match: * on an existing resource.
func check(c conditions.Conditions, kind conditions.Kind, st conditions.State, exists error) error {
	return c.Answer(kind, st, conditions.Answers{NotModified: azerr.ErrNotModified, AlreadyExists: exists, NotMet: azerr.ErrConditionNotMet})
}

// checkBlob verifies a request against a blob (nil when absent): first the
// lease it claims or must claim, then its conditional headers.
func (t *Tx) checkBlob(pre Preconditions, kind conditions.Kind, b *Blob) error {
	var l lease.Lease
	if b != nil {
		l = b.Lease
	}
	return t.checkBlobLease(pre, kind, b, l)
}

// checkBlobLease is checkBlob with the lease to check, which for a blob
// that has no record is that of its uncommitted blocks (placeholder.go).
func (t *Tx) checkBlobLease(pre Preconditions, kind conditions.Kind, b *Blob, l lease.Lease) error {
	if b != nil {
		if pre.CreateOnly {
			return azerr.ErrAuthorizationPermissionMismatch
		}
	}
	if err := l.CheckUse(t.now, pre.LeaseID, kind != conditions.Read); err != nil {
		return azerr.LeaseError(err, azerr.BlobLeaseCodes)
	}
	if err := check(pre.Conditions, kind, b.state(), azerr.ErrBlobAlreadyExists); err != nil {
		return err
	}
	if err := checkTags(pre.IfTags, b); err != nil {
		return err
	}
	return pre.Encryption.check(kind, b)
}

// checkContainer verifies a request against a container; only deletion
// needs the active lease's ID, other operations fail with a wrong one.
func (t *Tx) checkContainer(pre Preconditions, c *Container, deleting bool) error {
	if err := c.Lease.CheckUse(t.now, pre.LeaseID, deleting); err != nil {
		return azerr.LeaseError(err, azerr.ContainerLeaseCodes)
	}
	return check(pre.Conditions, conditions.Write, c.state(), azerr.ErrConditionNotMet)
}

func (c *Container) state() conditions.State {
	if c == nil {
		return conditions.State{}
	}
	return conditions.State{Exists: true, ETag: azhttp.ETag(c.Version), LastModified: c.Modified}
}

func (b *Blob) state() conditions.State {
	if b == nil {
		return conditions.State{}
	}
	return conditions.State{Exists: true, ETag: azhttp.ETag(b.Version), LastModified: b.Modified}
}
