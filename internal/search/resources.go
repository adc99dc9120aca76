package search

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/chunk"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// Kind is a collection of resources, named by its path segment.
type Kind string

// The resource collections of a search service.
const (
	Indexes     Kind = "indexes"
	SynonymMaps Kind = "synonymmaps"
	DataSources Kind = "datasources"
	Indexers    Kind = "indexers"
	Skillsets   Kind = "skillsets"
	Aliases     Kind = "aliases"
)

// Kinds lists every collection, in the order service statistics count them.
var Kinds = []Kind{Indexes, Indexers, DataSources, SynonymMaps, Skillsets, Aliases}

// ParseKind returns the Kind a path segment names.
func ParseKind(seg string) (Kind, bool) {
	for _, k := range Kinds {
		if string(k) == seg {
			return k, true
		}
	}
	return "", false
}

// label is how messages name one resource of the kind.
func (k Kind) label() string {
	switch k {
	case Indexes:
		return "index"
	case SynonymMaps:
		return "synonym map"
	case DataSources:
		return "data source"
	case Indexers:
		return "indexer"
	case Skillsets:
		return "skillset"
	case Aliases:
		return "alias"
	}
	return string(k)
}

// singular is the kind's name in a validation message's path.
func (k Kind) singular() string {
	switch k {
	case SynonymMaps:
		return "synonymMap"
	case DataSources:
		return "dataSource"
	}
	return k.label()
}

// ODataType is the entity type the service names in @odata.context.
func (k Kind) ODataType() string {
	switch k {
	case Indexes:
		return "Microsoft.Azure.Search.V2024_07_01.Index"
	case SynonymMaps:
		return "Microsoft.Azure.Search.V2024_07_01.SynonymMap"
	case DataSources:
		return "Microsoft.Azure.Search.V2024_07_01.DataSource"
	case Indexers:
		return "Microsoft.Azure.Search.V2024_07_01.Indexer"
	case Skillsets:
		return "Microsoft.Azure.Search.V2024_07_01.Skillset"
	}
	return "Microsoft.Azure.Search.V2024_07_01.Alias"
}

// Resource is one stored definition.
type Resource struct {
	Kind Kind
	Name string
	// ETag is quoted, as the ETag header carries it; @odata.etag holds the
	// same string.
	ETag string
	// Definition is the resource's definition in the service's normalised
	// shape (*Index, *SynonymMap, …).
	Definition Definition
}

// Body renders the resource as the service returns it: @odata.etag, then
// its definition, and secrets (a data source's connection string)
// withheld as the real service withholds them. Its properties are in the
// order the service writes them, and $select can pick from it.
func (r *Resource) Body() *object {
	out := object{{"@odata.etag", r.ETag}}
	if def, err := orderedJSON(r.Definition); err == nil {
		out = append(out, *def...)
	}
	if r.Kind == DataSources {
		out.set("credentials", &object{{"connectionString", nil}})
	}
	return &out
}

// stored is a resource as kept in kv: its commit version (the ETag) and
// its normalised definition, inline when it fits one value and otherwise
// in chunks under definitionChunks (Size set, Definition empty on disk),
// so that an index of a thousand fields is kept like a small one.
type stored struct {
	Version    uint64          `json:"v"`
	Definition json.RawMessage `json:"d,omitempty"`
	Size       int64           `json:"n,omitempty"`
}

// inlineDefinition is the largest definition kept in the resource's own
// value; maxDefinition bounds one definition (well inside a transaction).
const (
	inlineDefinition = 64 << 10
	maxDefinition    = 4 << 20
)

// loadStored reads a resource record and, for a chunked definition, its
// chunks.
func loadStored(rd kv.Reader, kind Kind, name string) (*stored, bool, error) {
	var st stored
	found, err := record.Load(rd, resourceKey(kind, name), &st)
	if err != nil || !found {
		return nil, found, err
	}
	if err := st.loadChunks(rd, kind, name); err != nil {
		return nil, false, err
	}
	return &st, true, nil
}

