package cosmos

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strings"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	kvrecord "github.com/cerulean-db/cerulean/internal/kv/record"
)

// record is a database or container as stored: its JSON properties,
// system properties included.
type record map[string]any

// idTaken is the answer to a create whose id another resource has.
func idTaken() *Error {
	return conflict("Entity with the specified id already exists in the system.")
}

// mustBeNew fails with idTaken when key holds a record.
func mustBeNew(rd kv.Reader, key []byte) error {
	_, exists, err := getRecord(rd, key)
	if err == nil && exists {
		err = idTaken()
	}
	return err
}

// newInDatabase is the record of a new container or user (kind "colls"
// or "users") of database db, to be stored at key: the database must
// exist and key be free.
func (s *Service) newInDatabase(tx kv.Txn, db string, key []byte, kind string, m map[string]any) (record, error) {
	dbRec, err := loadDatabaseRecord(tx, db)
	if err != nil {
		return nil, err
	}
	if err := mustBeNew(tx, key); err != nil {
		return nil, err
	}
	v := tx.Version()
	rid := encodeRID(ridFromVersion(decodeRID(dbRec.str("_rid")), v, 4))
	return s.stamped(m, rid, "dbs/"+dbRec.str("_rid")+"/"+kind+"/"+rid+"/", v), nil
}

// stamped is a resource's record: its properties m and the system
// properties of its write at version v.
func (s *Service) stamped(m map[string]any, rid, self any, v uint64) record {
	out := make(record, len(m)+4)
	for k, val := range m {
		out[k] = val
	}
	out["_rid"], out["_self"], out["_etag"], out["_ts"] = rid, self, etagOf(v), s.unixNow()
	return out
}

func (r record) str(k string) string { v, _ := r[k].(string); return v }

// container is a container record with its partition key and unique key
// policy parsed.
type container struct {
	db, id   string
	rec      record
	pkPaths  [][]string // each path split into its property names
	pkKind   string
	unique   [][][]string // per unique key, its paths split
	ridBytes []byte
	// index is the indexing policy, parsed by Tx.indexState (a point
	// read needs neither it nor the state); indexReady and
	// indexPolicyText are the range index's state (rangeindex.go).
	index           *indexPolicy
	indexStateRead  bool
	indexReady      bool
	indexPolicyText string
	// policyKnown says indexPolicyText is known without indexReady: what
	// writes need (Tx.indexPolicy), taken from parsed.
	policyKnown bool
	// parsed is the cached parse this copy was made from, nil if none
	// (containercache.go).
	parsed *parsedContainer
}

func (c *container) rid() string { return c.rec.str("_rid") }

// encodeRID renders resource-id bytes the way Cosmos DB does: base64 with
// '/' replaced by '-', so that an id is a valid path segment.
func encodeRID(b []byte) string {
	return strings.ReplaceAll(base64.StdEncoding.EncodeToString(b), "/", "-")
}

func decodeRID(s string) []byte {
	b, _ := base64.StdEncoding.DecodeString(strings.ReplaceAll(s, "-", "/"))
	return b
}

// validID enforces Cosmos DB's id rules: 1–255 characters (an item's id:
// up to 1023 bytes, Cosmos DB's per-item limit), none of / \ ? #, no
// trailing space.
func validID(kind, id string) error {
	if id == "" {
		return badRequest("The input %s id is missing or empty.", kind)
	}
	if kind == "item" {
		if len(id) > maxItemIDBytes {
			return badRequest("The input item id is longer than %d bytes.", maxItemIDBytes)
		}
	} else if utf8.RuneCountInString(id) > 255 {
		return badRequest("The input %s id is longer than 255 characters.", kind)
	}
	if kind == "item" {
		// Through the gateway Azure creates items whose ids hold '/',
		// '?', '#', control characters or trailing spaces, and refuses
		// only a backslash (the Java SDK's CosmosItemIdEncodingTest,
		// run against Azure); an id with '/' cannot be addressed by path
		// afterwards, only queried.
		if strings.ContainsRune(id, '\\') {
			return badRequest("The input item id %q contains an invalid character ('\\').", id)
		}
		return nil
	}
	if strings.ContainsAny(id, `/\?#`) || strings.HasSuffix(id, " ") {
		return badRequest("The input %s id %q contains an invalid character ('/', '\\', '?', '#' or a trailing space).", kind, id)
	}
	return nil
}

