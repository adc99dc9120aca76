package azhttp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"runtime/debug"
	"sync/atomic"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
)

// DefaultVersion is the x-ms-version cerulean answers requests that did not
// name one (anonymous browser GETs, for example).
const DefaultVersion = "2026-06-06"

// Wrap returns h wrapped with the plumbing every service shares: request
// ids, x-ms-version validation and echo, Date and Server headers, panic
// recovery, one log line per request, and CORS when cors is non-nil.
// errorWriter (WriteError or WriteErrorJSON) renders the errors Wrap itself
// produces.
func Wrap(service string, logger *slog.Logger, cors CORSSource, errorWriter func(http.ResponseWriter, *http.Request, error), h http.Handler) http.Handler {
	if logger == nil {
		logger = slog.Default()
	}
	if errorWriter == nil {
		errorWriter = WriteError
	}
	preflight := PreflightOperation(service)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		id := newRequestID()
		ctx := context.WithValue(r.Context(), requestIDKey, id)
		ctx = context.WithValue(ctx, loggerKey, logger)
		failure := &errorNote{}
		ctx = context.WithValue(ctx, errorNoteKey{}, failure)
		r = r.WithContext(ctx)
		rec := &recorder{ResponseWriter: w}

		hdr := w.Header()
		hdr.Set("X-Ms-Request-Id", id)
		if cid := r.Header.Get("X-Ms-Client-Request-Id"); cid != "" {
			hdr.Set("X-Ms-Client-Request-Id", cid)
		}
		hdr.Set("Server", "cerulean")
		hdr.Set("Date", httpDate(start))

		defer func() {
			if info, ok := ctx.Value(requestInfoKey{}).(*RequestInfo); ok {
				info.Status = rec.statusCode()
			}
			if !logger.Enabled(ctx, slog.LevelInfo) {
				return
			}
			attrs := []slog.Attr{
				slog.String("service", service),
				slog.String("method", r.Method),
				slog.String("path", r.URL.Path),
				slog.Int("status", rec.statusCode()),
				slog.Int64("bytes", rec.bytes),
				slog.Duration("duration", time.Since(start)),
				slog.String("request_id", id)}
			if failure.code != "" {
				attrs = append(attrs, slog.String("error_code", failure.code))
				if rec.statusCode() == http.StatusForbidden {
					attrs = append(attrs, slog.String("reason", failure.message))
				}
			}
			logger.LogAttrs(ctx, slog.LevelInfo, "request", attrs...)
		}()
		defer func() {
			p := recover()
			if p == nil {
				return
			}
			if err, ok := p.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				panic(p) // the server's own signal to drop the connection
			}
			logger.ErrorContext(ctx, "panic serving request", "panic", p, "stack", string(debug.Stack()), "request_id", id)
			if !rec.wroteHeader {
				errorWriter(rec, r, azerr.ErrInternalError)
			}
		}()

		// CORS comes first so that even version errors carry the headers a
		// browser needs to show them to the page.
		if cors != nil && (r.Header.Get("Origin") != "" || r.Method == http.MethodOptions) && applyCORS(rec, r, cors, preflight, errorWriter) {
			return
		}
		v := r.Header.Get("X-Ms-Version")
		switch {
		case v == "" && azauth.ValidVersion(r.URL.Query().Get("sv")):
			// A shared access signature's version is the request's when
			// it names none (the Go SDK's recording
			// go-storage-BlobSASURISuite-TestBlobSASURICorrectness).
			hdr.Set("X-Ms-Version", r.URL.Query().Get("sv"))
		case v == "":
			hdr.Set("X-Ms-Version", DefaultVersion)
		case !azauth.ValidVersion(v):
			hdr.Set("X-Ms-Version", DefaultVersion)
			errorWriter(rec, r, azerr.InvalidHeaderValue("x-ms-version", v))
			return
		default:
			hdr.Set("X-Ms-Version", v)
		}
		h.ServeHTTP(rec, r)
	})
}

// httpDate is t's Date header value. It changes once a second, so the
// last one formatted is kept rather than formatted for every response.
func httpDate(t time.Time) string {
	sec := t.Unix()
	if d := lastDate.Load(); d != nil && d.sec == sec {
		return d.text
	}
	d := &dateText{sec: sec, text: t.UTC().Format(http.TimeFormat)}
	lastDate.Store(d)
	return d.text
}

type dateText struct {
	sec  int64
	text string
}

var lastDate atomic.Pointer[dateText]

// recorder remembers what was written, for the log line and for panics
// after the header went out, and lets CORS add headers at the last moment.
type recorder struct {
	http.ResponseWriter
	status      int
	bytes       int64
	wroteHeader bool
	beforeWrite func(http.Header)
}

func (rw *recorder) WriteHeader(code int) {
	if rw.wroteHeader {
		return
	}
	// 1xx responses are interim; the real header comes later.
	if code >= 100 && code < 200 {
		rw.ResponseWriter.WriteHeader(code)
		return
	}
	rw.wroteHeader = true
	rw.status = code
	if rw.beforeWrite != nil {
		rw.beforeWrite(rw.Header())
	}
	AzureHeaderCase(rw.Header())
	rw.ResponseWriter.WriteHeader(code)
}

func (rw *recorder) Write(p []byte) (int, error) {
	if !rw.wroteHeader {
		rw.WriteHeader(http.StatusOK)
	}
	n, err := rw.ResponseWriter.Write(p)
	rw.bytes += int64(n)
	return n, err
}

// ReadFrom keeps the underlying writer's fast path (sendfile) for io.Copy.
func (rw *recorder) ReadFrom(src io.Reader) (int64, error) {
	if !rw.wroteHeader {
		rw.WriteHeader(http.StatusOK)
	}
	n, err := io.Copy(rw.ResponseWriter, src)
	rw.bytes += n
	return n, err
}

// Flush lets streaming handlers (downloads, list pages) push data early.
func (rw *recorder) Flush() {
	if !rw.wroteHeader {
		rw.WriteHeader(http.StatusOK)
	}
	if f, ok := rw.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// Unwrap exposes the underlying writer to http.ResponseController.
func (rw *recorder) Unwrap() http.ResponseWriter { return rw.ResponseWriter }

func (rw *recorder) statusCode() int {
	if !rw.wroteHeader {
		return http.StatusOK
	}
	return rw.status
}
