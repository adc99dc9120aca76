package cosmos

import (
	"net/http"
	"strings"
	"time"
)

// Change feed modes as the A-IM header names them.
const (
	aimIncremental  = "Incremental Feed"
	aimFullFidelity = "Full-Fidelity Feed"
)

// isChangeFeed reports whether a GET of a container's documents asks for
// its change feed rather than its item feed.
func isChangeFeed(r *http.Request) bool { return r.Header.Get("A-Im") != "" }

// readChangeFeed serves GET .../docs with A-IM: the change feed of the
// container, of one logical partition (x-ms-documentdb-partitionkey), of
// the partition key range (x-ms-documentdb-partitionkeyrangeid) or of an
// EPK range (x-ms-start-epk / x-ms-end-epk). If-None-Match carries the
// previous page's ETag ("*": start from now), If-Modified-Since a start
// time; a page with nothing new is 304 with the ETag to poll with.
func (h *handler) readChangeFeed(q *request, db, coll string) error {
	r := q.r
	opts := ChangeFeedOptions{PartitionKey: partitionKey(r)}
	switch aim := strings.TrimSpace(r.Header.Get("A-Im")); {
	case strings.EqualFold(aim, aimIncremental):
		opts.Mode = LatestVersion
	case strings.EqualFold(aim, aimFullFidelity):
		opts.Mode = AllVersionsAndDeletes
	default:
		return badRequest("The value %q of the A-IM header is invalid.", aim)
	}
	size, err := pageSize(q)
	if err != nil {
		return err
	}
	opts.MaxItemCount = size
	if inm := strings.TrimSpace(r.Header.Get("If-None-Match")); inm == "*" {
		opts.FromNow = true
	} else if inm != "" {
		if opts.After, err = ParseChangeFeedETag(inm); err != nil {
			return err
		}
		opts.HasAfter = true
	}
	if ims := r.Header.Get("If-Modified-Since"); ims != "" {
		if opts.Since, err = parseStartTime(ims); err != nil {
			return err
		}
	}
	if opts.Mode == AllVersionsAndDeletes && !opts.FromNow && !opts.HasAfter && opts.Since.IsZero() {
		// All versions and deletes exist only within a retention window,
		// so the beginning of the container's history is no start for
		// them. Azure refuses it with this 400: the "startFromBeginning is
		// not supported" cases of @azure/cosmos's live tests
		// (test/public/integration/changeFeedIterator.spec.ts).
		return badRequest("You must read the change feed from within the retention period.")
	}
	if id := r.Header.Get("X-Ms-Documentdb-Partitionkeyrangeid"); id != "" {
		// The container is one range, "0"; SDKs may prefix the
		// container's _rid ("rid,0").
		if i := strings.LastIndexByte(id, ','); i >= 0 {
			id = id[i+1:]
		}
		if strings.TrimSpace(id) != pkRangeID {
			q.w.Header().Set("X-Ms-Substatus", "1002")
			return newError(http.StatusGone, "Gone", "The partition key range %q does not exist (PartitionKeyRangeGone).", id)
		}
	}
	opts.MinEPK = r.Header.Get("X-Ms-Start-Epk")
	opts.MaxEPK = r.Header.Get("X-Ms-End-Epk")
	if !validEPK(opts.MinEPK) || !validEPK(opts.MaxEPK) {
		return badRequest("The effective partition key range [%q, %q) is invalid.", opts.MinEPK, opts.MaxEPK)
	}
	f, err := h.svc.ReadChangeFeed(r.Context(), CollectionRef{DB: db, Coll: coll}, opts)
	if err != nil {
		return err
	}
	q.w.Header().Set("Etag", f.ETag)
	if len(f.Items) == 0 {
		return ErrNotModified
	}
	return h.writeFeed(q, f.ResourceID, "Documents", f.Items)
}

// pkRangeID is the id of the one partition key range of every container.
const pkRangeID = "0"

// validEPK accepts an effective partition key: hex digits ("" and "FF"
// are the ends of the space).
func validEPK(s string) bool {
	for _, c := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", c) {
			return false
		}
	}
	return len(s) <= 3*32
}

// incrementalFeedTarget reports whether r may carry A-IM: a GET of
// /dbs/{db}/colls/{coll}/docs or .../pkranges.
func incrementalFeedTarget(r *http.Request) bool {
	if r.Method != http.MethodGet {
		return false
	}
	segs, err := splitPath(r.URL.EscapedPath())
	return err == nil && len(segs) == 5 && segs[0] == "dbs" && segs[2] == "colls" &&
		(segs[4] == "docs" || segs[4] == "pkranges")
}

// parseStartTime reads If-Modified-Since: an HTTP date, or the RFC 1123
// form with a named zone that azcosmos sends ("... 12:00:00 UTC").
func parseStartTime(v string) (time.Time, error) {
	if t, err := http.ParseTime(v); err == nil {
		return t, nil
	}
	for _, layout := range []string{time.RFC1123, time.RFC1123Z, time.RFC3339Nano} {
		if t, err := time.Parse(layout, v); err == nil {
			return t, nil
		}
	}
	return time.Time{}, badRequest("The value %q of the If-Modified-Since header is invalid.", v)
}
