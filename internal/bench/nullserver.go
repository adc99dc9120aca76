package bench

import (
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// NullHandler is the ceiling a storage server can reach on this machine:
// it does no work beyond reading the request and giving each request shape
// the canned answer the real service would give and the SDKs accept:
//   - Blob: the status for the method; for reads a 1 KiB body, or as many
//     bytes as the blob's upload carried when that was larger (blob-get-8m);
//     List Blobs an EnumerationResults page of as many names as blobs were
//     put into the container (pages of 5,000, rendered once and reused);
//     the blob "counter" holds the number of conditional writes it took,
//     with that number as its ETag: an If-Match write succeeds only on the
//     current ETag (one compare-and-swap) and is refused with 412 otherwise,
//     as the real service does, so that blob-cond-update's no-lost-update
//     check holds and its conflicts happen.
//   - Table: a fixed entity for a point GET, a fixed page of 1,000 entities
//     for a query, a one-change batch response for $batch, 204 for updates.
//   - Queue: a QueueMessagesList with one message for Get Messages, 204 for
//     Delete Message.
//
// Its only state is an atomic counter per container and per conditional
// blob, and the size of blobs uploaded larger than 1 KiB.
func NullHandler() http.Handler {
	n := &nullServer{body: make([]byte, 1<<10), big: make([]byte, 1<<20)}
	n.tableQuery = tableQueryPage(partitionEntities)
	return n
}

type nullServer struct {
	body, big  []byte
	tableQuery []byte
	sizes      sync.Map // blob path → int64, for uploads larger than body
	counts     sync.Map // container path or conditional blob path → *atomic.Int64
	pages      sync.Map // "blobs/start" → rendered List Blobs page
}

const (
	nullTime        = "Sun, 22 Nov 2026 00:00:00 GMT"
	nullListPage    = 5000
	nullBatchResult = "--batchresponse_0\r\nContent-Type: multipart/mixed; boundary=changesetresponse_0\r\n\r\n" +
		"--changesetresponse_0\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
		"HTTP/1.1 204 No Content\r\nDataServiceVersion: 3.0;\r\n\r\n\r\n--changesetresponse_0--\r\n--batchresponse_0--\r\n"
	nullTableEntity = `{"odata.metadata":"http://127.0.0.1/devstoreaccount1/$metadata#t/@Element",` +
		`"PartitionKey":"p","RowKey":"1","Timestamp":"2026-11-22T00:00:00Z","Value":1,"Name":"entity 1"}`
	nullQueueMessages = `<?xml version="1.0" encoding="utf-8"?><QueueMessagesList><QueueMessage>` +
		`<MessageId>00000000-0000-0000-0000-000000000001</MessageId><InsertionTime>` + nullTime + `</InsertionTime>` +
		`<ExpirationTime>` + nullTime + `</ExpirationTime><PopReceipt>AgAAAAMAAAAAAAAA</PopReceipt>` +
		`<TimeNextVisible>` + nullTime + `</TimeNextVisible><DequeueCount>1</DequeueCount>` +
		`<MessageText>` + message + `</MessageText></QueueMessage></QueueMessagesList>`
)

func (n *nullServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	// Read the body first: answering before it is consumed makes the
	// SDK free its upload buffers while the transport still sends them.
	_, _ = io.Copy(io.Discard, r.Body)
	h := w.Header()
	h.Set("X-Ms-Request-Id", "00000000-0000-0000-0000-000000000000")
	h.Set("X-Ms-Version", "2026-06-06")
	h.Set("Etag", `"0x1"`)
	h.Set("Last-Modified", nullTime)
	switch {
	case r.Header.Get("Dataserviceversion") != "" || strings.Contains(r.Header.Get("Accept"), "odata"):
		n.table(w, r)
	case strings.HasSuffix(r.URL.Path, "/messages") || r.URL.Query().Has("popreceipt"):
		n.queue(w, r)
	default:
		n.blob(w, r)
	}
}

func reply(w http.ResponseWriter, status int, contentType string, body []byte) {
	h := w.Header()
	if contentType != "" {
		h.Set("Content-Type", contentType)
	}
	h.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	if len(body) > 0 {
		_, _ = w.Write(body)
	}
}

func (n *nullServer) table(w http.ResponseWriter, r *http.Request) {
	const jsonType = "application/json;odata=minimalmetadata;streaming=true;charset=utf-8"
	switch r.Method {
	case http.MethodPost:
		if strings.HasSuffix(r.URL.Path, "/$batch") {
			reply(w, http.StatusAccepted, "multipart/mixed; boundary=batchresponse_0", []byte(nullBatchResult))
			return
		}
		reply(w, http.StatusCreated, "", nil)
	case http.MethodGet:
		if strings.Contains(r.URL.Path, "(PartitionKey=") {
			reply(w, http.StatusOK, jsonType, []byte(nullTableEntity))
			return
		}
		reply(w, http.StatusOK, jsonType, n.tableQuery)
	default: // PUT, MERGE, PATCH, DELETE of an entity or table
		reply(w, http.StatusNoContent, "", nil)
	}
}

// tableQueryPage is a query answer of entities rows in partition "part",
// as table-partition-query reads it.
func tableQueryPage(entities int) []byte {
	var b strings.Builder
	b.WriteString(`{"odata.metadata":"http://127.0.0.1/devstoreaccount1/$metadata#t","value":[`)
	for i := range entities {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `{"PartitionKey":"part","RowKey":"%05d","Timestamp":"2026-11-22T00:00:00Z","Value":%d,"Name":"entity %05d"}`, i, i, i)
	}
	b.WriteString("]}")
	return []byte(b.String())
}

