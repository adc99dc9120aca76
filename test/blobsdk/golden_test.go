package blobsdk_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// TestGoldenXML drives the server with raw requests signed with Shared Key
// and compares the XML bodies of the listings (List Containers, List Blobs
// flat and hierarchical, Get Block List, Get Page Ranges) with the files in
// testdata/golden; -update rewrites them.
//
// A golden file holds the body re-indented token by token: element names,
// their order, attributes and text are compared exactly, whitespace between
// elements is not. Values that change from run to run are replaced with
// placeholders before the comparison (see volatile): ETags, dates, snapshot
// times and the service endpoint's port. Response headers, where request
// ids live, are not part of the files.
func TestGoldenXML(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	g := goldenClient{t: t, signer: f.signer(), base: f.env.BlobURL}

	g.do(http.StatusCreated, http.MethodPut, "gold-a?restype=container", map[string]string{"x-ms-meta-owner": "alice", "x-ms-meta-tier": "hot"}, nil)
	g.do(http.StatusCreated, http.MethodPut, "gold-b?restype=container", nil, nil)
	g.do(http.StatusCreated, http.MethodPut, "gold-c?restype=container", map[string]string{"x-ms-meta-owner": "carol"}, nil)
	g.do(http.StatusCreated, http.MethodPut, "other?restype=container", nil, nil)

	put := func(name, contentType string, meta map[string]string, body string) {
		h := map[string]string{"x-ms-blob-type": "BlockBlob", "Content-Type": contentType}
		for k, v := range meta {
			h["x-ms-meta-"+k] = v
		}
		g.do(http.StatusCreated, http.MethodPut, "gold-a/"+name, h, []byte(body))
	}
	put("a.txt", "text/plain", map[string]string{"color": "red"}, "alpha")
	put("dir/b.txt", "text/plain", nil, "bravo")
	put("dir/sub/c.txt", "application/octet-stream", map[string]string{"depth": "2"}, "charlie")
	put("dir2/d.txt", "text/plain", nil, "delta")
	// A blob with only uncommitted blocks is listed with include=uncommittedblobs.
	g.do(http.StatusCreated, http.MethodPut, "gold-a/staged?comp=block&blockid="+blockID(7), nil, []byte("not yet committed"))

	g.golden("list-containers", http.MethodGet, "?comp=list&prefix=gold-&maxresults=2&include=metadata")
	g.golden("list-blobs-flat", http.MethodGet, "gold-a?restype=container&comp=list&include=metadata,uncommittedblobs")
	g.golden("list-blobs-hierarchy", http.MethodGet, "gold-a?restype=container&comp=list&delimiter=/&include=metadata,uncommittedblobs")
	g.golden("list-blobs-hierarchy-dir", http.MethodGet, "gold-a?restype=container&comp=list&delimiter=/&prefix=dir/&include=metadata,uncommittedblobs")

	// Two committed blocks, then one staged after the commit.
	g.do(http.StatusCreated, http.MethodPut, "gold-a/blocks?comp=block&blockid="+blockID(0), nil, []byte("first"))
	g.do(http.StatusCreated, http.MethodPut, "gold-a/blocks?comp=block&blockid="+blockID(1), nil, []byte("second!"))
	g.do(http.StatusCreated, http.MethodPut, "gold-a/blocks?comp=blocklist", map[string]string{"Content-Type": "application/xml"},
		[]byte(blockListXML([2]string{"Latest", blockID(0)}, [2]string{"Latest", blockID(1)})))
	g.do(http.StatusCreated, http.MethodPut, "gold-a/blocks?comp=block&blockid="+blockID(2), nil, []byte("third, uncommitted"))
	g.golden("block-list-all", http.MethodGet, "gold-a/blocks?comp=blocklist&blocklisttype=all")

	// A 4 KiB page blob written at [0, 512) and [1024, 2048): two ranges
	// with a gap between them.
	g.do(http.StatusCreated, http.MethodPut, "gold-a/pages", map[string]string{"x-ms-blob-type": "PageBlob", "x-ms-blob-content-length": "4096"}, nil)
	g.do(http.StatusCreated, http.MethodPut, "gold-a/pages?comp=page", map[string]string{"x-ms-page-write": "update", "x-ms-range": "bytes=0-511"}, randBytes(1, 512))
	g.do(http.StatusCreated, http.MethodPut, "gold-a/pages?comp=page", map[string]string{"x-ms-page-write": "update", "x-ms-range": "bytes=1024-2047"}, randBytes(2, 1024))
	g.golden("page-ranges", http.MethodGet, "gold-a/pages?comp=pagelist")
}

