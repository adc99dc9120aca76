package script

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/dop251/goja"

	"github.com/cerulean-db/cerulean/internal/guid"
)

// collectionObject is getContext().getCollection(): the document
// operations of the server-side API over x.coll, plus the JavaScript
// query functions (the same object is the prototype of __).
//
// Every operation validates its arguments at the call (a bad link or
// option throws), returns whether it was accepted, and reports its
// outcome to the callback, which runs once the current code returns.
// An operation that fails with no callback to tell ends the script with
// that error, as Cosmos DB does.
func (x *execution) collectionObject() *goja.Object {
	o := x.vm.NewObject()
	set := func(name string, fn func(goja.FunctionCall) goja.Value) { _ = o.Set(name, fn) }
	set("getSelfLink", func(goja.FunctionCall) goja.Value { return x.vm.ToValue(x.coll.SelfLink()) })
	set("getAltLink", func(goja.FunctionCall) goja.Value { return x.vm.ToValue(x.coll.AltLink()) })
	set("createDocument", x.createDocument)
	set("upsertDocument", x.upsertDocument)
	set("readDocument", x.readDocument)
	set("replaceDocument", x.replaceDocument)
	set("deleteDocument", x.deleteDocument)
	set("readDocuments", x.readDocuments)
	set("queryDocuments", x.queryDocuments)
	x.addQueryFunctions(o)
	return o
}

func (x *execution) requireArgs(c goja.FunctionCall, name string, n int) {
	if len(c.Arguments) < n {
		x.throw(400, "The function %q requires at least %d argument(s) but was called with %d argument(s).", name, n, len(c.Arguments))
	}
}

// optionsAndCallback reads the trailing ([options], [callback]) of an
// operation; a function in the options place is the callback.
func (x *execution) optionsAndCallback(opts, cb goja.Value) (*goja.Object, goja.Callable) {
	var o *goja.Object
	var fn goja.Callable
	switch t := jsTypeof(opts); {
	case t == "undefined" || goja.IsNull(opts):
	case t == "function" && jsTypeof(cb) == "undefined":
		fn, _ = goja.AssertFunction(opts)
	case t != "object":
		x.throw(400, "The \"options\" parameter must be of type \"object\". Actual type is: %q.", t)
	default:
		o = opts.(*goja.Object)
	}
	switch t := jsTypeof(cb); t {
	case "undefined":
	case "function":
		fn, _ = goja.AssertFunction(cb)
	default:
		x.throw(400, "The \"callback\" parameter must be of type \"function\". Actual type is: %q.", t)
	}
	return o, fn
}

func optString(o *goja.Object, name string) string {
	if o == nil {
		return ""
	}
	if s, ok := primitiveString(o.Get(name)); ok {
		return s
	}
	return ""
}

func optTrue(o *goja.Object, name string) bool {
	if o == nil {
		return false
	}
	v := o.Get(name) // nil when o has no such property
	if v == nil {
		return false
	}
	b, ok := v.Export().(bool)
	return ok && b
}

func optInt(o *goja.Object, name string) int {
	if o == nil {
		return 0
	}
	v := o.Get(name)
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return 0
	}
	n := v.ToInteger()
	if n > 1<<30 || n < -1<<30 {
		return 0
	}
	return int(n)
}

func trimLink(s string) string { return strings.Trim(s, "/") }

// collectionLink checks that link names the script's collection, by self
// link or by alt link: scripts may touch nothing else.
func (x *execution) collectionLink(link goja.Value) {
	s, ok := link.Export().(string)
	if !ok {
		x.throw(400, "Invalid collection link: %q.", link.String())
	}
	segs := strings.Split(trimLink(s), "/")
	if len(segs) != 4 || !strings.EqualFold(segs[0], "dbs") || !strings.EqualFold(segs[2], "colls") {
		x.throw(400, "Invalid collection link: %q.", s)
	}
	if t := trimLink(s); t != trimLink(x.coll.SelfLink()) && t != trimLink(x.coll.AltLink()) {
		x.throw(400, "Function is not allowed to operate on resources outside current collection. Make sure that the link provided, %q, belongs to current collection.", s)
	}
}

