package indexer

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/blob"
)

// maxBlobBytes bounds the content one blob contributes, as Azure bounds
// extraction by tier; a larger blob is indexed by its metadata only, with
// a warning.
const maxBlobBytes = 16 << 20

// blobConfig is the blob part of an indexer's parameters.configuration.
type blobConfig struct {
	parsingMode               string
	documentRoot              string
	headers                   []string
	delimiter                 rune
	firstLineHeaders          bool
	indexedExts, excludedExts map[string]bool
	metadataOnly              bool
}

var parsingModes = map[string]bool{"default": true, "text": true, "json": true, "jsonArray": true, "jsonLines": true, "delimitedText": true}

func parseBlobConfig(cfg map[string]any) (*blobConfig, error) {
	c := &blobConfig{parsingMode: "default", delimiter: ',', firstLineHeaders: true}
	if s, ok := cfg["parsingMode"].(string); ok && s != "" {
		if !parsingModes[s] {
			return nil, fmt.Errorf("the parsing mode '%s' is not supported by cerulean; it parses default, text, json, jsonArray, jsonLines and delimitedText", s)
		}
		c.parsingMode = s
	}
	c.documentRoot, _ = cfg["documentRoot"].(string)
	if s, ok := cfg["delimitedTextHeaders"].(string); ok && s != "" {
		for _, h := range strings.Split(s, ",") {
			c.headers = append(c.headers, strings.TrimSpace(h))
		}
	}
	if s, ok := cfg["delimitedTextDelimiter"].(string); ok && s != "" {
		r, n := utf8.DecodeRuneInString(s)
		if n != len(s) || r == '"' || r == '\r' || r == '\n' {
			return nil, fmt.Errorf("the delimitedTextDelimiter '%s' must be one character other than a quote or a line break", s)
		}
		c.delimiter = r
	}
	if b, ok := cfg["firstLineContainsHeaders"].(bool); ok {
		c.firstLineHeaders = b
	}
	if c.parsingMode == "delimitedText" && !c.firstLineHeaders && len(c.headers) == 0 {
		return nil, errors.New("delimitedText parsing needs delimitedTextHeaders when firstLineContainsHeaders is false")
	}
	exts := func(key string) map[string]bool {
		s, _ := cfg[key].(string)
		if s == "" {
			return nil
		}
		m := map[string]bool{}
		for _, e := range strings.Split(s, ",") {
			m[strings.ToLower(strings.TrimSpace(e))] = true
		}
		return m
	}
	c.indexedExts, c.excludedExts = exts("indexedFileNameExtensions"), exts("excludedFileNameExtensions")
	if s, _ := cfg["dataToExtract"].(string); s == "storageMetadata" || s == "allMetadata" {
		c.metadataOnly = true
	} else if s != "" && s != "contentAndMetadata" && s != "allMetadata" {
		return nil, fmt.Errorf("dataToExtract '%s' is not one of storageMetadata, allMetadata and contentAndMetadata", s)
	}
	return c, nil
}

func (c *blobConfig) oneToMany() bool {
	return c.parsingMode == "jsonArray" || c.parsingMode == "jsonLines" || c.parsingMode == "delimitedText"
}

// blobSource reads a container (optionally one virtual folder) of a
// storage account through the Blob Service.
type blobSource struct {
	svc       *blob.Service
	target    *storageTarget
	container string
	prefix    string
	cfg       *blobConfig
	deletion  *deletionPolicy
}

func (s *blobSource) defaultKey(it item) (string, bool) {
	if it.oneToMany {
		return "AzureSearch_DocumentKey", true
	}
	return "metadata_storage_path", true
}

type listedBlob struct {
	name string
	rec  *blob.Blob
}

func (s *blobSource) read(ctx context.Context, since *int64, fn func(item) error) error {
	var blobs []listedBlob
	marker := ""
	for {
		page, err := s.svc.ListBlobs(ctx, blob.ContainerRef{Account: s.target.account, Container: s.container}, blob.ListBlobsOptions{Prefix: s.prefix, Marker: marker, Max: 5000})
		if err != nil {
			return fmt.Errorf("list the blobs of container '%s': %w", s.container, err)
		}
		for _, b := range page.Blobs {
			if b.Record == nil || b.Snapshot != "" {
				continue
			}
			if since != nil && b.Record.Modified.UnixNano() < *since {
				continue
			}
			if !s.wanted(b.Name) {
				continue
			}
			blobs = append(blobs, listedBlob{b.Name, b.Record})
		}
		if page.NextMarker == "" {
			break
		}
		marker = page.NextMarker
	}
	// Oldest change first, so the mark can advance batch by batch.
	sort.SliceStable(blobs, func(i, j int) bool { return blobs[i].rec.Modified.Before(blobs[j].rec.Modified) })
	for _, b := range blobs {
		items, err := s.items(ctx, b)
		if err != nil {
			return err
		}
		for _, it := range items {
			if err := fn(it); err != nil {
				return err
			}
		}
	}
	return nil
}