// goldenClient sends signed requests to paths relative to the account URL.
type goldenClient struct {
	t      *testing.T
	signer testkit.Signer
	base   string
}

// do sends one request and stops the test unless it is answered with status.
func (g goldenClient) do(status int, method, path string, header map[string]string, body []byte) testkit.Response {
	g.t.Helper()
	r := g.signer.Send(g.t, testkit.Request{Method: method, URL: g.base + path, Header: header, Body: body})
	if r.StatusCode != status {
		g.t.Fatalf("%s %s: HTTP %d %q, want %d\n%s", method, path, r.StatusCode, r.Code, status, r.Body)
	}
	return r
}

// golden sends one request that must succeed with an XML body and compares
// the normalised body with testdata/golden/<name>.xml.
func (g goldenClient) golden(name, method, path string) {
	g.t.Helper()
	r := g.do(http.StatusOK, method, path, nil, nil)
	if ct := r.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/xml") {
		g.t.Errorf("%s %s: Content-Type %q, want application/xml", method, path, ct)
	}
	got, err := normaliseXML(r.Body)
	if err != nil {
		g.t.Fatalf("%s %s: %v\n%s", method, path, err, r.Body)
	}
	testkit.Golden(g.t, filepath.Join("testdata", "golden", name+".xml"), got, *update)
}

// volatile maps the elements whose text differs from run to run to the
// placeholder that stands for it in the golden files.
var volatile = map[string]string{
	"Etag":               "{etag}",
	"Last-Modified":      "{date}",
	"Creation-Time":      "{date}",
	"CopyCompletionTime": "{date}",
	"Snapshot":           "{snapshot}",
	"VersionId":          "{version}",
	"CopyId":             "{copy-id}",
}

// xmlNode is one element of a parsed document.
type xmlNode struct {
	name     string
	attrs    []xml.Attr
	text     string
	children []*xmlNode
}

// normaliseXML rewrites an XML document one element per line, indented,
// with the text of volatile elements replaced by placeholders, the host of
// a ServiceEndpoint attribute (a random port) replaced by {host}, and the
// children of each Metadata element sorted by name (the order of metadata
// names is unspecified).
func normaliseXML(body []byte) ([]byte, error) {
	dec := xml.NewDecoder(bytes.NewReader(body))
	var out bytes.Buffer
	var stack []*xmlNode
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("decode XML: %w", err)
		}
		switch tk := tok.(type) {
		case xml.ProcInst:
			fmt.Fprintf(&out, "<?%s %s?>\n", tk.Target, tk.Inst)
		case xml.StartElement:
			n := &xmlNode{name: tk.Name.Local, attrs: tk.Copy().Attr}
			if len(stack) > 0 {
				top := stack[len(stack)-1]
				top.children = append(top.children, n)
			}
			stack = append(stack, n)
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(tk)
			}
		case xml.EndElement:
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				writeNode(&out, n, 0)
			}
		}
	}
	return out.Bytes(), nil
}

func writeNode(out *bytes.Buffer, n *xmlNode, depth int) {
	indent := strings.Repeat("  ", depth)
	out.WriteString(indent + "<" + n.name)
	for _, a := range n.attrs {
		v := a.Value
		if a.Name.Local == "ServiceEndpoint" {
			v = endpointHost(v)
		}
		out.WriteString(" " + a.Name.Local + `="`)
		_ = xml.EscapeText(out, []byte(v))
		out.WriteString(`"`)
	}
	out.WriteString(">")
	if len(n.children) == 0 {
		text := n.text
		if p, ok := volatile[n.name]; ok && text != "" {
			if strings.HasPrefix(text, `"`) {
				p = `"` + p + `"` // quoting is part of the format: List Containers quotes ETags, List Blobs does not
			}
			text = p
		}
		_ = xml.EscapeText(out, []byte(text))
		out.WriteString("</" + n.name + ">\n")
		return
	}
	out.WriteString("\n")
	children := n.children
	if n.name == "Metadata" {
		children = append([]*xmlNode(nil), children...)
		sort.Slice(children, func(i, j int) bool { return children[i].name < children[j].name })
	}
	for _, c := range children {
		writeNode(out, c, depth+1)
	}
	out.WriteString(indent + "</" + n.name + ">\n")
}

// endpointHost replaces the host:port of a service endpoint URL with {host}.
func endpointHost(u string) string {
	scheme, rest, ok := strings.Cut(u, "://")
	if !ok {
		return u
	}
	_, path, _ := strings.Cut(rest, "/")
	return scheme + "://{host}/" + path
}