// docRef is a document named by a link: by id (an alt link) or by _rid
// (a self link).
type docRef struct {
	key   string
	byRID bool
}

func (x *execution) documentLink(link goja.Value) docRef {
	s, ok := link.Export().(string)
	if !ok {
		x.throw(400, "Invalid document link: %q.", link.String())
	}
	segs := strings.Split(trimLink(s), "/")
	if len(segs) != 6 || !strings.EqualFold(segs[0], "dbs") || !strings.EqualFold(segs[2], "colls") ||
		!strings.EqualFold(segs[4], "docs") || segs[5] == "" {
		x.throw(400, "Invalid document link: %q.", s)
	}
	parent := strings.Join(segs[:4], "/")
	switch parent {
	case trimLink(x.coll.SelfLink()):
		return docRef{key: segs[5], byRID: true}
	case trimLink(x.coll.AltLink()):
		return docRef{key: segs[5]}
	}
	x.throw(400, "Function is not allowed to operate on resources outside current collection. Make sure that the link provided, %q, belongs to current collection.", s)
	return docRef{}
}

// resolve returns the id of the document ref names.
func (x *execution) resolve(ref docRef) (string, error) {
	if !ref.byRID {
		return ref.key, nil
	}
	if id, ok := x.rids[ref.key]; ok {
		return id, nil
	}
	docs, _, err := x.coll.QueryDocuments("SELECT * FROM c WHERE c._rid = @rid", map[string]any{"@rid": ref.key}, 1, "")
	if err != nil {
		return "", err
	}
	if len(docs) == 0 {
		return "", &statusError{404, "Entity with the specified id does not exist in the system."}
	}
	return x.record(x.mustParse(docs[0])).id, nil
}

type recorded struct {
	val goja.Value
	id  string
}

// record notes the _rid → id of a document handed to the script.
func (x *execution) record(v goja.Value) recorded {
	r := recorded{val: v}
	if o, ok := v.(*goja.Object); ok {
		id, iok := primitiveString(o.Get("id"))
		rid, rok := primitiveString(o.Get("_rid"))
		if iok && rok {
			x.rids[rid] = id
		}
		r.id = id
	}
	return r
}

// documentBody serializes the document argument of a write, which may be
// an object or JSON text. With generateID, a document without an id gets
// a GUID — on a shallow copy, leaving the script's object as it was.
func (x *execution) documentBody(body goja.Value, generateID bool) []byte {
	t := jsTypeof(body)
	if goja.IsNull(body) || (t != "object" && t != "string") {
		x.throw(400, "The document body must be an object or a string representing a JSON-serialized object.")
	}
	if !generateID {
		if t == "string" {
			return []byte(body.String())
		}
		return x.mustJSON(body)
	}
	obj := body
	if t == "string" {
		obj = x.mustParse([]byte(body.String()))
	}
	o, ok := obj.(*goja.Object)
	if !ok || o.Get("id") != nil && o.Get("id").ToBoolean() {
		if t == "string" {
			return []byte(body.String())
		}
		return x.mustJSON(body)
	}
	if obj == body {
		clone := x.vm.NewObject()
		for _, k := range o.Keys() {
			_ = clone.Set(k, o.Get(k))
		}
		o = clone
	}
	_ = o.Set("id", newGUID())
	return x.mustJSON(o)
}

func hasID(doc []byte) bool {
	var probe struct {
		ID any `json:"id"`
	}
	if err := json.Unmarshal(doc, &probe); err != nil {
		return true // not a document: the Collection says what is wrong
	}
	s, ok := probe.ID.(string)
	return probe.ID != nil && (!ok || s != "")
}

func newGUID() string { return guid.New() }