func (s *blobSource) wanted(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	if s.cfg.excludedExts[ext] {
		return false
	}
	return s.cfg.indexedExts == nil || s.cfg.indexedExts[ext]
}

// path is metadata_storage_path: the blob's URL under the endpoint the
// connection string names.
func (s *blobSource) path(name string) string {
	segs := strings.Split(name, "/")
	for i, seg := range segs {
		segs[i] = url.PathEscape(seg)
	}
	return s.target.blobEndpoint + "/" + url.PathEscape(s.container) + "/" + strings.Join(segs, "/")
}

func (s *blobSource) metadata(b listedBlob) map[string]any {
	r := b.rec
	m := map[string]any{
		"metadata_storage_name":           path.Base(b.name),
		"metadata_storage_path":           s.path(b.name),
		"metadata_storage_size":           json.Number(strconv.FormatInt(r.Size, 10)),
		"metadata_storage_last_modified":  r.Modified.UTC().Format(time.RFC3339Nano),
		"metadata_storage_content_type":   r.Headers.ContentType,
		"metadata_storage_file_extension": path.Ext(b.name),
	}
	if len(r.Headers.ContentMD5) > 0 {
		m["metadata_storage_content_md5"] = base64.StdEncoding.EncodeToString(r.Headers.ContentMD5)
	}
	if r.Headers.ContentType == "" {
		m["metadata_storage_content_type"] = nil
	}
	for _, kv := range r.Metadata {
		m[kv[0]] = kv[1]
	}
	return m
}

// items turns one blob into its documents, as its parsing mode makes them.
func (s *blobSource) items(ctx context.Context, b listedBlob) ([]item, error) {
	meta := s.metadata(b)
	base := item{fields: meta, mark: b.rec.Modified.UnixNano(), hasMark: true, name: meta["metadata_storage_path"].(string), ident: b.name + "@" + strconv.FormatUint(b.rec.Version, 10)}
	base.deleted = s.deletion.deleted(func(name string) (any, bool) { return b.rec.Metadata.Get(name) })
	if s.cfg.metadataOnly {
		return []item{base}, nil
	}
	if b.rec.Size > maxBlobBytes {
		base.warnings = append(base.warnings, fmt.Sprintf("The blob is %d bytes; cerulean extracts content from blobs of up to %d bytes, so only its metadata was indexed.", b.rec.Size, maxBlobBytes))
		if s.cfg.oneToMany() {
			base.failure = base.warnings[0]
		}
		return []item{base}, nil
	}
	var buf bytes.Buffer
	err := s.svc.GetBlob(ctx, blob.Ref{Account: s.target.account, Container: s.container, Name: b.name}, blob.GetBlobOptions{}, func(d *blob.Download) error { return d.Stream(&buf) })
	if err != nil {
		if errors.Is(ctx.Err(), context.Canceled) {
			return nil, ctx.Err()
		}
		// The blob went away between listing and reading: the next run
		// sees whatever is there then.
		base.failure = fmt.Sprintf("Could not read the blob: %v", err)
		return []item{base}, nil
	}
	docs, warn, perr := parseContent(s.cfg, buf.Bytes())
	if perr != nil {
		base.failure = perr.Error()
		return []item{base}, nil
	}
	base.warnings = append(base.warnings, warn...)
	if !s.cfg.oneToMany() {
		for k, v := range docs[0] {
			base.fields[k] = v
		}
		return []item{base}, nil
	}
	out := make([]item, 0, len(docs))
	for i, d := range docs {
		it := base
		it.oneToMany = true
		it.fields = make(map[string]any, len(meta)+len(d)+1)
		for k, v := range meta {
			it.fields[k] = v
		}
		for k, v := range d {
			it.fields[k] = v
		}
		it.fields["AzureSearch_DocumentKey"] = fmt.Sprintf("%s;%d", meta["metadata_storage_path"], i+1)
		it.name = it.fields["AzureSearch_DocumentKey"].(string)
		out = append(out, it)
	}
	return out, nil
}