func (n *nullServer) queue(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet:
		reply(w, http.StatusOK, "application/xml", []byte(nullQueueMessages))
	case http.MethodDelete:
		reply(w, http.StatusNoContent, "", nil)
	default:
		reply(w, http.StatusCreated, "", nil)
	}
}

func (n *nullServer) counter(key string) *atomic.Int64 {
	if c, ok := n.counts.Load(key); ok {
		return c.(*atomic.Int64)
	}
	c, _ := n.counts.LoadOrStore(key, new(atomic.Int64))
	return c.(*atomic.Int64)
}

func (n *nullServer) blob(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	container := path[:max(strings.LastIndexByte(path, '/'), 0)]
	isCounter := strings.HasSuffix(path, "/counter")
	switch r.Method {
	case http.MethodPut, http.MethodPost:
		if r.Header.Get("X-Ms-Blob-Type") != "" {
			switch {
			case isCounter && r.Header.Get("If-Match") != "":
				c := n.counter(path)
				old, err := strconv.ParseInt(strings.Trim(r.Header.Get("If-Match"), `"`), 10, 64)
				if err != nil || !c.CompareAndSwap(old, old+1) {
					w.Header().Set("X-Ms-Error-Code", "ConditionNotMet")
					reply(w, http.StatusPreconditionFailed, "", nil)
					return
				}
				w.Header().Set("Etag", strconv.Quote(strconv.FormatInt(old+1, 10)))
			case isCounter:
				n.counter(path) // created at 0
			case r.ContentLength > int64(len(n.body)):
				n.sizes.Store(path, r.ContentLength)
			}
			n.counter(container).Add(1)
		}
		reply(w, http.StatusCreated, "", nil)
	case http.MethodDelete:
		reply(w, http.StatusAccepted, "", nil)
	case http.MethodGet, http.MethodHead:
		q := r.URL.Query()
		if r.Method == http.MethodGet && q.Get("comp") == "list" && q.Get("restype") == "container" {
			start, _ := strconv.Atoi(q.Get("marker"))
			reply(w, http.StatusOK, "application/xml", n.listPage(path, start))
			return
		}
		if isCounter {
			v := strconv.FormatInt(n.counter(path).Load(), 10)
			body := []byte(v)
			w.Header().Set("Etag", strconv.Quote(v))
			if r.Method == http.MethodHead {
				body = nil
			}
			w.Header().Set("X-Ms-Blob-Type", "BlockBlob")
			reply(w, http.StatusOK, "application/octet-stream", body)
			return
		}
		size := int64(len(n.body))
		if s, ok := n.sizes.Load(path); ok {
			size = s.(int64)
		}
		h := w.Header()
		h.Set("Content-Length", strconv.FormatInt(size, 10))
		h.Set("X-Ms-Blob-Type", "BlockBlob")
		w.WriteHeader(http.StatusOK)
		if r.Method == http.MethodHead {
			return
		}
		for size > 0 {
			chunk := n.big[:min(size, int64(len(n.big)))]
			if _, err := w.Write(chunk); err != nil {
				return
			}
			size -= int64(len(chunk))
		}
	default:
		reply(w, http.StatusOK, "", nil)
	}
}

// listPage renders (once per container size and marker) the List Blobs
// page from start over as many blobs as were put into the container.
func (n *nullServer) listPage(container string, start int) []byte {
	blobs := int(n.counter(container).Load())
	key := strconv.Itoa(blobs) + "/" + strconv.Itoa(start)
	if p, ok := n.pages.Load(key); ok {
		return p.([]byte)
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><EnumerationResults ServiceEndpoint="http://127.0.0.1/" ContainerName="c">`)
	fmt.Fprintf(&b, "<MaxResults>%d</MaxResults><Blobs>", nullListPage)
	end := min(blobs, start+nullListPage)
	for i := start; i < end; i++ {
		fmt.Fprintf(&b, "<Blob><Name>item-%06d</Name><Properties><Last-Modified>%s</Last-Modified><Etag>0x1</Etag>"+
			"<Content-Length>1</Content-Length><BlobType>BlockBlob</BlobType></Properties></Blob>", i, nullTime)
	}
	b.WriteString("</Blobs>")
	if end < blobs {
		fmt.Fprintf(&b, "<NextMarker>%d</NextMarker>", end)
	} else {
		b.WriteString("<NextMarker/>")
	}
	b.WriteString("</EnumerationResults>")
	p, _ := n.pages.LoadOrStore(key, []byte(b.String()))
	return p.([]byte)
}
