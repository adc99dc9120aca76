package azhttp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// errorTimeFormat is the seven-digit fraction Azure prints after "Time:".
const errorTimeFormat = "2006-01-02T15:04:05.0000000Z"

// WriteError writes err as Azure's XML error document. An *Error found with
// errors.As decides status and code; anything else is logged and answered
// with 500 InternalError so internals never leak to clients.
func WriteError(w http.ResponseWriter, r *http.Request, err error) {
	e, msg := prepareError(w, r, err)
	if e == nil {
		return
	}
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><Error><Code>`)
	b.WriteString(xmlEscape(e.Code))
	b.WriteString("</Code><Message>")
	b.WriteString(xmlEscape(msg))
	b.WriteString("</Message>")
	for _, d := range e.Details {
		b.WriteString("<" + d.Name + ">")
		b.WriteString(xmlEscape(d.Value))
		b.WriteString("</" + d.Name + ">")
	}
	b.WriteString("</Error>")
	finishError(w, r, e.Status, "application/xml", b.Bytes())
}

// WriteErrorJSON writes err in the Table service's OData JSON error form.
func WriteErrorJSON(w http.ResponseWriter, r *http.Request, err error) {
	WriteErrorJSONAs(w, r, err, "application/json;odata=minimalmetadata;streaming=true;charset=utf-8")
}

// WriteErrorJSONAs is WriteErrorJSON with the answer's Content-Type given:
// the Table service labels an error with the metadata level the request
// asked for.
func WriteErrorJSONAs(w http.ResponseWriter, r *http.Request, err error, contentType string) {
	e, msg := prepareError(w, r, err)
	if e == nil {
		return
	}
	type odataMessage struct {
		Lang  string `json:"lang"`
		Value string `json:"value"`
	}
	type odataError struct {
		Code    string       `json:"code"`
		Message odataMessage `json:"message"`
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	// Encoding plain strings cannot fail.
	_ = enc.Encode(map[string]odataError{"odata.error": {Code: e.Code, Message: odataMessage{Lang: "en-US", Value: msg}}})
	finishError(w, r, e.Status, contentType, bytes.TrimSuffix(b.Bytes(), []byte("\n")))
}

// WriteErrorODataXML writes err in OData's XML error form, which the Table
// service answers on its XML operations (service properties, table ACLs):
// <m:error> holding <m:code> and <m:message xml:lang="en-US">, no details.
func WriteErrorODataXML(w http.ResponseWriter, r *http.Request, err error) {
	e, msg := prepareError(w, r, err)
	if e == nil {
		return
	}
	var b bytes.Buffer
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><m:error xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"><m:code>`)
	b.WriteString(xmlEscape(e.Code))
	b.WriteString(`</m:code><m:message xml:lang="en-US">`)
	b.WriteString(xmlEscape(msg))
	b.WriteString("</m:message></m:error>")
	finishError(w, r, e.Status, "application/xml", b.Bytes())
}

// prepareError resolves err to an *Error, sets the headers every error
// response carries, and returns the message with Azure's RequestId/Time
// trailer. It returns nil when err is nil (nothing to write).
func prepareError(w http.ResponseWriter, r *http.Request, err error) (*azerr.Error, string) {
	if err == nil {
		return nil, ""
	}
	e := resolveError(r, err)
	h := w.Header()
	// Content headers a handler set before failing describe a body that is
	// not going to be sent; a stale Content-Length would even break the write.
	// ETag and Last-Modified stay: a 304 must carry them. So does a 416's
	// Content-Range ("bytes */size"): it describes the resource, not the body.
	for k := range h {
		keep := k == "Content-Range" && e.Status == http.StatusRequestedRangeNotSatisfiable
		if strings.HasPrefix(k, "Content-") && !keep {
			delete(h, k)
		}
	}
	h.Set("X-Ms-Error-Code", e.Code)
	if note, ok := r.Context().Value(errorNoteKey{}).(*errorNote); ok {
		note.code, note.message = e.Code, e.Message
		for _, d := range e.Details {
			note.message += " " + d.Name + ": " + d.Value
		}
	}
	id := RequestID(r.Context())
	if id == "" {
		id = h.Get("X-Ms-Request-Id")
	}
	msg := e.Message + "\nRequestId:" + id + "\nTime:" + time.Now().UTC().Format(errorTimeFormat)
	return e, msg
}

func finishError(w http.ResponseWriter, r *http.Request, status int, contentType string, body []byte) {
	// HEAD responses and 304 cannot carry a body; SDKs read x-ms-error-code.
	if r.Method == http.MethodHead || status == http.StatusNotModified {
		w.WriteHeader(status)
		return
	}
	w.Header().Set("Content-Type", contentType)
	w.Header().Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(status)
	_, _ = w.Write(body) // the client is gone if this fails; nothing to do
}

func resolveError(r *http.Request, err error) *azerr.Error {
	var e *azerr.Error
	if errors.As(err, &e) && e != nil {
		return e
	}
	ctx := r.Context()
	log := loggerFrom(ctx)
	if se := azerr.StoreError(ctx, err); se != nil {
		if azerr.ClassifyStore(err) == azerr.RequestCanceled {
			// Not the server's fault: keep the log quiet.
			log.DebugContext(ctx, "request abandoned", "err", err, "request_id", RequestID(ctx))
		} else {
			log.WarnContext(ctx, "store failure", "err", err, "request_id", RequestID(ctx))
		}
		return se
	}
	log.ErrorContext(ctx, "internal error", "err", err, "request_id", RequestID(ctx))
	return azerr.ErrInternalError
}

// xmlEscape escapes text for an XML element, keeping newlines literal (Azure
// writes them that way) and replacing characters XML 1.0 cannot carry.
func xmlEscape(s string) string {
	var b strings.Builder
	for _, c := range s {
		switch {
		case c == '&':
			b.WriteString("&amp;")
		case c == '<':
			b.WriteString("&lt;")
		case c == '>':
			b.WriteString("&gt;")
		case c == '\n' || c == '\r' || c == '\t' || (c >= 0x20 && c != 0xFFFE && c != 0xFFFF && (c < 0xD800 || c > 0xDFFF)):
			b.WriteRune(c)
		default:
			b.WriteRune('\uFFFD')
		}
	}
	return b.String()
}

// loggerFrom returns the logger Wrap stored in ctx, so error paths log to the
// same place as the request line.
func loggerFrom(ctx context.Context) *slog.Logger {
	if l, ok := ctx.Value(loggerKey).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// errorNote is the error a request was answered with, for Wrap's log
// line: a 403 says there why it was refused (which signature field,
// which permission), as the answer's message does.
type errorNote struct{ code, message string }

type errorNoteKey struct{}