// parseRecord decodes a stored database, container, offer, script, user
// or permission record, binary or (written by an earlier release) JSON.
func parseRecord(b []byte) (record, error) {
	var r record
	if err := kvrecord.Decode(b, &r); err != nil {
		return nil, err
	}
	return r, nil
}

// encodeRecord renders r for kv in the binary record format, holding what
// its JSON holds: numbers become float64 and json.Number values numbers,
// as parseRecord returned them from a JSON record.
func encodeRecord(r record) ([]byte, error) {
	b, err := marshal(r)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return kvrecord.Encode(m), nil
}

// setRecord stores r at key as the last step of a write transaction,
// noting its version for the change clock when it commits.
func (s *Service) setRecord(tx kv.Txn, key []byte, r record) error {
	b, err := encodeRecord(r)
	if err != nil {
		return err
	}
	s.noteCommit(tx)
	return tx.Set(key, b)
}

// decodeObject decodes a request body as a JSON object, keeping numbers
// as written.
func decodeObject(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil || m == nil {
		return nil, badRequest("The request payload is invalid: it must be a JSON object.")
	}
	if dec.More() {
		return nil, badRequest("The request payload is invalid: trailing data after the JSON object.")
	}
	return m, nil
}

// systemProps are the properties the server owns on every resource.
var systemProps = []string{"_rid", "_self", "_etag", "_ts", "_attachments", "_colls", "_users", "_docs", "_sprocs", "_triggers", "_udfs", "_conflicts"}

// itemSystemProps are the properties the server owns on an item; other
// names starting with "_" are the user's.
var itemSystemProps = []string{"_rid", "_self", "_etag", "_ts", "_attachments"}

func stripSystem(m map[string]any) {
	for _, k := range systemProps {
		delete(m, k)
	}
}

func stripItemSystem(m map[string]any) {
	for _, k := range itemSystemProps {
		delete(m, k)
	}
}

func getRecord(rd kv.Reader, key []byte) (record, bool, error) {
	b, err := rd.Get(key)
	if errors.Is(err, kv.ErrNotFound) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	r, err := parseRecord(b)
	if err != nil {
		return nil, false, err
	}
	return r, true, nil
}

func ridFromVersion(prefix []byte, v uint64, n int) []byte {
	out := append([]byte(nil), prefix...)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], v)
	return append(out, b[8-n:]...)
}

// Database is a database as Cosmos DB returns it.
type Database struct {
	ID   string
	RID  string // _rid
	Self string // _self
	ETag string // _etag
	TS   int64  // _ts
	// Body is the database's JSON properties, system properties included.
	Body []byte
}

// Container is a container (collection) as Cosmos DB returns it.
type Container struct {
	ID   string
	RID  string // _rid
	Self string // _self
	ETag string // _etag
	TS   int64  // _ts
	// Body is the container's JSON properties (partition key, indexing,
	// unique key and TTL settings), system properties included.
	Body []byte
}

// resourceFields are the properties every database and container carries.
type resourceFields struct {
	id, rid, self, etag string
	ts                  int64
	body                []byte
}

func fieldsOf(r record) (resourceFields, error) {
	b, err := marshal(r)
	if err != nil {
		return resourceFields{}, err
	}
	// A record just written holds _ts as int64, a stored one as float64.
	ts, ok := r["_ts"].(int64)
	if !ok {
		ts, _ = ttlNumber(r["_ts"])
	}
	return resourceFields{id: r.str("id"), rid: r.str("_rid"), self: r.str("_self"), etag: r.str("_etag"), ts: ts, body: b}, nil
}

func newDatabase(r record) (*Database, error) {
	f, err := fieldsOf(r)
	if err != nil {
		return nil, err
	}
	return &Database{ID: f.id, RID: f.rid, Self: f.self, ETag: f.etag, TS: f.ts, Body: f.body}, nil
}

func newContainer(r record) (*Container, error) {
	f, err := fieldsOf(r)
	if err != nil {
		return nil, err
	}
	return &Container{ID: f.id, RID: f.rid, Self: f.self, ETag: f.etag, TS: f.ts, Body: f.body}, nil
}

// newResource decodes the properties of a database or container to
// create: a JSON object with a valid id, system properties removed.
func newResource(props []byte, kind string) (map[string]any, string, error) {
	m, err := decodeObject(props)
	if err != nil {
		return nil, "", err
	}
	id, _ := m["id"].(string)
	if err := validID(kind, id); err != nil {
		return nil, "", err
	}
	stripSystem(m)
	return m, id, nil
}

// ---- databases ----

