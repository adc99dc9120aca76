package cosmos

import (
	"bytes"
	"context"

	"net/http"

	"github.com/cerulean-db/cerulean/internal/kv"
	kvrecord "github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// Resource links by _rid. Older SDKs, and every _self, address resources
// by their _rid values (dbs/{rid}/colls/{rid}/docs/{rid}, offers/{rid});
// the gateway serves such a link exactly as the link by names. resolveLink
// turns each id of a link into the resource's name: an id naming an
// existing resource is that name, otherwise it is looked up as a _rid
// among its parent's children (databases, containers, users, scripts and
// items are all searched in their parent's key range only).

// resolveLink returns segs with every _rid replaced by the name of the
// resource it identifies. Ids it finds neither as a name nor as a _rid are
// left as they are (the operation then answers its own 404). An id is
// looked up as a _rid only when it has the shape of one: the length of
// that kind's _rid, starting with its parent's _rid — so an item id that
// merely decodes as base64 (a GUID, say) costs no scan.
func resolveLink(rd kv.Reader, segs []string) ([]string, error) {
	out := append([]string(nil), segs...)
	if len(out) < 2 || out[0] != "dbs" {
		return out, nil
	}
	dbRec, name, err := resolveID(rd, databaseKey(out[1]), databasesPrefix(), out[1], nil, 4)
	if err != nil || dbRec == nil {
		return out, err
	}
	out[1] = name
	if len(out) < 4 {
		return out, nil
	}
	db, dbRID := out[1], decodeRID(dbRec.str("_rid"))
	var parentRec record
	switch out[2] {
	case "colls":
		parentRec, name, err = resolveID(rd, containerKey(db, out[3]), containersPrefix(db), out[3], dbRID, 8)
	case "users":
		parentRec, name, err = resolveID(rd, userKey(db, out[3]), usersPrefix(db), out[3], dbRID, 8)
	default:
		return out, nil
	}
	if err != nil || parentRec == nil {
		return out, err
	}
	out[3] = name
	if len(out) < 6 {
		return out, nil
	}
	var parent []byte
	switch {
	case out[2] == "users" && out[4] == "permissions":
		parent = permissionsPrefix(db, out[3])
	case out[2] == "colls" && out[4] == "docs":
		parent = itemsPrefix(db, out[3])
	case out[2] == "colls" && isScriptKind(out[4]):
		kind, _ := ParseScriptKind(out[4])
		parent = scriptsPrefix(db, out[3], kind)
	default:
		return out, nil
	}
	// Items and permissions are keyed by more than their id, so only a
	// _rid lookup applies; an id that matches no _rid is a name.
	if id, ok, err := findByRID(rd, parent, out[5], decodeRID(parentRec.str("_rid")), 16); err != nil {
		return nil, err
	} else if ok {
		out[5] = id
	}
	return out, nil
}

// resolveID returns the record and name of the child of parent that id
// names: the record under key when it exists, else the child whose _rid is
// id (a _rid of ridLen bytes starting with ownerRID), else nil.
func resolveID(rd kv.Reader, key, parent []byte, id string, ownerRID []byte, ridLen int) (record, string, error) {
	if r, ok, err := getRecord(rd, key); err != nil || ok {
		return r, id, err
	}
	name, ok, err := findByRID(rd, parent, id, ownerRID, ridLen)
	if err != nil || !ok {
		return nil, id, err
	}
	r, _, err := getRecord(rd, tuple.Key(append([]byte(nil), parent...)).Str(name))
	return r, name, err
}

// findByRID scans the records under parent for the one whose _rid is rid
// and returns its id; rid must be ridLen bytes starting with ownerRID.
func findByRID(rd kv.Reader, parent []byte, rid string, ownerRID []byte, ridLen int) (string, bool, error) {
	if b := decodeRID(rid); len(b) != ridLen || !bytes.HasPrefix(b, ownerRID) || encodeRID(b) != rid {
		return "", false, nil
	}
	needle := []byte(`"_rid":"` + rid + `"`)
	var id string
	var found bool
	err := rd.Scan(parent, kv.PrefixEnd(parent), func(_, v []byte) error {
		// A JSON record (written by an earlier release) that does not
		// hold the rid's text is not the one.
		if kvrecord.Format(v) == kvrecord.FormatJSON && !bytes.Contains(v, needle) {
			return nil
		}
		var r struct {
			ID  string `json:"id"`
			RID string `json:"_rid"`
		}
		if err := kvrecord.Decode(v, &r); err != nil {
			return err
		}
		if r.RID == rid {
			id, found = r.ID, true
			return kv.ErrStopScan
		}
		return nil
	})
	return id, found, err
}

// resolvePath is resolveLink in a snapshot of its own, for the router.
func (s *Service) resolvePath(ctx context.Context, segs []string) ([]string, error) {
	var out []string
	err := s.store.View(ctx, func(rd kv.Reader) error {
		var err error
		out, err = resolveLink(rd, segs)
		return err
	})
	return out, err
}

// byNames returns a request path with the _rid values in it replaced by
// names. Only a path with an id that could be a _rid (base64 of whole
// bytes) costs a lookup.
func (h *handler) byNames(r *http.Request, segs []string) ([]string, error) {
	maybe := false
	for i := 1; i < len(segs); i += 2 {
		if len(segs[i])%4 == 0 && len(decodeRID(segs[i])) >= 4 {
			maybe = true
		}
	}
	if !maybe || len(segs) < 2 || segs[0] != "dbs" {
		return segs, nil
	}
	return h.svc.resolvePath(r.Context(), segs)
}
