package script

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strconv"
	"testing"
)

// fakeStatus is the fake's operation failure.
type fakeStatus struct {
	status int
	msg    string
}

func (e *fakeStatus) Error() string   { return e.msg }
func (e *fakeStatus) HTTPStatus() int { return e.status }

// fakeCollection keeps one partition in memory, with Cosmos DB's system
// properties and preconditions, and records every call it gets.
type fakeCollection struct {
	docs  map[string]map[string]any
	seq   int
	calls []string
	// onCall runs before every operation (tests advance a clock with it).
	onCall func(op string)
	// fail, when set, is returned by the next operation.
	fail error
}

func newFakeCollection() *fakeCollection {
	return &fakeCollection{docs: make(map[string]map[string]any)}
}

const (
	fakeSelf = "dbs/AAAAAA==/colls/AAAAAKbB0d0=/"
	fakeAlt  = "dbs/db1/colls/coll1"
)

func (f *fakeCollection) SelfLink() string { return fakeSelf }
func (f *fakeCollection) AltLink() string  { return fakeAlt }

func (f *fakeCollection) begin(op string) error {
	f.calls = append(f.calls, op)
	if f.onCall != nil {
		f.onCall(op)
	}
	if err := f.fail; err != nil {
		f.fail = nil
		return err
	}
	return nil
}

func (f *fakeCollection) count(op string) int {
	n := 0
	for _, c := range f.calls {
		if c == op {
			n++
		}
	}
	return n
}

func (f *fakeCollection) store(doc map[string]any, old map[string]any) []byte {
	f.seq++
	id := doc["id"].(string)
	rid := "rid" + strconv.Itoa(f.seq)
	if old != nil {
		rid = old["_rid"].(string)
	}
	doc["_rid"] = rid
	doc["_self"] = fakeSelf + "docs/" + rid + "/"
	doc["_etag"] = fmt.Sprintf("\"%08d\"", f.seq)
	doc["_ts"] = 1700000000 + f.seq
	f.docs[id] = doc
	b, _ := json.Marshal(doc)
	return b
}

func decodeDoc(b []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil || m == nil {
		return nil, &fakeStatus{400, "The document is not a JSON object."}
	}
	id, ok := m["id"].(string)
	if !ok || id == "" {
		return nil, &fakeStatus{400, "The document has no id."}
	}
	return m, nil
}

func (f *fakeCollection) CreateDocument(doc []byte, _ DocOptions) ([]byte, error) {
	if err := f.begin("create"); err != nil {
		return nil, err
	}
	m, err := decodeDoc(doc)
	if err != nil {
		return nil, err
	}
	if _, ok := f.docs[m["id"].(string)]; ok {
		return nil, &fakeStatus{409, "Entity with the specified id already exists in the system."}
	}
	return f.store(m, nil), nil
}

func (f *fakeCollection) ReadDocument(id string, _ DocOptions) ([]byte, error) {
	if err := f.begin("read"); err != nil {
		return nil, err
	}
	d, ok := f.docs[id]
	if !ok {
		return nil, &fakeStatus{404, "Entity with the specified id does not exist in the system."}
	}
	b, _ := json.Marshal(d)
	return b, nil
}

func (f *fakeCollection) ReplaceDocument(id string, doc []byte, opts DocOptions) ([]byte, error) {
	if err := f.begin("replace"); err != nil {
		return nil, err
	}
	old, ok := f.docs[id]
	if !ok {
		return nil, &fakeStatus{404, "Entity with the specified id does not exist in the system."}
	}
	if opts.IfMatch != "" && opts.IfMatch != old["_etag"] {
		return nil, &fakeStatus{412, "Operation cannot be performed because one of the specified precondition is not met."}
	}
	m, err := decodeDoc(doc)
	if err != nil {
		return nil, err
	}
	if m["id"] != id {
		return nil, &fakeStatus{400, "The id of a replaced document cannot change."}
	}
	return f.store(m, old), nil
}

func (f *fakeCollection) UpsertDocument(doc []byte, opts DocOptions) ([]byte, error) {
	if err := f.begin("upsert"); err != nil {
		return nil, err
	}
	m, err := decodeDoc(doc)
	if err != nil {
		return nil, err
	}
	old := f.docs[m["id"].(string)]
	if old != nil && opts.IfMatch != "" && opts.IfMatch != old["_etag"] {
		return nil, &fakeStatus{412, "Operation cannot be performed because one of the specified precondition is not met."}
	}
	return f.store(m, old), nil
}

func (f *fakeCollection) DeleteDocument(id string, opts DocOptions) error {
	if err := f.begin("delete"); err != nil {
		return err
	}
	old, ok := f.docs[id]
	if !ok {
		return &fakeStatus{404, "Entity with the specified id does not exist in the system."}
	}
	if opts.IfMatch != "" && opts.IfMatch != old["_etag"] {
		return &fakeStatus{412, "Operation cannot be performed because one of the specified precondition is not met."}
	}
	delete(f.docs, id)
	return nil
}

// fakeQuery understands "SELECT * FROM c [WHERE c.<field> = @<param>]".
var fakeQuery = regexp.MustCompile(`^SELECT \* FROM c(?: WHERE c\.(\w+) = (@\w+))?$`)

func (f *fakeCollection) QueryDocuments(query string, params map[string]any, pageSize int, continuation string) ([][]byte, string, error) {
	if err := f.begin("query"); err != nil {
		return nil, "", err
	}
	m := fakeQuery.FindStringSubmatch(query)
	if m == nil {
		return nil, "", &fakeStatus{400, "Syntax error, unsupported query."}
	}
	return f.page(pageSize, continuation, func(d map[string]any) bool {
		return m[1] == "" || fmt.Sprint(d[m[1]]) == fmt.Sprint(params[m[2]])
	})
}

func (f *fakeCollection) ReadDocuments(pageSize int, continuation string) ([][]byte, string, error) {
	if err := f.begin("readFeed"); err != nil {
		return nil, "", err
	}
	return f.page(pageSize, continuation, func(map[string]any) bool { return true })
}

// page returns documents in id order; the continuation is an offset.
func (f *fakeCollection) page(pageSize int, continuation string, keep func(map[string]any) bool) ([][]byte, string, error) {
	if pageSize <= 0 {
		pageSize = 100
	}
	start := 0
	if continuation != "" {
		n, err := strconv.Atoi(continuation)
		if err != nil {
			return nil, "", &fakeStatus{400, "Invalid continuation token."}
		}
		start = n
	}
	var ids []string
	for id, d := range f.docs {
		if keep(d) {
			ids = append(ids, id)
		}
	}
	sort.Strings(ids)
	var out [][]byte
	for i := start; i < len(ids) && len(out) < pageSize; i++ {
		b, _ := json.Marshal(f.docs[ids[i]])
		out = append(out, b)
	}
	next := ""
	if start+len(out) < len(ids) {
		next = strconv.Itoa(start + len(out))
	}
	return out, next, nil
}

// seed stores documents as a previous transaction would have.
func (f *fakeCollection) seed(t *testing.T, docs ...string) {
	t.Helper()
	for _, d := range docs {
		m, err := decodeDoc([]byte(d))
		if err != nil {
			t.Fatalf("seed %s: %v", d, err)
		}
		f.store(m, nil)
	}
}