// finish reports an operation's outcome: to the callback when there is
// one, else a failure ends the script. A failure without an HTTP status
// is the store's, and ends the script whatever it would do about it.
func (x *execution) finish(cb goja.Callable, err error, success func() []goja.Value) {
	if err != nil {
		var se StatusError
		if !errors.As(err, &se) {
			x.stop(fmt.Errorf("script: %w", err))
			return
		}
		if cb == nil {
			x.stop(&ThrownError{Message: se.Error(), Status: se.HTTPStatus(), Exception: "Error: " + se.Error()})
			return
		}
		x.enqueue(cb, x.newError(se.HTTPStatus(), se.Error()))
		return
	}
	if cb != nil {
		x.enqueue(cb, success()...)
	}
}

// point is the callback arguments of an operation returning a document.
func (x *execution) point(doc []byte) func() []goja.Value {
	return func() []goja.Value {
		return []goja.Value{goja.Undefined(), x.record(x.mustParse(doc)).val, x.vm.NewObject()}
	}
}

// feed is the callback arguments of a feed or query page.
func (x *execution) feed(docs [][]byte, next string) func() []goja.Value {
	return func() []goja.Value {
		opts := x.vm.NewObject()
		_ = opts.Set("continuation", next)
		return []goja.Value{goja.Undefined(), x.docArray(docs), opts}
	}
}

// docArray parses a page of documents with one JSON.parse.
func (x *execution) docArray(docs [][]byte) *goja.Object {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, d := range docs {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(d)
	}
	b.WriteByte(']')
	arr, _ := x.mustParse(b.Bytes()).(*goja.Object)
	for i := range docs {
		x.record(arr.Get(strconv.Itoa(i)))
	}
	return arr
}

func (x *execution) createDocument(c goja.FunctionCall) goja.Value {
	return x.write(c, "createDocument", x.coll.CreateDocument)
}

func (x *execution) upsertDocument(c goja.FunctionCall) goja.Value {
	return x.write(c, "upsertDocument", x.coll.UpsertDocument)
}

// write is createDocument and upsertDocument: (collLink, body, [options],
// [callback]).
func (x *execution) write(c goja.FunctionCall, name string, op func([]byte, DocOptions) ([]byte, error)) goja.Value {
	x.requireArgs(c, name, 2)
	body := c.Argument(1)
	if t := jsTypeof(body); goja.IsNull(body) || (t != "object" && t != "string") {
		x.throw(400, "The document body must be an object or a string representing a JSON-serialized object.")
	}
	x.collectionLink(c.Argument(0))
	opts, cb := x.optionsAndCallback(c.Argument(2), c.Argument(3))
	do := DocOptions{IfMatch: optString(opts, "etag"), DisableAutomaticIDGeneration: optTrue(opts, "disableAutomaticIdGeneration")}
	doc := x.documentBody(body, !do.DisableAutomaticIDGeneration)
	if !x.accepted() {
		return x.vm.ToValue(false)
	}
	var res []byte
	var err error
	if do.DisableAutomaticIDGeneration && !hasID(doc) {
		err = &statusError{400, "The input content is invalid because the required properties - 'id; ' - are missing"}
	} else {
		res, err = op(doc, do)
	}
	x.finish(cb, err, x.point(res))
	return x.vm.ToValue(true)
}

func (x *execution) readDocument(c goja.FunctionCall) goja.Value {
	x.requireArgs(c, "readDocument", 1)
	ref := x.documentLink(c.Argument(0))
	_, cb := x.optionsAndCallback(c.Argument(1), c.Argument(2))
	return x.onDocument(ref, cb, func(id string) ([]byte, error) {
		return x.coll.ReadDocument(id, DocOptions{})
	})
}

// onDocument is the tail of a call on one document: once the request is
// accepted it resolves ref, runs op on the document's id and calls cb
// back with the document op returns.
func (x *execution) onDocument(ref docRef, cb goja.Callable, op func(id string) ([]byte, error)) goja.Value {
	if !x.accepted() {
		return x.vm.ToValue(false)
	}
	var res []byte
	id, err := x.resolve(ref)
	if err == nil {
		res, err = op(id)
	}
	x.finish(cb, err, x.point(res))
	return x.vm.ToValue(true)
}

