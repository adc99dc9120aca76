package cosmos

import (
	"context"
	"strings"

	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// Users and permissions. A user is a name inside a database; a permission
// of a user grants Read or All on one resource (a database, container,
// item or script, and everything under it), optionally only within one
// logical partition. Reading a permission mints its _token, a resource
// token (tokens.go) that lets a client holding only it do exactly what
// the permission grants.
//
// Layout:
//
//	Cw db user        user record
//	Cp db user perm   permission record (resource as the names it
//	                  resolves to, kept in "_grant")

func userKey(db, user string) tuple.Key { return tuple.New(keyspace.CosmosUsers).Str(db).Str(user) }

func usersPrefix(db string) tuple.Key { return tuple.New(keyspace.CosmosUsers).Str(db) }

func permissionKey(db, user, perm string) tuple.Key {
	return permissionsPrefix(db, user).Str(perm)
}

func permissionsPrefix(db, user string) tuple.Key {
	return tuple.New(keyspace.CosmosPermissions).Str(db).Str(user)
}

func permissionsOfDatabase(db string) tuple.Key { return tuple.New(keyspace.CosmosPermissions).Str(db) }

// Permission modes.
const (
	PermissionRead = "Read"
	PermissionAll  = "All"
)

// grantKey is the record property holding the resolved grant: the
// resource's path as names (dbs/db/colls/c/...), never shown on the wire.
const grantKey = "_grant"

// Permission is a permission as stored, its grant resolved.
type Permission struct {
	DB, User, ID string
	RID          string
	Mode         string   // PermissionRead or PermissionAll
	Grant        []string // the resource's path segments, by name
	PartitionKey string   // resourcePartitionKey as canonical JSON, or ""
	rec          record
}

func loadDatabaseRecord(rd kv.Reader, db string) (record, error) {
	r, ok, err := getRecord(rd, databaseKey(db))
	if err == nil && !ok {
		err = notFound("Database %q does not exist.", db)
	}
	return r, err
}

// loadPermission loads a permission of a user that must exist.
func loadPermission(rd kv.Reader, ref UserRef, perm string) (record, error) {
	if _, err := loadUser(rd, ref.DB, ref.User); err != nil {
		return nil, err
	}
	r, ok, err := getRecord(rd, permissionKey(ref.DB, ref.User, perm))
	if err == nil && !ok {
		err = notFound("Permission %q does not exist.", perm)
	}
	return r, err
}

func loadUser(rd kv.Reader, db, user string) (record, error) {
	if _, err := loadDatabaseRecord(rd, db); err != nil {
		return nil, err
	}
	r, ok, err := getRecord(rd, userKey(db, user))
	if err == nil && !ok {
		err = notFound("User %q does not exist in database %q.", user, db)
	}
	return r, err
}

// ---- users ----

// CreateUser creates a user in db from its JSON properties ({"id": …}).
func (s *Service) CreateUser(ctx context.Context, db string, props []byte) (*Database, error) {
	m, id, err := newResource(props, "user")
	if err != nil {
		return nil, err
	}
	var out record
	err = s.store.Update(ctx, func(tx kv.Txn) error {
		var err error
		if out, err = s.newInDatabase(tx, db, userKey(db, id), "users", m); err != nil {
			return err
		}
		out["_permissions"] = "permissions/"
		return s.setRecord(tx, userKey(db, id), out)
	})
	if err != nil {
		return nil, err
	}
	return newDatabase(out)
}

// GetUser reads a user.
func (s *Service) GetUser(ctx context.Context, ref UserRef, pre Preconditions) (*Database, error) {
	r, err := s.readRecord(ctx, pre, func(rd kv.Reader) (record, error) { return loadUser(rd, ref.DB, ref.User) })
	if err != nil {
		return nil, err
	}
	return newDatabase(r)
}

// ReplaceUser replaces a user's properties; a new id renames the user,
// its permissions going with it.
func (s *Service) ReplaceUser(ctx context.Context, ref UserRef, props []byte, pre Preconditions) (*Database, error) {
	db, user := ref.DB, ref.User
	m, id, err := newResource(props, "user")
	if err != nil {
		return nil, err
	}
	var out record
	err = s.store.Update(ctx, func(tx kv.Txn) error {
		old, err := loadUser(tx, db, user)
		if err != nil {
			return err
		}
		if err := pre.check(conditions.Write, true, old.str("_etag")); err != nil {
			return err
		}
		if id != user {
			if _, exists, err := getRecord(tx, userKey(db, id)); err != nil {
				return err
			} else if exists {
				return idTaken()
			}
			if err := movePermissions(tx, db, user, id); err != nil {
				return err
			}
			if err := tx.Delete(userKey(db, user)); err != nil {
				return err
			}
		}
		v := tx.Version()
		out = s.stamped(m, old["_rid"], old["_self"], v)
		out["_permissions"] = "permissions/"
		return s.setRecord(tx, userKey(db, id), out)
	})
	if err != nil {
		return nil, err
	}
	return newDatabase(out)
}

func movePermissions(tx kv.Txn, db, from, to string) error {
	p := permissionsPrefix(db, from)
	type kvPair struct{ k, v []byte }
	var moved []kvPair
	err := tx.Scan(p, kv.PrefixEnd(p), func(k, v []byte) error {
		moved = append(moved, kvPair{append([]byte(nil), k[len(p):]...), append([]byte(nil), v...)})
		return nil
	})
	if err != nil {
		return err
	}
	to_ := permissionsPrefix(db, to)
	for _, m := range moved {
		if err := tx.Set(append(append([]byte(nil), to_...), m.k...), m.v); err != nil {
			return err
		}
	}
	return tx.DeleteRange(p, kv.PrefixEnd(p))
}

// DeleteUser deletes a user and its permissions.
func (s *Service) DeleteUser(ctx context.Context, ref UserRef, pre Preconditions) error {
	db, user := ref.DB, ref.User
	return s.store.Update(ctx, func(tx kv.Txn) error {
		if err := pre.checkWrite(loadUser(tx, db, user)); err != nil {
			return err
		}
		if err := kv.DeletePrefixes(tx, permissionsPrefix(db, user)); err != nil {
			return err
		}
		s.noteCommit(tx)
		return tx.Delete(userKey(db, user))
	})
}

// ListUsers returns the users of db in id order; the feed's ResourceID is
// the database's _rid.
func (s *Service) ListUsers(ctx context.Context, db string) (*Feed, error) {
	return s.listFeed(ctx, databaseRID(db), usersPrefix(db))
}

// QueryUsers runs q over the users of db.
func (s *Service) QueryUsers(ctx context.Context, db string, q *Query, params map[string]any) (*Feed, error) {
	databaseExists := func(rd kv.Reader) (string, error) {
		_, err := loadDatabaseRecord(rd, db)
		return "", err
	}
	return s.queryFeed(ctx, databaseExists, usersPrefix(db), q, params)
}

// ---- permissions ----

// parsePermission validates a permission's properties and resolves its
// resource link (by names or by _rid) to names.
func parsePermission(rd kv.Reader, db string, m map[string]any) (mode string, grant []string, pk string, err error) {
	switch s, _ := m["permissionMode"].(string); {
	case strings.EqualFold(s, PermissionRead):
		mode = PermissionRead
	case strings.EqualFold(s, PermissionAll):
		mode = PermissionAll
	default:
		return "", nil, "", badRequest("The permission mode %q is invalid: it must be Read or All.", s)
	}
	link, _ := m["resource"].(string)
	segs := linkSegments(link)
	if len(segs) < 2 || len(segs)%2 != 0 || len(segs) > 6 || segs[0] != "dbs" {
		return "", nil, "", badRequest("The permission resource %q is not a valid resource link.", link)
	}
	grant, err = resolveLink(rd, segs)
	if err != nil {
		return "", nil, "", err
	}
	if grant[1] != db {
		return "", nil, "", badRequest("The permission resource %q is not in database %q.", link, db)
	}
	if len(grant) >= 4 && grant[2] != "colls" || len(grant) == 6 && grant[4] != "docs" && !isScriptKind(grant[4]) {
		return "", nil, "", badRequest("The permission resource %q is not a valid resource link.", link)
	}
	if v, ok := m["resourcePartitionKey"]; ok && v != nil {
		arr, ok := v.([]any)
		if !ok {
			return "", nil, "", badRequest("The resourcePartitionKey must be a JSON array.")
		}
		b, err := marshal(arr)
		if err != nil {
			return "", nil, "", badRequest("The resourcePartitionKey is invalid.")
		}
		comps, _, err := parsePartitionKeyHeader(string(b))
		if err != nil {
			return "", nil, "", err
		}
		pk = strings.Join(comps, "\x00")
	}
	return mode, grant, pk, nil
}

// linkSegments splits a resource link, with or without slashes at either
// end.
func linkSegments(link string) []string {
	link = strings.Trim(link, "/")
	if link == "" {
		return nil
	}
	return strings.Split(link, "/")
}

func permissionFrom(db, user string, r record) *Permission {
	p := &Permission{DB: db, User: user, ID: r.str("id"), RID: r.str("_rid"), Mode: PermissionRead, rec: r}
	if strings.EqualFold(r.str("permissionMode"), PermissionAll) {
		p.Mode = PermissionAll
	}
	if g, ok := r[grantKey].([]any); ok {
		for _, s := range g {
			str, _ := s.(string)
			p.Grant = append(p.Grant, str)
		}
	}
	p.PartitionKey, _ = r["_grantPK"].(string)
	return p
}

// CreatePermission creates a permission of user from its JSON properties:
// id, permissionMode (Read or All), resource (a resource link) and
// optionally resourcePartitionKey.
func (s *Service) CreatePermission(ctx context.Context, ref UserRef, props []byte) (*Permission, error) {
	db, user := ref.DB, ref.User
	return s.writePermission(ctx, db, user, "", props, Preconditions{})
}

// ReplacePermission replaces a permission's properties (its id may not
// change).
func (s *Service) ReplacePermission(ctx context.Context, ref UserRef, perm string, props []byte, pre Preconditions) (*Permission, error) {
	db, user := ref.DB, ref.User
	return s.writePermission(ctx, db, user, perm, props, pre)
}

func (s *Service) writePermission(ctx context.Context, db, user, perm string, props []byte, pre Preconditions) (*Permission, error) {
	m, id, err := newResource(props, "permission")
	if err != nil {
		return nil, err
	}
	delete(m, "_token")
	delete(m, grantKey)
	delete(m, "_grantPK")
	if perm != "" && id != perm {
		return nil, badRequest("The permission id %q in the body does not match %q.", id, perm)
	}
	var out record
	err = s.store.Update(ctx, func(tx kv.Txn) error {
		u, err := loadUser(tx, db, user)
		if err != nil {
			return err
		}
		old, exists, err := getRecord(tx, permissionKey(db, user, id))
		if err != nil {
			return err
		}
		switch {
		case perm == "" && exists:
			return idTaken()
		case perm != "" && !exists:
			return notFound("Permission %q does not exist.", perm)
		}
		if perm != "" {
			if err := pre.check(conditions.Write, true, old.str("_etag")); err != nil {
				return err
			}
		}
		mode, grant, pk, err := parsePermission(tx, db, m)
		if err != nil {
			return err
		}
		v := tx.Version()
		out = record{}
		for k, val := range m {
			out[k] = val
		}
		out["permissionMode"] = mode
		g := make([]any, len(grant))
		for i, s := range grant {
			g[i] = s
		}
		out[grantKey] = g
		if pk != "" {
			out["_grantPK"] = pk
		}
		if perm == "" {
			rid := encodeRID(ridFromVersion(decodeRID(u.str("_rid")), v, 8))
			out["_rid"], out["_self"] = rid, u.str("_self")+"permissions/"+rid+"/"
		} else {
			out["_rid"], out["_self"] = old["_rid"], old["_self"]
		}
		out["_etag"], out["_ts"] = etagOf(v), s.unixNow()
		return s.setRecord(tx, permissionKey(db, user, id), out)
	})
	if err != nil {
		return nil, err
	}
	return permissionFrom(db, user, out), nil
}

// GetPermission reads a permission.
func (s *Service) GetPermission(ctx context.Context, ref UserRef, perm string, pre Preconditions) (*Permission, error) {
	r, err := s.readRecord(ctx, pre, func(rd kv.Reader) (record, error) { return loadPermission(rd, ref, perm) })
	if err != nil {
		return nil, err
	}
	return permissionFrom(ref.DB, ref.User, r), nil
}

// DeletePermission deletes a permission; tokens minted from it stop
// working.
func (s *Service) DeletePermission(ctx context.Context, ref UserRef, perm string, pre Preconditions) error {
	return s.store.Update(ctx, func(tx kv.Txn) error {
		if err := pre.checkWrite(loadPermission(tx, ref, perm)); err != nil {
			return err
		}
		s.noteCommit(tx)
		return tx.Delete(permissionKey(ref.DB, ref.User, perm))
	})
}

// ListPermissions returns a user's permissions in id order, and the
// user's _rid.
func (s *Service) ListPermissions(ctx context.Context, ref UserRef) ([]*Permission, string, error) {
	db, user := ref.DB, ref.User
	var all []record
	var rid string
	err := s.store.View(ctx, func(rd kv.Reader) error {
		u, err := loadUser(rd, db, user)
		if err != nil {
			return err
		}
		rid = u.str("_rid")
		all, err = scanRecords(rd, permissionsPrefix(db, user))
		return err
	})
	if err != nil {
		return nil, "", err
	}
	out := make([]*Permission, len(all))
	for i, r := range all {
		out[i] = permissionFrom(db, user, r)
	}
	return out, rid, nil
}

// permissionByToken loads the permission a resource token names; a
// permission deleted or recreated since the token was minted (another
// _rid) is not found.
func (s *Service) permissionByToken(ctx context.Context, db, user, perm, rid string) (*Permission, error) {
	var r record
	err := s.store.View(ctx, func(rd kv.Reader) error {
		var ok bool
		var err error
		r, ok, err = getRecord(rd, permissionKey(db, user, perm))
		if err == nil && (!ok || r.str("_rid") != rid) {
			r = nil
		}
		return err
	})
	if err != nil || r == nil {
		return nil, err
	}
	return permissionFrom(db, user, r), nil
}