// CreateDatabase creates a database from its JSON properties (an object
// with an "id"); an existing id is ErrConflict.
func (s *Service) CreateDatabase(ctx context.Context, props []byte, throughput ...Throughput) (*Database, error) {
	m, id, err := newResource(props, "database")
	if err != nil {
		return nil, err
	}
	var out record
	err = s.store.Update(ctx, func(tx kv.Txn) error {
		if err := mustBeNew(tx, databaseKey(id)); err != nil {
			return err
		}
		v := tx.Version()
		rid := encodeRID(ridFromVersion(nil, v, 4))
		out = s.stamped(m, rid, "dbs/"+rid+"/", v)
		out["_colls"], out["_users"] = "colls/", "users/"
		b, err := encodeRecord(out)
		if err != nil {
			return err
		}
		s.noteCommit(tx)
		if len(throughput) > 0 {
			if err := s.putOffer(tx, id, "", "dbs/"+rid+"/", rid, throughput[0]); err != nil {
				return err
			}
		}
		return tx.Set(databaseKey(id), b)
	})
	if err != nil {
		return nil, err
	}
	return newDatabase(out)
}

// GetDatabase reads a database, subject to pre (a matching IfNoneMatch is
// ErrNotModified).
func (s *Service) GetDatabase(ctx context.Context, db string, pre Preconditions) (*Database, error) {
	r, err := s.readRecord(ctx, pre, func(rd kv.Reader) (record, error) { return loadDatabaseRecord(rd, db) })
	if err != nil {
		return nil, err
	}
	return newDatabase(r)
}

// DeleteDatabase deletes a database with its containers, items and
// scripts.
func (s *Service) DeleteDatabase(ctx context.Context, db string, pre Preconditions) error {
	// The logs are settled before, so that the deletion has little
	// left to settle in its own transaction.
	var colls []record
	if err := s.view(ctx, func(t *Tx) (err error) {
		colls, err = scanRecords(t.rd, containersPrefix(db))
		return err
	}); err != nil {
		return err
	}
	for _, c := range colls {
		if err := s.settleChangeLogs(ctx, db, c.str("id")); err != nil {
			return err
		}
	}
	return s.store.Update(ctx, func(tx kv.Txn) error {
		if err := pre.checkWrite(loadDatabaseRecord(tx, db)); err != nil {
			return err
		}
		// Every log is settled first, so that no record appended
		// before the deletion is numbered into a later container of
		// the same name.
		colls, err := scanRecords(tx, containersPrefix(db))
		if err != nil {
			return err
		}
		for _, c := range colls {
			if err := settleChangeLog(tx, db, c.str("id")); err != nil {
				return err
			}
		}
		if err := kv.DeletePrefixes(tx, containersPrefix(db), itemsOfDatabase(db), chunksOfDatabase(db), uniqueOfDatabase(db), indexOfDatabase(db), indexStatesOfDatabase(db), scriptsOfDatabase(db), changesOfDatabase(db), changeSeqOfDatabase(db), offersOfDatabase(db), usersPrefix(db), permissionsOfDatabase(db)); err != nil {
			return err
		}
		s.noteCommit(tx)
		return tx.Delete(databaseKey(db))
	})
}

// scanRecords reads every record under prefix.
func scanRecords(rd kv.Reader, prefix []byte) ([]record, error) {
	var out []record
	err := rd.Scan(prefix, kv.PrefixEnd(prefix), func(_, v []byte) error {
		r, err := parseRecord(v)
		if err != nil {
			return err
		}
		out = append(out, r)
		return nil
	})
	return out, err
}

// ListDatabases returns every database, in id order.
func (s *Service) ListDatabases(ctx context.Context) (*Feed, error) {
	return s.listFeed(ctx, nil, databasesPrefix())
}

// recordFeed is the feed of a list of databases or containers.
func recordFeed(rid string, rs []record) (*Feed, error) {
	f := &Feed{ResourceID: rid, Items: make([]json.RawMessage, len(rs))}
	for i, r := range rs {
		b, err := marshal(r)
		if err != nil {
			return nil, err
		}
		f.Items[i] = b
	}
	return f, nil
}

// ---- containers ----

