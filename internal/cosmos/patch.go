package cosmos

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// maxPatchOperations is Cosmos DB's limit of operations in one patch.
const maxPatchOperations = 10

// patchRequest is a JSON patch as Cosmos DB takes it: up to ten
// operations and an optional SQL filter ("FROM c WHERE …") the item must
// satisfy.
type patchRequest struct {
	Condition  string      `json:"condition,omitempty"`
	Operations []patchStep `json:"operations"`
}

// patchStep is one operation: add, set, replace, remove, incr or move.
type patchStep struct {
	Op    string `json:"op"`
	Path  string `json:"path"`
	From  string `json:"from,omitempty"`
	Value any    `json:"value"`
	// hasValue records whether "value" was present (null is a value).
	hasValue bool
	path     []string
	from     []string
}

// Patch is a parsed and validated partial document update, the body of
// Cosmos DB's Patch Item.
type Patch struct{ req *patchRequest }

// ParsePatch parses a patch: {"condition": "FROM c WHERE …", "operations":
// [{"op": "set", "path": "/a", "value": 1}, …]} or a bare array of
// operations (add, set, replace, remove, incr, move; at most ten). Invalid
// input is ErrBadRequest.
func ParsePatch(b []byte) (*Patch, error) {
	req, err := parsePatch(b)
	if err != nil {
		return nil, err
	}
	return &Patch{req: req}, nil
}

// parsePatch parses and validates a patch body: an object with
// "operations" (and "condition"), or a bare array of operations.
func parsePatch(b []byte) (*patchRequest, error) {
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return nil, badRequest("The patch request is not valid JSON.")
	}
	if dec.More() {
		return nil, badRequest("The patch request has trailing data.")
	}
	pr := &patchRequest{}
	var ops []any
	switch x := raw.(type) {
	case []any:
		ops = x
	case map[string]any:
		if c, ok := x["condition"]; ok && c != nil {
			cs, ok := c.(string)
			if !ok {
				return nil, badRequest("The patch condition must be a string.")
			}
			pr.Condition = cs
		}
		list, ok := x["operations"].([]any)
		if !ok {
			return nil, badRequest("The patch request must have an \"operations\" array.")
		}
		ops = list
	default:
		return nil, badRequest("The patch request must be an object or an array of operations.")
	}
	if len(ops) == 0 {
		return nil, badRequest("The patch request has no operations.")
	}
	if len(ops) > maxPatchOperations {
		return nil, badRequest("The number of patch operations can't exceed %d.", maxPatchOperations)
	}
	for i, o := range ops {
		m, ok := o.(map[string]any)
		if !ok {
			return nil, badRequest("Patch operation %d is not an object.", i)
		}
		var st patchStep
		st.Op, _ = m["op"].(string)
		st.Path, _ = m["path"].(string)
		st.From, _ = m["from"].(string)
		st.Value, st.hasValue = m["value"]
		if err := st.validate(); err != nil {
			return nil, err
		}
		pr.Operations = append(pr.Operations, st)
	}
	return pr, nil
}

func (st *patchStep) validate() error {
	switch st.Op {
	case "add", "set", "replace", "incr":
		if !st.hasValue {
			return badRequest("The patch operation %q requires a value.", st.Op)
		}
	case "remove":
	case "move":
		from, err := splitPointer(st.From)
		if err != nil {
			return badRequest("The patch operation move has an invalid from path %q.", st.From)
		}
		st.from = from
	default:
		return badRequest("The patch operation %q is not supported; use add, set, replace, remove, incr or move.", st.Op)
	}
	if st.Op == "incr" {
		if _, ok := st.Value.(json.Number); !ok {
			return badRequest("The value of an incr operation must be a number.")
		}
	}
	p, err := splitPointer(st.Path)
	if err != nil {
		return badRequest("The patch path %q is invalid.", st.Path)
	}
	st.path = p
	if len(p) == 1 && (p[0] == "id" || strings.HasPrefix(p[0], "_")) && isSystemOrID(p[0]) {
		return badRequest("The patch path %q names a property that cannot be patched.", st.Path)
	}
	return nil
}

func isSystemOrID(name string) bool {
	if name == "id" {
		return true
	}
	for _, s := range itemSystemProps {
		if s == name {
			return true
		}
	}
	return false
}

// splitPointer splits a JSON pointer ("/a/0/b", with ~0 and ~1 escapes).
func splitPointer(p string) ([]string, error) {
	if !strings.HasPrefix(p, "/") || p == "/" {
		return nil, errBadPointer
	}
	parts := strings.Split(p[1:], "/")
	for i, s := range parts {
		if s == "" {
			return nil, errBadPointer
		}
		parts[i] = strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
	}
	return parts, nil
}

var errBadPointer = badRequest("invalid JSON pointer")

