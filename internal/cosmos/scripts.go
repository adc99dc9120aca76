package cosmos

import (
	"context"
	"strings"

	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/cosmos/script"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// ScriptKind is the kind of a server-side script, named as the gateway's
// path segment (and the resource type a request is signed over).
type ScriptKind string

// The kinds of server-side script a container holds.
const (
	StoredProcedures     ScriptKind = "sprocs"
	Triggers             ScriptKind = "triggers"
	UserDefinedFunctions ScriptKind = "udfs"
)

// ParseScriptKind returns the kind a path segment names.
func ParseScriptKind(seg string) (ScriptKind, bool) {
	switch k := ScriptKind(seg); k {
	case StoredProcedures, Triggers, UserDefinedFunctions:
		return k, true
	}
	return "", false
}

// noun is the kind's name in messages.
func (k ScriptKind) noun() string {
	switch k {
	case StoredProcedures:
		return "stored procedure"
	case Triggers:
		return "trigger"
	}
	return "user-defined function"
}

// FeedName is the name of the array a feed or query of this kind is
// returned under.
func (k ScriptKind) FeedName() string {
	switch k {
	case StoredProcedures:
		return "StoredProcedures"
	case Triggers:
		return "Triggers"
	}
	return "UserDefinedFunctions"
}

// ridType is the low byte of a script's _rid, distinct per kind so that
// the three kinds never share a resource id.
func (k ScriptKind) ridType() byte {
	switch k {
	case StoredProcedures:
		return 0x80
	case Triggers:
		return 0x70
	}
	return 0x60
}

// Trigger types and operations as Cosmos DB defines them. Clients send
// them in either case ("Pre" from .NET, "pre" from JavaScript) and get back
// what they sent.
var (
	triggerTypes      = []string{"Pre", "Post"}
	triggerOperations = []string{"All", "Create", "Update", "Replace", "Delete", "Upsert"}
)

// canonical returns the entry of names that v equals ignoring case.
func canonical(v string, names []string) (string, bool) {
	for _, n := range names {
		if strings.EqualFold(v, n) {
			return n, true
		}
	}
	return "", false
}

// Script is a stored procedure, trigger or user-defined function as
// Cosmos DB returns it.
type Script struct {
	Kind ScriptKind
	ID   string
	RID  string // _rid
	Self string // _self
	ETag string // _etag: changes on every replace; compiled code is cached by it
	TS   int64  // _ts
	// Source is the JavaScript text (the resource's "body" property).
	Source string
	// TriggerType ("Pre" or "Post") and TriggerOperation ("All",
	// "Create", …) are a trigger's, canonically capitalised.
	TriggerType, TriggerOperation string
	// Body is the resource's JSON properties, system properties included.
	Body []byte
}

func newScript(kind ScriptKind, r record) (*Script, error) {
	f, err := fieldsOf(r)
	if err != nil {
		return nil, err
	}
	s := &Script{Kind: kind, ID: f.id, RID: f.rid, Self: f.self, ETag: f.etag, TS: f.ts, Source: r.str("body"), Body: f.body}
	if kind == Triggers {
		s.TriggerType, _ = canonical(r.str("triggerType"), triggerTypes)
		s.TriggerOperation, _ = canonical(r.str("triggerOperation"), triggerOperations)
	}
	return s, nil
}

// parseScript validates the properties of a script to create or replace:
// an id, the script text as "body" and, for a trigger, its type and
// operation. System properties are dropped.
func parseScript(kind ScriptKind, props []byte) (map[string]any, string, error) {
	m, id, err := newResource(props, kind.noun())
	if err != nil {
		return nil, "", err
	}
	body, ok := m["body"].(string)
	if !ok {
		return nil, "", badRequest("The input content is invalid because the required property 'body' (the %s's JavaScript text) is missing or not a string.", kind.noun())
	}
	// Cosmos DB compiles a script when it is stored: a syntax error is
	// refused now, not at its first run.
	if err := script.CheckSyntax(script.Script{ID: id, Body: body}); err != nil {
		return nil, "", badRequest("%s", gatewayMessage("Encountered exception while compiling function. Exception = "+strings.TrimPrefix(err.Error(), script.ErrCompile.Error()+": ")))
	}
	if kind != Triggers {
		return m, id, nil
	}
	for _, p := range []struct {
		name  string
		valid []string
	}{{"triggerType", triggerTypes}, {"triggerOperation", triggerOperations}} {
		v, ok := m[p.name].(string)
		if !ok {
			return nil, "", badRequest("The input content is invalid because the required property '%s' is missing or not a string; it must be one of %s.", p.name, strings.Join(p.valid, ", "))
		}
		if _, ok := canonical(v, p.valid); !ok {
			return nil, "", badRequest("The value %q of the trigger property '%s' is invalid; it must be one of %s.", v, p.name, strings.Join(p.valid, ", "))
		}
	}
	return m, id, nil
}

func scriptNotFound(kind ScriptKind, id string) *Error {
	return notFound("The %s %q does not exist.", kind.noun(), id)
}

// script reads one script of a container inside the transaction, so that
// a script run with it sees the version its snapshot holds.
func (t *Tx) script(db, coll string, kind ScriptKind, id string) (*Script, error) {
	if _, err := t.container(db, coll); err != nil {
		return nil, err
	}
	r, ok, err := getRecord(t.rd, scriptKey(db, coll, kind, id))
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, scriptNotFound(kind, id)
	}
	return newScript(kind, r)
}