func (st *stored) loadChunks(rd kv.Reader, kind Kind, name string) error {
	if st.Size == 0 {
		return nil
	}
	var buf bytes.Buffer
	if err := chunk.Read(rd, definitionChunks(kind, name), 0, st.Size, &buf); err != nil {
		return fmt.Errorf("read %s %q definition: %w", kind.label(), name, err)
	}
	st.Definition = buf.Bytes()
	return nil
}

// storeDefinition writes a resource record, replacing any chunks of the
// definition it had before.
func storeDefinition(tx kv.Txn, kind Kind, name string, version uint64, def []byte) error {
	chunks := definitionChunks(kind, name)
	if err := tx.DeleteRange(chunks, kv.PrefixEnd(chunks)); err != nil {
		return err
	}
	st := stored{Version: version, Definition: def}
	if len(def) > inlineDefinition {
		if err := chunk.Write(tx, chunks, 0, def); err != nil {
			return err
		}
		st = stored{Version: version, Size: int64(len(def))}
	}
	return record.Store(tx, resourceKey(kind, name), st)
}

// etagOf renders a commit version as the service's ETag: a quoted hex
// number shaped like Azure's ("0x8DC…"), one per version.
func etagOf(v uint64) string { return fmt.Sprintf(`"0x8D%013X"`, v) }

func (st *stored) resource(kind Kind, name string) (*Resource, error) {
	def, err := loadDefinition(kind, st.Definition)
	if err != nil {
		return nil, fmt.Errorf("decode stored %s %q: %w", kind.label(), name, err)
	}
	return &Resource{Kind: kind, Name: name, ETag: etagOf(st.Version), Definition: def}, nil
}

// decodeObject decodes one JSON object, keeping numbers as written.
func decodeObject(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	if m == nil {
		return nil, errors.New("not a JSON object")
	}
	if _, err := dec.Token(); err == nil {
		return nil, errors.New("data after the JSON object")
	}
	return m, nil
}

// ParseDefinition decodes a request body as a resource definition.
func ParseDefinition(body []byte) (map[string]any, error) {
	m, err := decodeObject(body)
	if err != nil {
		return nil, badRequest("The request is invalid. Details: The request body is not a JSON object: %v", err)
	}
	return m, nil
}

// Preconditions are the ETag conditions of a write, as If-Match and
// If-None-Match carry them ("*" matches any version).
type Preconditions struct {
	IfMatch     []string
	IfNoneMatch []string
}

// check evaluates p against the resource's state: every failed condition
// is 412, If-None-Match: * on an existing resource included, as the
// service answers it.
func (p Preconditions) check(exists bool, etag string) error {
	c := conditions.Conditions{IfMatch: p.IfMatch, IfNoneMatch: p.IfNoneMatch}
	if err := c.Check(conditions.Write, conditions.State{Exists: exists, ETag: etag}); err != nil {
		return preconditionFailed()
	}
	return nil
}

func (p Preconditions) empty() bool { return len(p.IfMatch) == 0 && len(p.IfNoneMatch) == 0 }

// PutOptions shape a create or update.
type PutOptions struct {
	Preconditions
	// CreateOnly is POST's create: an existing name is 409.
	CreateOnly bool
	// AllowIndexDowntime lets an index update add analyzers, tokenizers,
	// token filters or char filters (allowIndexDowntime=true).
	AllowIndexDowntime bool
}

