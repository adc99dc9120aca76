package blob

import (
	"context"
	"net/http"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// Access tiers of block blobs. A blob without an explicit tier is Hot,
// reported as inferred. Smart (x-ms-version 2026-04-06) is a tier Azure
// moves a blob between Hot, Cool and Cold in by its use, and reports the
// one it is in beside it; a blob here stays in Hot within Smart, which is
// where Azure starts it (the Python SDK's recording
// test_block_blob.py test_smart_access_tier).
const (
	tierHot     = "Hot"
	tierCool    = "Cool"
	tierCold    = "Cold"
	tierArchive = "Archive"
	tierSmart   = "Smart"
)

// Rehydration takes, per Azure's reference, "up to 15 hours" at Standard
// priority and "under one hour" at High priority; this server takes
// exactly that long on its clock, so tests drive it with an injected one.
const (
	rehydrateStandard = 15 * time.Hour
	rehydrateHigh     = time.Hour
)

// rehydration is a pending move out of Archive.
type rehydration struct {
	To       string    // Hot, Cool or Cold
	Priority string    // Standard or High
	Done     time.Time // when the blob becomes readable in To
}

// ParseTier returns the canonical name of an access tier (Azure accepts
// any case), or InvalidHeaderValue naming header; premium page blob tiers
// (P4..P80) are InvalidBlobTier on this standard account.
func ParseTier(header, v string) (string, error) {
	for _, t := range []string{tierHot, tierCool, tierCold, tierArchive, tierSmart} {
		if strings.EqualFold(v, t) {
			return t, nil
		}
	}
	if len(v) > 1 && (v[0] == 'P' || v[0] == 'p') {
		return "", azerr.ErrInvalidBlobTier
	}
	return "", azerr.InvalidHeaderValue(header, v)
}

// TierReport is what reads show of a blob's tier.
type TierReport struct {
	Tier              string
	Inferred          bool
	Changed           time.Time // zero while inferred
	ArchiveStatus     string    // rehydrate-pending-to-<tier> while rehydrating
	RehydratePriority string
	SmartTier         string // the tier a Smart blob is in
}

// tierReport describes b's tier; page and append blobs have none.
func (b *Blob) tierReport() (TierReport, bool) {
	if b.Type != blockBlob {
		return TierReport{}, false
	}
	if b.Tier == "" {
		return TierReport{Tier: tierHot, Inferred: true}, true
	}
	r := TierReport{Tier: b.Tier, Changed: b.TierChanged}
	if b.Tier == tierSmart {
		r.SmartTier = tierHot
	}
	if p := b.Rehydrate; p != nil {
		r.ArchiveStatus, r.RehydratePriority = "rehydrate-pending-to-"+strings.ToLower(p.To), p.Priority
	}
	return r, true
}

// settleTier completes a rehydration whose time has come. Records are
// settled when read, so a finished rehydration needs no background work.
func (b *Blob) settleTier(now time.Time) {
	if p := b.Rehydrate; p != nil && !now.Before(p.Done) {
		b.Tier, b.TierChanged, b.Rehydrate = p.To, p.Done, nil
	}
}

// SetBlobTier moves a block blob to tier. It reports accepted when the
// change is pending (a rehydration out of Archive, 202) rather than done
// (200). Only the lease is a precondition: Set Blob Tier takes no
// conditional headers, and a tier change leaves the ETag and
// Last-Modified as they were, as Azure does.
func (s *Service) SetBlobTier(ctx context.Context, ref Ref, tier string, o SetBlobTierOptions) (accepted bool, err error) {
	acct, container, name, priority := ref.Account, ref.Container, ref.Name, o.Priority
	if priority == "" {
		priority = "Standard"
	}
	err = s.Update(ctx, func(t *Tx) error {
		b, err := t.existingBlob(acct, container, name, ref.Snapshot, conditions.Write, Preconditions{LeaseID: o.LeaseID})
		if err != nil {
			return err
		}
		if b.Type != blockBlob {
			return azerr.ErrInvalidBlobType
		}
		if accepted, err = b.changeTier(tier, priority, t.now); err != nil {
			return err
		}
		return record.Store(t.tx, tierRecordKey(ref, b), b)
	})
	return accepted, err
}

// tierRecordKey is where the record b, read at ref, is stored: the
// blob's, a snapshot's, or a version's (the current version is the
// blob's own record). Set Blob Tier takes ?snapshot= and ?versionid=
// from version 2019-12-12, as the REST reference documents.
func tierRecordKey(ref Ref, b *Blob) []byte {
	if ref.Snapshot == "" || b.point == "" {
		return blobKey(ref.Account, ref.Container, ref.Name)
	}
	if id, ok := versionOf(ref.Snapshot); ok {
		return versionKey(ref.Account, ref.Container, ref.Name, id)
	}
	return snapshotKey(ref.Account, ref.Container, ref.Name, ref.Snapshot)
}

// changeTier applies a Set Blob Tier to a settled record.
func (b *Blob) changeTier(tier, priority string, now time.Time) (pending bool, err error) {
	wait := rehydrateStandard
	if priority == "High" {
		wait = rehydrateHigh
	}
	switch {
	case b.Rehydrate != nil:
		// A rehydration cannot be cancelled or redirected; repeating it
		// may only raise its priority.
		if tier != b.Rehydrate.To {
			return false, azerr.ErrBlobBeingRehydrated
		}
		if done := now.Add(wait); done.Before(b.Rehydrate.Done) {
			b.Rehydrate.Done, b.Rehydrate.Priority = done, priority
		}
		return true, nil
	case b.Tier == tierArchive && tier != tierArchive:
		b.Rehydrate = &rehydration{To: tier, Priority: priority, Done: now.Add(wait)}
		return true, nil
	case b.Tier != tier:
		b.Tier, b.TierChanged = tier, now
	}
	return false, nil
}

// checkTier verifies a record's tier fields: only block blobs have a tier,
// an explicit tier has the time it was set, and only an archived blob
// rehydrates, to an online tier.
func checkTier(c *checker, what string, rec *Blob) {
	switch rec.Tier {
	case "":
		if !rec.TierChanged.IsZero() || rec.Rehydrate != nil {
			c.Fail("%s: no tier but a tier change time or rehydration", what)
		}
		return
	case tierHot, tierCool, tierCold, tierArchive, tierSmart:
	default:
		c.Fail("%s: unknown tier %q", what, rec.Tier)
	}
	if rec.Type != blockBlob {
		c.Fail("%s: a %s with tier %s", what, rec.Type, rec.Tier)
	}
	if rec.TierChanged.IsZero() {
		c.Fail("%s: tier %s without its change time", what, rec.Tier)
	}
	if p := rec.Rehydrate; p != nil {
		switch {
		case rec.Tier != tierArchive:
			c.Fail("%s: rehydrating from %s, not Archive", what, rec.Tier)
		case p.To != tierHot && p.To != tierCool && p.To != tierCold && p.To != tierSmart:
			c.Fail("%s: rehydrating to %q", what, p.To)
		case p.Priority != "Standard" && p.Priority != "High":
			c.Fail("%s: rehydrate priority %q", what, p.Priority)
		}
	}
}

// errAccessTierChangeTimeConditionNotMet is Azure's answer to a Delete Blob
// whose x-ms-access-tier-if-modified-since or -unmodified-since fails
// (the Go SDK's recording TestBlobDeleteAccessTierIfModifiedSinceFalse).
var errAccessTierChangeTimeConditionNotMet = &azerr.Error{Status: http.StatusPreconditionFailed, Code: "AccessTierChangeTimeConditionNotMet",
	Message: "The condition specified using access tier change time conditional header(s) is not met."}

// checkTierChangeTime evaluates the access tier date conditions against
// when b's tier was set. A blob whose tier was never set (inferred) is
// taken as set when it was created: no recording shows that case.
func checkTierChangeTime(c conditions.Conditions, b *Blob) error {
	if c.Empty() {
		return nil
	}
	changed := b.TierChanged
	if changed.IsZero() {
		changed = b.Created
	}
	if c.Check(conditions.Write, conditions.State{Exists: true, LastModified: changed}) != nil {
		return errAccessTierChangeTimeConditionNotMet
	}
	return nil
}