// completeIndexingPolicy fills what a container definition left out of its
// indexing policy the way Azure does, as the JavaScript SDK's container
// tests (run against Azure) check: no policy or {} is the default; a
// policy without includedPaths includes "/*"; the _etag exclusion is added
// after the excluded paths given. With indexingMode "none" nothing is
// indexed and both lists stay empty. The rest is kept as sent.
func completeIndexingPolicy(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		if v == nil {
			return defaultIndexingPolicy()
		}
		return v // parseIndexPolicy refuses it
	}
	if m["indexingMode"] == nil {
		m["indexingMode"] = "consistent"
	}
	if m["automatic"] == nil {
		m["automatic"] = true
	}
	if mode, _ := m["indexingMode"].(string); strings.EqualFold(mode, "none") {
		for _, k := range []string{"includedPaths", "excludedPaths"} {
			if m[k] == nil {
				m[k] = []any{}
			}
		}
		return m
	}
	if m["includedPaths"] == nil {
		m["includedPaths"] = []any{map[string]any{"path": "/*"}}
	}
	excluded, _ := m["excludedPaths"].([]any)
	if !hasIndexPath(excluded, etagExcludedPath) {
		m["excludedPaths"] = append(excluded, map[string]any{"path": etagExcludedPath})
	}
	return m
}

// etagExcludedPath is the path Azure excludes from every policy.
const etagExcludedPath = `/"_etag"/?`

func hasIndexPath(list []any, path string) bool {
	for _, e := range list {
		if em, _ := e.(map[string]any); em != nil && em["path"] == path {
			return true
		}
	}
	return false
}

func defaultIndexingPolicy() map[string]any {
	return map[string]any{
		"indexingMode":  "consistent",
		"automatic":     true,
		"includedPaths": []any{map[string]any{"path": "/*"}},
		"excludedPaths": []any{map[string]any{"path": `/"_etag"/?`}},
	}
}

// parseContainer validates a container definition and parses its
// partition key and unique key policy.
func parseContainer(db string, r record) (*container, error) {
	c := &container{db: db, id: r.str("id"), rec: r, pkKind: "Hash"}
	// A system partition key (a non-partitioned container of an older
	// API version) leaves the container one logical partition, addressed
	// with the None partition key.
	if pk, ok := r["partitionKey"].(map[string]any); ok && pk["systemKey"] != true {
		paths, _ := pk["paths"].([]any)
		if kind, _ := pk["kind"].(string); kind != "" {
			c.pkKind = kind
		}
		if len(paths) == 0 || len(paths) > 3 || (len(paths) > 1 && c.pkKind != "MultiHash") {
			return nil, badRequest("The partition key definition must have one path, or two or three with kind MultiHash.")
		}
		for _, p := range paths {
			ps, ok := p.(string)
			split, err := splitDocPath(ps)
			if !ok || err != nil {
				return nil, badRequest("The partition key path %v is invalid.", p)
			}
			c.pkPaths = append(c.pkPaths, split)
		}
	} else if !ok && r["partitionKey"] != nil {
		return nil, badRequest("The partition key definition is invalid.")
	}
	if ukp, ok := r["uniqueKeyPolicy"].(map[string]any); ok {
		keys, _ := ukp["uniqueKeys"].([]any)
		for _, k := range keys {
			km, _ := k.(map[string]any)
			paths, _ := km["paths"].([]any)
			if len(paths) == 0 {
				return nil, badRequest("A unique key must have at least one path.")
			}
			var split [][]string
			for _, p := range paths {
				ps, ok := p.(string)
				sp, err := splitDocPath(ps)
				if !ok || err != nil {
					return nil, badRequest("The unique key path %v is invalid.", p)
				}
				split = append(split, sp)
			}
			c.unique = append(c.unique, split)
		}
	}
	c.ridBytes = decodeRID(r.str("_rid"))
	return c, nil
}

// splitDocPath splits "/a/b" (or `/"a b"/c`) into property names.
func splitDocPath(p string) ([]string, error) {
	if !strings.HasPrefix(p, "/") || len(p) < 2 {
		return nil, errors.New("path must start with /")
	}
	var out []string
	for _, part := range strings.Split(p[1:], "/") {
		if len(part) >= 2 && part[0] == '"' && part[len(part)-1] == '"' {
			part = part[1 : len(part)-1]
		}
		if part == "" {
			return nil, errors.New("empty path segment")
		}
		out = append(out, part)
	}
	return out, nil
}

func loadContainer(rd kv.Reader, db, coll string) (*container, error) {
	r, ok, err := getRecord(rd, containerKey(db, coll))
	if err != nil {
		return nil, err
	}
	if !ok {
		if _, dbOK, err := getRecord(rd, databaseKey(db)); err != nil {
			return nil, err
		} else if !dbOK {
			return nil, notFound("Database %q does not exist.", db)
		}
		return nil, notFound("Container %q does not exist in database %q.", coll, db)
	}
	return parseContainer(db, r)
}

