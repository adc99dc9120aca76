package cosmos

import (
	"bytes"
	"context"
	"encoding/json"

	"net/http"

	"github.com/cerulean-db/cerulean/internal/kv"
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
// left as they are (the operation then answers its own 404).
func resolveLink(rd kv.Reader, segs []string) ([]string, error) {
	out := append([]string(nil), segs...)
	if len(out) < 2 || out[0] != "dbs" {
		return out, nil
	}
	name, err := resolveID(rd, databaseKey(out[1]), databasesPrefix(), out[1])
	if err != nil {
		return nil, err
	}
	out[1] = name
	if len(out) < 4 {
		return out, nil
	}
	db := out[1]
	switch out[2] {
	case "colls":
		name, err = resolveID(rd, containerKey(db, out[3]), containersPrefix(db), out[3])
	case "users":
		name, err = resolveID(rd, userKey(db, out[3]), usersPrefix(db), out[3])
	default:
		return out, nil
	}
	if err != nil {
		return nil, err
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
	if id, ok, err := findByRID(rd, parent, out[5]); err != nil {
		return nil, err
	} else if ok {
		out[5] = id
	}
	return out, nil
}

// resolveID returns the name of the child of parent that id names: id
// itself when key (the record named id) exists, else the id of the child
// whose _rid is id, else id.
func resolveID(rd kv.Reader, key, parent []byte, id string) (string, error) {
	if _, ok, err := getRecord(rd, key); err != nil || ok {
		return id, err
	}
	name, ok, err := findByRID(rd, parent, id)
	if err != nil || !ok {
		return id, err
	}
	return name, nil
}

// findByRID scans the records under parent for the one whose _rid is rid
// and returns its id.
func findByRID(rd kv.Reader, parent []byte, rid string) (string, bool, error) {
	if len(decodeRID(rid)) == 0 {
		return "", false, nil
	}
	needle := []byte(`"_rid":"` + rid + `"`)
	var id string
	var found bool
	var derr error
	err := rd.Scan(parent, kv.PrefixEnd(parent), func(_, v []byte) bool {
		if !bytes.Contains(v, needle) {
			return true
		}
		var r struct {
			ID  string `json:"id"`
			RID string `json:"_rid"`
		}
		if err := json.Unmarshal(v, &r); err != nil {
			derr = err
			return false
		}
		if r.RID == rid {
			id, found = r.ID, true
			return false
		}
		return true
	})
	if err == nil {
		err = derr
	}
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