// apply returns the patched copy of doc; a failed condition is 412.
func (pr *patchRequest) apply(doc map[string]any, c *container) (map[string]any, error) {
	if pr.Condition != "" {
		ok, err := evalCondition(pr.Condition, doc)
		if err != nil {
			return nil, err
		}
		if !ok {
			return nil, preconditionFailed()
		}
	}
	out := deepCopy(doc).(map[string]any)
	for _, st := range pr.Operations {
		for _, pkPath := range c.pkPaths {
			if hasPrefix(st.path, pkPath) || (st.from != nil && hasPrefix(st.from, pkPath)) {
				return nil, badRequest("The patch path %q would change the partition key, which is not allowed.", st.Path)
			}
		}
		var err error
		switch st.Op {
		case "add":
			err = setAt(out, st.path, deepCopy(st.Value), true)
		case "set":
			err = setAt(out, st.path, deepCopy(st.Value), false)
		case "replace":
			if _, ok := getAt(out, st.path); !ok {
				return nil, badRequest("The patch operation replace failed: the path %q does not exist.", st.Path)
			}
			err = setAt(out, st.path, deepCopy(st.Value), false)
		case "remove":
			err = removeAt(out, st.path)
		case "incr":
			cur, ok := getAt(out, st.path)
			if !ok {
				err = setAt(out, st.path, st.Value, false)
				break
			}
			var sum any
			sum, err = increment(cur, st.Value.(json.Number))
			if err == nil {
				err = setAt(out, st.path, sum, false)
			}
		case "move":
			v, ok := getAt(out, st.from)
			if !ok {
				return nil, badRequest("The patch operation move failed: the from path %q does not exist.", st.From)
			}
			if hasPrefix(st.path, st.from) && len(st.path) > len(st.from) {
				return nil, badRequest("The patch operation move cannot move a value into itself.")
			}
			if err = removeAt(out, st.from); err == nil {
				err = setAt(out, st.path, v, false)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}

func hasPrefix(p, prefix []string) bool {
	if len(p) < len(prefix) {
		return false
	}
	for i := range prefix {
		if p[i] != prefix[i] {
			return false
		}
	}
	return true
}

// increment adds n to cur, keeping integers integral.
func increment(cur any, n json.Number) (any, error) {
	c, ok := cur.(json.Number)
	if !ok {
		return nil, badRequest("The patch operation incr failed: the target is not a number.")
	}
	ci, err1 := strconv.ParseInt(c.String(), 10, 64)
	ni, err2 := strconv.ParseInt(n.String(), 10, 64)
	if err1 == nil && err2 == nil {
		sum := ci + ni
		if (ni > 0 && sum < ci) || (ni < 0 && sum > ci) {
			return nil, badRequest("The patch operation incr overflowed.")
		}
		return json.Number(strconv.FormatInt(sum, 10)), nil
	}
	cf, err1 := c.Float64()
	nf, err2 := n.Float64()
	if err1 != nil || err2 != nil || math.IsInf(cf+nf, 0) {
		return nil, badRequest("The patch operation incr failed: the number is out of range.")
	}
	return json.Number(strconv.FormatFloat(cf+nf, 'g', -1, 64)), nil
}

func deepCopy(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = deepCopy(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = deepCopy(e)
		}
		return out
	}
	return v
}

func getAt(doc map[string]any, path []string) (any, bool) {
	var cur any = doc
	for _, p := range path {
		switch x := cur.(type) {
		case map[string]any:
			v, ok := x[p]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(x) {
				return nil, false
			}
			cur = x[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// parentOf returns the container holding the last element of path, that
// element's name, and a setter for the array case (arrays change length).
func parentOf(doc map[string]any, path []string) (any, string, func(any) error, error) {
	parentPath := path[:len(path)-1]
	parent, ok := getAt(doc, parentPath)
	if !ok {
		return nil, "", nil, badRequest("The patch path /%s does not exist.", strings.Join(parentPath, "/"))
	}
	setParent := func(v any) error {
		if len(parentPath) == 0 {
			return badRequest("The document root cannot be replaced.")
		}
		return setAt(doc, parentPath, v, false)
	}
	return parent, path[len(path)-1], setParent, nil
}

// setAt sets the value at path. In an array, add (insert=true) inserts at
// the index ("-" appends) and set/replace overwrite it.
func setAt(doc map[string]any, path []string, v any, insert bool) error {
	parent, last, setParent, err := parentOf(doc, path)
	if err != nil {
		return err
	}
	switch x := parent.(type) {
	case map[string]any:
		x[last] = v
		return nil
	case []any:
		if last == "-" {
			return setParent(append(x, v))
		}
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i > len(x) || (!insert && i == len(x)) {
			return badRequest("The array index %q is out of range.", last)
		}
		if !insert {
			x[i] = v
			return nil
		}
		out := make([]any, 0, len(x)+1)
		out = append(append(append(out, x[:i]...), v), x[i:]...)
		return setParent(out)
	}
	return badRequest("The patch path's parent is not an object or array.")
}

func removeAt(doc map[string]any, path []string) error {
	parent, last, setParent, err := parentOf(doc, path)
	if err != nil {
		return err
	}
	switch x := parent.(type) {
	case map[string]any:
		if _, ok := x[last]; !ok {
			return badRequest("The patch operation remove failed: the path does not exist.")
		}
		delete(x, last)
		return nil
	case []any:
		i, err := strconv.Atoi(last)
		if err != nil || i < 0 || i >= len(x) {
			return badRequest("The array index %q is out of range.", last)
		}
		out := append(append([]any{}, x[:i]...), x[i+1:]...)
		return setParent(out)
	}
	return badRequest("The patch operation remove failed: the path does not exist.")
}