// CreateContainer creates a container in db from its JSON properties: an
// "id", and optionally "partitionKey" ({"paths": ["/pk"]}, or up to three
// paths with kind MultiHash), "uniqueKeyPolicy", "defaultTtl",
// "indexingPolicy". An existing id is ErrConflict.
func (s *Service) CreateContainer(ctx context.Context, db string, props []byte, throughput ...Throughput) (*Container, error) {
	m, id, err := newResource(props, "container")
	if err != nil {
		return nil, err
	}
	if _, err := parseContainer(db, normalize(m)); err != nil {
		return nil, err
	}
	if err := checkDefaultTTL(normalize(m)); err != nil {
		return nil, err
	}
	var out record
	err = s.store.Update(ctx, func(tx kv.Txn) error {
		var err error
		if out, err = s.newInDatabase(tx, db, containerKey(db, id), "colls", m); err != nil {
			return err
		}
		out["indexingPolicy"] = completeIndexingPolicy(out["indexingPolicy"])
		if pk, ok := out["partitionKey"].(map[string]any); ok {
			if pk["kind"] == nil {
				pk["kind"] = "Hash"
			}
			if pk["version"] == nil && pk["systemKey"] != true {
				pk["version"] = 2
			}
		}
		if out["uniqueKeyPolicy"] == nil {
			out["uniqueKeyPolicy"] = map[string]any{"uniqueKeys": []any{}}
		}
		if out["conflictResolutionPolicy"] == nil {
			out["conflictResolutionPolicy"] = map[string]any{"mode": "LastWriterWins", "conflictResolutionPath": "/_ts", "conflictResolutionProcedure": ""}
		}
		out["_docs"], out["_sprocs"], out["_triggers"], out["_udfs"], out["_conflicts"] = "docs/", "sprocs/", "triggers/", "udfs/", "conflicts/"
		b, err := encodeRecord(out)
		if err != nil {
			return err
		}
		if err := initIndexState(tx, db, id, b); err != nil {
			return err
		}
		s.noteCommit(tx)
		if len(throughput) > 0 {
			if err := s.putOffer(tx, db, id, out.str("_self"), out.str("_rid"), throughput[0]); err != nil {
				return err
			}
		}
		return tx.Set(containerKey(db, id), b)
	})
	if err != nil {
		return nil, err
	}
	return newContainer(out)
}

// normalize turns json.Number values into float64 so that a freshly
// decoded body looks like a stored record to parseContainer.
func normalize(m map[string]any) record {
	b, _ := json.Marshal(m)
	r, _ := parseRecord(b)
	return r
}