// Put creates or replaces a resource. name is the name in the URL; for a
// POST it is empty and the body's name is used. The definition is
// validated and normalised; created reports whether the resource was new.
func (s *Service) Put(ctx context.Context, kind Kind, name string, def map[string]any, opts PutOptions) (res *Resource, created bool, err error) {
	bodyName, _ := def["name"].(string)
	if raw, ok := def["name"]; ok && raw != nil {
		if _, isString := raw.(string); !isString {
			return nil, false, invalid(kind.singular()+".name", "The name must be a string.")
		}
	}
	switch {
	case name == "":
		name = bodyName
	case bodyName == "":
		def["name"] = name
	case bodyName != name:
		return nil, false, badRequest("The %s name '%s' in the request body does not match the name '%s' in the request URL.", kind.label(), bodyName, name)
	}
	if err := checkName(kind, name); err != nil {
		return nil, false, err
	}
	delete(def, "@odata.etag")
	delete(def, "@odata.context")
	if kind == Indexes {
		if err := checkIndexProperties(def); err != nil {
			return nil, false, err
		}
	}
	err = s.store.Update(ctx, func(tx kv.Txn) error {
		res, created = nil, false
		old, found, err := loadStored(tx, kind, name)
		if err != nil {
			return err
		}
		if found && opts.CreateOnly && kind == Aliases {
			// Azure's refusal of a second alias of the same name is a 400
			// (the Java SDK's recording
			// SearchAliasTests.cannotCreateMultipleAliasesWithTheSameNameSync).
			msg := fmt.Sprintf("An index alias cannot have the same name as another alias within the search service. Alias \u2013 '%s' already exists within the search service \u2013 '%s'. If this is intended to be an update request on an existing alias, use PUT. Learn more at https://aka.ms/azurecognitivesearchcreateupdatealias", name, s.name)
			return detailed(http.StatusBadRequest, "ResourceNameAlreadyInUse", "CannotCreateExistingIndexAlias", msg)
		}
		if found && opts.CreateOnly {
			return &Error{Status: http.StatusConflict, Code: "ResourceNameAlreadyInUse",
				Message: fmt.Sprintf("Cannot create %s '%s' because another %s with the same name already exists.", kind.label(), name, kind.label())}
		}
		etag := ""
		if found {
			etag = etagOf(old.Version)
		}
		if err := opts.check(found, etag); err != nil {
			return err
		}
		var oldDef Definition
		if found {
			if oldDef, err = loadDefinition(kind, old.Definition); err != nil {
				return fmt.Errorf("decode stored %s %q: %w", kind.label(), name, err)
			}
		}
		norm, err := decodeDefinition(kind, def)
		if err != nil {
			return err
		}
		if err := validateDefinition(tx, norm, oldDef, opts.AllowIndexDowntime); err != nil {
			return err
		}
		if ix, ok := norm.(*Indexer); ok {
			ix.Schedule.startNow(s.now())
		}
		b, err := json.Marshal(norm)
		if err != nil {
			return fmt.Errorf("encode %s: %w", kind.label(), err)
		}
		if len(b) > maxDefinition {
			return badRequest("The %s definition is %d bytes; this server keeps definitions of up to %d bytes.", kind.label(), len(b), maxDefinition)
		}
		if err := storeDefinition(tx, kind, name, tx.Version(), b); err != nil {
			return err
		}
		res, created = &Resource{Kind: kind, Name: name, ETag: etagOf(tx.Version()), Definition: norm}, !found
		return nil
	})
	if err != nil {
		return nil, false, err
	}
	return res, created, nil
}

// Get returns one resource, or a 404 Error.
func (s *Service) Get(ctx context.Context, kind Kind, name string) (*Resource, error) {
	var res *Resource
	err := s.store.View(ctx, func(rd kv.Reader) error {
		var err error
		res, err = s.load(rd, kind, name)
		return err
	})
	return res, err
}

// GetIn is Get read in rd, a transaction of the caller's: one that
// writes what belongs to the resource reads it there, so that it
// conflicts with the resource's deletion instead of outliving it.
func (s *Service) GetIn(rd kv.Reader, kind Kind, name string) (*Resource, error) {
	return s.load(rd, kind, name)
}

// load reads one resource, or answers 404.
func (s *Service) load(rd kv.Reader, kind Kind, name string) (*Resource, error) {
	st, found, err := loadStored(rd, kind, name)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, s.notFound(kind, name)
	}
	return st.resource(kind, name)
}

func (s *Service) notFound(kind Kind, name string) *Error {
	return notFound("No %s with the name '%s' was found in a service named '%s'.", kind.label(), name, s.name)
}