// CreateScript creates a script in a container from its JSON properties:
// "id", "body" (the JavaScript text) and, for a trigger, "triggerType"
// (Pre or Post) and "triggerOperation" (All, Create, Update, Replace,
// Delete or Upsert). An existing id of the same kind is ErrConflict.
func (s *Service) CreateScript(ctx context.Context, ref CollectionRef, kind ScriptKind, props []byte) (*Script, error) {
	db, coll := ref.DB, ref.Coll
	m, id, err := parseScript(kind, props)
	if err != nil {
		return nil, err
	}
	var out record
	err = s.store.Update(ctx, func(tx kv.Txn) error {
		c, err := loadContainer(tx, db, coll)
		if err != nil {
			return err
		}
		key := scriptKey(db, coll, kind, id)
		if err := mustBeNew(tx, key); err != nil {
			return err
		}
		v := tx.Version()
		rid := encodeRID(append(ridFromVersion(c.ridBytes, v, 7), kind.ridType()))
		out = s.stamped(m, rid, c.rec.str("_self")+string(kind)+"/"+rid+"/", v)
		return s.setRecord(tx, key, out)
	})
	if err != nil {
		return nil, err
	}
	return newScript(kind, out)
}

// GetScript reads a script, subject to pre (a matching IfNoneMatch is
// ErrNotModified).
func (s *Service) GetScript(ctx context.Context, ref ScriptRef, pre Preconditions) (*Script, error) {
	db, coll, kind, id := ref.DB, ref.Coll, ref.Kind, ref.ID
	var sc *Script
	err := s.view(ctx, func(t *Tx) error {
		var err error
		sc, err = t.script(db, coll, kind, id)
		return err
	})
	if err != nil {
		return nil, err
	}
	if err := pre.check(conditions.Read, true, sc.ETag); err != nil {
		return nil, err
	}
	return sc, nil
}

// ReplaceScript replaces a script with props (whose "id" must be id),
// validated as CreateScript's. The script must exist and meet pre.
func (s *Service) ReplaceScript(ctx context.Context, ref ScriptRef, props []byte, pre Preconditions) (*Script, error) {
	db, coll, kind, id := ref.DB, ref.Coll, ref.Kind, ref.ID
	m, bodyID, err := parseScript(kind, props)
	if err != nil {
		return nil, err
	}
	if bodyID != id {
		return nil, badRequest("The %s id in the body (%q) must match the one in the path (%q).", kind.noun(), bodyID, id)
	}
	var out record
	err = s.store.Update(ctx, func(tx kv.Txn) error {
		key, old, err := existingScript(tx, db, coll, kind, id, pre)
		if err != nil {
			return err
		}
		v := tx.Version()
		out = s.stamped(m, old["_rid"], old["_self"], v)
		return s.setRecord(tx, key, out)
	})
	if err != nil {
		return nil, err
	}
	return newScript(kind, out)
}

// existingScript loads a script that must exist in an existing container
// and meet pre, for a write; it returns the script's key and record.
func existingScript(tx kv.Txn, db, coll string, kind ScriptKind, id string, pre Preconditions) ([]byte, record, error) {
	if _, err := loadContainer(tx, db, coll); err != nil {
		return nil, nil, err
	}
	key := scriptKey(db, coll, kind, id)
	old, ok, err := getRecord(tx, key)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, scriptNotFound(kind, id)
	}
	if err := pre.check(conditions.Write, true, old.str("_etag")); err != nil {
		return nil, nil, err
	}
	return key, old, nil
}

// DeleteScript deletes a script, which must exist and meet pre.
func (s *Service) DeleteScript(ctx context.Context, ref ScriptRef, pre Preconditions) error {
	db, coll, kind, id := ref.DB, ref.Coll, ref.Kind, ref.ID
	return s.store.Update(ctx, func(tx kv.Txn) error {
		key, _, err := existingScript(tx, db, coll, kind, id, pre)
		if err != nil {
			return err
		}
		s.noteCommit(tx)
		return tx.Delete(key)
	})
}

// ListScripts returns every script of one kind in a container, in id
// order; the feed's ResourceID is the container's _rid.
func (s *Service) ListScripts(ctx context.Context, ref CollectionRef, kind ScriptKind) (*Feed, error) {
	return s.listFeed(ctx, containerRID(ref), scriptsPrefix(ref.DB, ref.Coll, kind))
}

// QueryScripts runs q over the scripts of one kind in a container.
func (s *Service) QueryScripts(ctx context.Context, ref CollectionRef, kind ScriptKind, q *Query, params map[string]any) (*Feed, error) {
	return s.queryFeed(ctx, containerRID(ref), scriptsPrefix(ref.DB, ref.Coll, kind), q, params)
}