// GetContainer reads a container, subject to pre (a matching IfNoneMatch
// is ErrNotModified).
func (s *Service) GetContainer(ctx context.Context, ref CollectionRef, pre Preconditions) (*Container, error) {
	db, coll := ref.DB, ref.Coll
	var c *container
	err := s.store.View(ctx, func(rd kv.Reader) error {
		var err error
		c, err = loadContainer(rd, db, coll)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := pre.check(conditions.Read, true, c.rec.str("_etag")); err != nil {
		return nil, err
	}
	return newContainer(c.rec)
}

// ReplaceContainer replaces a container's settings (props, whose "id" must
// be coll); its partition key and unique key policy cannot change, as in
// Cosmos DB.
func (s *Service) ReplaceContainer(ctx context.Context, ref CollectionRef, props []byte, pre Preconditions) (*Container, error) {
	db, coll := ref.DB, ref.Coll
	m, err := decodeObject(props)
	if err != nil {
		return nil, err
	}
	if id, _ := m["id"].(string); id != coll {
		return nil, badRequest("The container id in the body (%q) must match the one in the path (%q).", id, coll)
	}
	stripSystem(m)
	var out record
	var rebuild string
	err = s.store.Update(ctx, func(tx kv.Txn) error {
		rebuild = ""
		old, err := loadContainer(tx, db, coll)
		if err != nil {
			return err
		}
		if err := pre.check(conditions.Write, true, old.rec.str("_etag")); err != nil {
			return err
		}
		norm := normalize(m)
		if err := checkDefaultTTL(norm); err != nil {
			return err
		}
		if norm["partitionKey"] != nil && !samePartitionKey(norm["partitionKey"], old.rec["partitionKey"]) {
			return badRequest("The partition key of a container cannot be changed.")
		}
		if norm["uniqueKeyPolicy"] != nil && !sameJSON(norm["uniqueKeyPolicy"], old.rec["uniqueKeyPolicy"]) {
			return badRequest("The unique key policy of a container cannot be changed.")
		}
		v := tx.Version()
		out = record{}
		for k, val := range m {
			out[k] = val
		}
		for _, k := range []string{"partitionKey", "uniqueKeyPolicy", "conflictResolutionPolicy"} {
			if out[k] == nil && old.rec[k] != nil {
				out[k] = old.rec[k]
			}
		}
		out["indexingPolicy"] = completeIndexingPolicy(out["indexingPolicy"])
		for _, k := range []string{"_rid", "_self", "_docs", "_sprocs", "_triggers", "_udfs", "_conflicts"} {
			out[k] = old.rec[k]
		}
		out["_etag"], out["_ts"] = etagOf(v), s.unixNow()
		b, err := encodeRecord(out)
		if err != nil {
			return err
		}
		if rebuild, err = resetIndex(tx, old, b); err != nil {
			return err
		}
		s.noteCommit(tx)
		return tx.Set(containerKey(db, coll), b)
	})
	if err != nil {
		return nil, err
	}
	if rebuild != "" {
		if err := s.buildIndex(ctx, db, coll, rebuild); err != nil {
			return nil, err
		}
	}
	return newContainer(out)
}

func sameJSON(a, b any) bool {
	x, _ := json.Marshal(a)
	y, _ := json.Marshal(b)
	return string(x) == string(y)
}

// samePartitionKey compares the paths and kind of two definitions (the
// version may be omitted by a client).
func samePartitionKey(a, b any) bool {
	am, _ := a.(map[string]any)
	bm, _ := b.(map[string]any)
	if am == nil || bm == nil {
		return am == nil && bm == nil
	}
	kind := func(m map[string]any) any {
		if m["kind"] == nil {
			return "Hash"
		}
		return m["kind"]
	}
	return sameJSON(am["paths"], bm["paths"]) && sameJSON(kind(am), kind(bm))
}

// DeleteContainer deletes a container with its items and scripts.
func (s *Service) DeleteContainer(ctx context.Context, ref CollectionRef, pre Preconditions) error {
	db, coll := ref.DB, ref.Coll
	// The log is settled before, so that the deletion has little left
	// to settle in its own transaction.
	if err := s.settleChangeLogs(ctx, db, coll); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx kv.Txn) error {
		c, err := loadContainer(tx, db, coll)
		if err != nil {
			return err
		}
		if err := pre.check(conditions.Write, true, c.rec.str("_etag")); err != nil {
			return err
		}
		// The log is settled first, so that no record appended before
		// the deletion is numbered into a later container of the same
		// name.
		if err := settleChangeLog(tx, db, coll); err != nil {
			return err
		}
		if err := kv.DeletePrefixes(tx, itemsPrefix(db, coll), chunksOfContainer(db, coll), uniquePrefix(db, coll), indexPrefix(db, coll), indexStateKey(db, coll), scriptsOfContainer(db, coll), changesPrefix(db, coll), changeSeqKey(db, coll)); err != nil {
			return err
		}
		if err := tx.Delete(offerKey(db, coll)); err != nil {
			return err
		}
		s.noteCommit(tx)
		return tx.Delete(containerKey(db, coll))
	})
}

// ListContainers returns every container of db, in id order; the feed's
// ResourceID is the database's _rid.
func (s *Service) ListContainers(ctx context.Context, db string) (*Feed, error) {
	return s.listFeed(ctx, databaseRID(db), containersPrefix(db))
}

// containerRef names one container: its database's id and its own.
type containerRef struct{ db, coll string }

// containerRefs lists every container of every database, read in one
// snapshot: what the maintenance passes over all change logs walk
// (SettleLogs, CompactChangeFeeds), each container then in a transaction
// of its own.
func (s *Service) containerRefs(ctx context.Context) ([]containerRef, error) {
	var refs []containerRef
	err := s.view(ctx, func(t *Tx) error {
		dbs, err := scanRecords(t.rd, databasesPrefix())
		if err != nil {
			return err
		}
		for _, d := range dbs {
			colls, err := scanRecords(t.rd, containersPrefix(d.str("id")))
			if err != nil {
				return err
			}
			for _, c := range colls {
				refs = append(refs, containerRef{d.str("id"), c.str("id")})
			}
		}
		return nil
	})
	return refs, err
}