func (x *execution) replaceDocument(c goja.FunctionCall) goja.Value {
	x.requireArgs(c, "replaceDocument", 2)
	ref := x.documentLink(c.Argument(0))
	doc := x.documentBody(c.Argument(1), false)
	opts, cb := x.optionsAndCallback(c.Argument(2), c.Argument(3))
	return x.onDocument(ref, cb, func(id string) ([]byte, error) {
		return x.coll.ReplaceDocument(id, doc, DocOptions{IfMatch: optString(opts, "etag")})
	})
}

func (x *execution) deleteDocument(c goja.FunctionCall) goja.Value {
	x.requireArgs(c, "deleteDocument", 1)
	ref := x.documentLink(c.Argument(0))
	opts, cb := x.optionsAndCallback(c.Argument(1), c.Argument(2))
	if !x.accepted() {
		return x.vm.ToValue(false)
	}
	id, err := x.resolve(ref)
	if err == nil {
		err = x.coll.DeleteDocument(id, DocOptions{IfMatch: optString(opts, "etag")})
	}
	// Cosmos DB calls back a delete with (error, responseOptions).
	x.finish(cb, err, func() []goja.Value { return []goja.Value{goja.Undefined(), x.vm.NewObject()} })
	return x.vm.ToValue(true)
}

func (x *execution) readDocuments(c goja.FunctionCall) goja.Value {
	x.requireArgs(c, "readDocuments", 1)
	x.collectionLink(c.Argument(0))
	opts, cb := x.optionsAndCallback(c.Argument(1), c.Argument(2))
	if !x.accepted() {
		return x.vm.ToValue(false)
	}
	docs, next, err := x.coll.ReadDocuments(optInt(opts, "pageSize"), optString(opts, "continuation"))
	x.finish(cb, err, x.feed(docs, next))
	return x.vm.ToValue(true)
}

// queryDocuments takes the query as SQL text or as
// {query, parameters: [{name, value}, …]}.
func (x *execution) queryDocuments(c goja.FunctionCall) goja.Value {
	x.requireArgs(c, "queryDocuments", 2)
	x.collectionLink(c.Argument(0))
	q := c.Argument(1)
	if t := jsTypeof(q); t != "string" && t != "object" {
		x.throw(400, "The \"filterQuery\" parameter must be of type \"string\" or \"object\". Actual type is: %q.", t)
	}
	opts, cb := x.optionsAndCallback(c.Argument(2), c.Argument(3))
	text, params, qerr := x.querySpec(q)
	if !x.accepted() {
		return x.vm.ToValue(false)
	}
	var docs [][]byte
	var next string
	err := qerr
	if err == nil {
		docs, next, err = x.coll.QueryDocuments(text, params, optInt(opts, "pageSize"), optString(opts, "continuation"))
	}
	x.finish(cb, err, x.feed(docs, next))
	return x.vm.ToValue(true)
}

func (x *execution) querySpec(q goja.Value) (string, map[string]any, error) {
	o, ok := q.(*goja.Object)
	if !ok {
		if goja.IsNull(q) {
			return "", nil, &statusError{400, "The query text is missing."}
		}
		return q.String(), nil, nil
	}
	text, ok := primitiveString(o.Get("query"))
	if !ok || text == "" {
		return "", nil, &statusError{400, "The query text is missing."}
	}
	ps, ok := o.Get("parameters").(*goja.Object)
	if !ok {
		return text, nil, nil
	}
	params := make(map[string]any)
	n := ps.Get("length")
	if n == nil {
		return text, nil, nil
	}
	for i := int64(0); i < n.ToInteger() && i < 1<<16; i++ {
		p, ok := ps.Get(strconv.FormatInt(i, 10)).(*goja.Object)
		if !ok {
			return "", nil, &statusError{400, "A query parameter must be an object {name, value}."}
		}
		name, ok := primitiveString(p.Get("name"))
		if !ok || name == "" {
			return "", nil, &statusError{400, "A query parameter has no name."}
		}
		params[name] = x.exportJSON(p.Get("value"))
	}
	return text, params, nil
}