// exists reports whether a resource is stored, reading it in rd (so a
// transaction conflicts with its creation or removal).
func exists(rd kv.Reader, kind Kind, name string) (bool, error) {
	_, err := rd.Get(resourceKey(kind, name))
	if errors.Is(err, kv.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// List returns every resource of a kind in name order.
func (s *Service) List(ctx context.Context, kind Kind) ([]*Resource, error) {
	var out []*Resource
	err := s.store.View(ctx, func(rd kv.Reader) error {
		var err error
		out, err = listIn(rd, kind)
		return err
	})
	return out, err
}

// listIn reads every resource of a kind in rd, in name order. The records
// are gathered first and their chunks read after the scan.
func listIn(rd kv.Reader, kind Kind) ([]*Resource, error) {
	prefix := resourcesPrefix(kind)
	var (
		records []stored
		names   []string
	)
	err := rd.Scan(prefix, kv.PrefixEnd(prefix), func(key, value []byte) error {
		var st stored
		if err := record.Decode(value, &st); err != nil {
			return err
		}
		name, err := resourceName(key, prefix)
		if err != nil {
			return err
		}
		records, names = append(records, st), append(names, name)
		return nil
	})
	if err != nil {
		return nil, err
	}
	var out []*Resource
	for i := range records {
		if err := records[i].loadChunks(rd, kind, names[i]); err != nil {
			return nil, err
		}
		res, err := records[i].resource(kind, names[i])
		if err != nil {
			return nil, err
		}
		out = append(out, res)
	}
	return out, nil
}

// checkNoAliases refuses to delete an index that aliases map to, naming
// them (the Java SDK's recording SearchAliasTests.cannotDeleteIndexWithAliasSync).
func (s *Service) checkNoAliases(rd kv.Reader, index string) error {
	aliases, err := listIn(rd, Aliases)
	if err != nil {
		return err
	}
	var mapped []string
	for _, res := range aliases {
		if a, ok := res.Definition.(*Alias); ok && slices.Contains(a.Indexes, index) {
			mapped = append(mapped, "'"+res.Name+"'")
		}
	}
	if len(mapped) == 0 {
		return nil
	}
	msg := fmt.Sprintf("The index '%s' in service '%s' cannot be deleted because the following alias(es) map to it: %s. Please update the alias(es) to map to a different index or delete them before trying again.", index, s.name, strings.Join(mapped, ", "))
	return detailed(http.StatusBadRequest, "OperationNotAllowed", "CannotDeleteIndex", msg)
}

// Delete removes a resource (an index with its documents, an indexer
// with its run state). A missing resource is 404 unless a condition
// fails first (412).
func (s *Service) Delete(ctx context.Context, kind Kind, name string, p Preconditions) error {
	return s.store.Update(ctx, func(tx kv.Txn) error {
		var st stored
		found, err := record.Load(tx, resourceKey(kind, name), &st)
		if err != nil {
			return err
		}
		etag := ""
		if found {
			etag = etagOf(st.Version)
		}
		if !p.empty() {
			if err := p.check(found, etag); err != nil {
				return err
			}
		}
		if !found && kind == Indexes {
			// Deleting a missing index is refused with a code and a
			// detail that reading one is not (the Java SDK's
			// deleteIndexIsIdempotent and getIndexThrowsOnNotFound
			// recordings).
			return detailed(http.StatusNotFound, "OperationNotAllowed", "IndexNotFoundInService", s.notFound(kind, name).Message)
		}
		if !found {
			return s.notFound(kind, name)
		}
		if kind == Indexes {
			if err := s.checkNoAliases(tx, name); err != nil {
				return err
			}
		}
		if err := tx.Delete(resourceKey(kind, name)); err != nil {
			return err
		}
		chunks := definitionChunks(kind, name)
		if err := tx.DeleteRange(chunks, kv.PrefixEnd(chunks)); err != nil {
			return err
		}
		switch kind {
		case Indexes:
			return deleteDocumentState(tx, name)
		case Indexers:
			p := IndexerStatePrefix(name)
			return tx.DeleteRange(p, kv.PrefixEnd(p))
		}
		return nil
	})
}
