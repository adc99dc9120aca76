package file

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// parseSMBUpdate reads the SMB property headers of a change to an
// existing directory or file (Set Properties, Rename): an absent header
// or "preserve" keeps the value, "now" takes the request's time. The
// change time defaults to now when changeNow is set (Set Properties),
// and is kept otherwise.
func parseSMBUpdate(h http.Header, dir, changeNow bool) (SMBUpdate, error) {
	// parseSMB validates the values and reads what is set explicitly.
	c, err := parseSMB(h, dir)
	if err != nil {
		return SMBUpdate{}, err
	}
	var u SMBUpdate
	keep := func(name string) bool { v := h.Get(name); return v == "" || strings.EqualFold(v, "preserve") }
	switch v := strings.TrimSpace(h.Get("X-Ms-File-Attributes")); {
	case keep("x-ms-file-attributes"):
	case strings.EqualFold(v, "None") && dir:
		u.Attributes = "Directory"
	case strings.EqualFold(v, "None"):
		u.Attributes = "None"
	default:
		u.Attributes = c.Attributes
	}
	times := []struct {
		name string
		at   *TimeChange
		set  bool
	}{
		{"x-ms-file-creation-time", &u.CreationTime, false},
		{"x-ms-file-last-write-time", &u.LastWriteTime, false},
		{"x-ms-file-change-time", &u.ChangeTime, changeNow},
	}
	for _, tm := range times {
		v := h.Get(tm.name)
		switch {
		case v == "" && tm.set, strings.EqualFold(v, "now"):
			tm.at.Now = true
		case keep(tm.name):
		default:
			t, err := parseSMBTime(h, tm.name)
			if err != nil {
				return u, err
			}
			tm.at.At = t
		}
	}
	if v := h.Get("X-Ms-File-Permission"); v != "" && !strings.EqualFold(v, "preserve") {
		u.Permission = &c.Permission
	}
	u.PermissionKey, u.NFS = c.PermissionKey, c.NFS
	return u, nil
}

// errFileSizeOutOfRange answers a resize to a size no file may have.
var errFileSizeOutOfRange = azerr.ErrOutOfRangeInput.WithMessage("The file size exceeds the maximum permissible limit.")

func (h *handler) setFileProperties(q *request) error {
	var p FileProperties
	var err error
	if v := q.r.Header.Get("X-Ms-Content-Length"); v != "" {
		size, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return azerr.InvalidHeaderValue("x-ms-content-length", v).WithMessage("x-ms-content-length must be 0 to 4 TiB.")
		}
		// A size out of range is OutOfRangeInput, a negative one
		// included (the azfile recording TestFileResizeInvalidSizeNegative).
		if size < 0 || size > MaxFileSize {
			return errFileSizeOutOfRange
		}
		p.Size = &size
	}
	// A resize that names no content header keeps them: Azure still
	// reports the content type after the Python SDK's resize_file (the
	// recording test_resize_file). Otherwise an absent header clears its
	// property, as the REST reference says.
	if p.Size == nil || hasContentHeader(q.r.Header) {
		headers, err := parseContentHeaders(q.r.Header)
		if err != nil {
			return err
		}
		p.Headers = &headers
	}
	if p.SMB, err = parseSMBUpdate(q.r.Header, false, true); err != nil {
		return err
	}
	n, err := h.svc.SetFileProperties(q.ctx(), q.ref(), p, preconditions(q.r.Header))
	if err != nil {
		return err
	}
	writeNode(q.w.Header(), n)
	nfsDetails(q.w.Header(), n, false, true)
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}

func (h *handler) setDirectoryProperties(q *request) error {
	smb, err := parseSMBUpdate(q.r.Header, true, true)
	if err != nil {
		return err
	}
	n, err := h.svc.SetDirectoryProperties(q.ctx(), q.ref(), smb, preconditions(q.r.Header))
	if err != nil {
		return err
	}
	writeNode(q.w.Header(), n)
	return azhttp.WriteEmpty(q.w, http.StatusOK)
}