// parseContent parses a blob's bytes by parsing mode into documents (one
// for default, text and json).
func parseContent(cfg *blobConfig, data []byte) (docs []map[string]any, warnings []string, err error) {
	switch cfg.parsingMode {
	case "default", "text":
		if !utf8.Valid(data) {
			return []map[string]any{{}}, []string{"The blob's content is not UTF-8 text; cerulean extracts text only from plain-text content, so only its metadata was indexed."}, nil
		}
		return []map[string]any{{"content": string(data)}}, nil, nil
	case "json":
		v, err := decodeJSON(data)
		if err != nil {
			return nil, nil, fmt.Errorf("the blob is not valid JSON: %w", err)
		}
		obj, ok := v.(map[string]any)
		if !ok {
			return nil, nil, errors.New("the blob's JSON is not an object; use the jsonArray parsing mode for an array")
		}
		return []map[string]any{obj}, nil, nil
	case "jsonArray":
		v, err := decodeJSON(data)
		if err != nil {
			return nil, nil, fmt.Errorf("the blob is not valid JSON: %w", err)
		}
		if cfg.documentRoot != "" {
			var ok bool
			if v, ok = lookupPath(v, cfg.documentRoot); !ok {
				return nil, nil, fmt.Errorf("the blob's JSON has nothing at the documentRoot '%s'", cfg.documentRoot)
			}
		}
		arr, ok := v.([]any)
		if !ok {
			return nil, nil, errors.New("the blob's JSON is not an array")
		}
		for i, e := range arr {
			obj, ok := e.(map[string]any)
			if !ok {
				return nil, nil, fmt.Errorf("element %d of the blob's JSON array is not an object", i)
			}
			docs = append(docs, obj)
		}
		return docs, nil, nil
	case "jsonLines":
		for i, line := range bytes.Split(data, []byte("\n")) {
			line = bytes.TrimSpace(line)
			if len(line) == 0 {
				continue
			}
			v, err := decodeJSON(line)
			if err != nil {
				return nil, nil, fmt.Errorf("line %d of the blob is not valid JSON: %w", i+1, err)
			}
			obj, ok := v.(map[string]any)
			if !ok {
				return nil, nil, fmt.Errorf("line %d of the blob is not a JSON object", i+1)
			}
			docs = append(docs, obj)
		}
		return docs, nil, nil
	case "delimitedText":
		r := csv.NewReader(bytes.NewReader(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))))
		r.Comma = cfg.delimiter
		r.FieldsPerRecord = -1
		headers := cfg.headers
		if cfg.firstLineHeaders {
			first, err := r.Read()
			if errors.Is(err, io.EOF) {
				return nil, nil, nil
			}
			if err != nil {
				return nil, nil, fmt.Errorf("the blob's header line is not delimited text: %w", err)
			}
			if len(headers) == 0 {
				headers = first
			}
		}
		for line := 1; ; line++ {
			rec, err := r.Read()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, nil, fmt.Errorf("the blob is not delimited text: %w", err)
			}
			doc := map[string]any{}
			for i, v := range rec {
				if i < len(headers) {
					doc[headers[i]] = v
				} else {
					warnings = append(warnings, fmt.Sprintf("Row %d has more values than there are headers; the extra values were ignored.", line))
					break
				}
			}
			docs = append(docs, doc)
		}
		return docs, warnings, nil
	}
	return nil, nil, fmt.Errorf("the parsing mode '%s' is not supported", cfg.parsingMode)
}

// decodeJSON decodes one JSON value, keeping numbers as written.
func decodeJSON(b []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("data after the JSON value")
	}
	return v, nil
}

// lookupPath follows a JSON pointer-like path ("/a/b/0") into v.
func lookupPath(v any, p string) (any, bool) {
	for _, seg := range strings.Split(strings.Trim(p, "/"), "/") {
		if seg == "" {
			continue
		}
		switch t := v.(type) {
		case map[string]any:
			x, ok := t[seg]
			if !ok {
				return nil, false
			}
			v = x
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(t) {
				return nil, false
			}
			v = t[i]
		default:
			return nil, false
		}
	}
	return v, true
}
