package smb

import (
	"strings"

	"github.com/cerulean-db/cerulean/internal/file"
)

// Directory information classes (MS-FSCC 2.4) and QUERY_DIRECTORY flags.
const (
	fileDirectoryInformation       = 1
	fileFullDirectoryInformation   = 2
	fileBothDirectoryInformation   = 3
	fileNamesInformation           = 12
	fileIDBothDirectoryInformation = 37
	fileIDFullDirectoryInformation = 38

	queryRestart     = 0x01
	querySingleEntry = 0x02
	queryReopen      = 0x10
)

// enumPage is how many entries one read of the file model fetches.
const enumPage = 256

// enumState is where an open directory's enumeration stands.
type enumState struct {
	pattern string
	dots    int          // "." and ".." given so far
	queue   []file.Entry // fetched, not yet returned
	marker  string       // where the next fetch starts
	fetched bool         // a fetch happened (marker "" then means the end)
	sent    bool         // an entry was returned
}

// queryDirectory answers QUERY_DIRECTORY: entries whose names match the
// pattern (* and ? wildcards, case-insensitive as on Windows), "." and
// ".." first, in name order, as many as the output buffer holds.
func (c *conn) queryDirectory(r *request) response {
	b := r.b
	class, flags := b.u8(2), b.u8(3)
	id := b.fileID(8)
	nameOff, nameLen := b.u16(24), b.u16(26)
	outLen := b.u32(28)
	name := b.buffer(uint32(nameOff), uint32(nameLen))
	if b.bad {
		return errResp(statusInvalidParameter)
	}
	switch class {
	case fileDirectoryInformation, fileFullDirectoryInformation, fileBothDirectoryInformation, fileNamesInformation,
		fileIDBothDirectoryInformation, fileIDFullDirectoryInformation:
	default:
		return errResp(statusInvalidInfoClass)
	}
	o, st := c.lookup(r, id)
	if o == nil {
		return errResp(st)
	}
	if !o.dir {
		return errResp(statusInvalidParameter)
	}
	pattern := fromUTF16LE(name)
	if pattern == "" {
		pattern = "*"
	}
	s := r.sess
	s.mu.Lock()
	e := o.enum
	if e == nil || flags&(queryRestart|queryReopen) != 0 {
		e = &enumState{pattern: strings.ToLower(pattern)}
		o.enum = e
	}
	s.mu.Unlock()
	ctx, cancel := c.opCtx()
	defer cancel()
	var out buf
	last := -1 // offset of the last entry written
	for {
		var entry file.Entry
		switch {
		case e.dots < 2:
			dot := []string{".", ".."}[e.dots]
			e.dots++
			if !match(e.pattern, dot) {
				continue
			}
			_, n, err := c.srv.files.HandleInfo(ctx, o.handle(s.account))
			if err != nil {
				return c.gone(r, o, err)
			}
			entry = file.Entry{Name: dot, Node: n}
		case len(e.queue) > 0:
			entry, e.queue = e.queue[0], e.queue[1:]
			if !match(e.pattern, strings.ToLower(entry.Name)) {
				continue
			}
		case !e.fetched || e.marker != "":
			_, entries, next, err := c.srv.files.ListHandleDirectory(ctx, o.handle(s.account), e.marker, enumPage)
			if err != nil {
				return c.gone(r, o, err)
			}
			e.queue, e.marker, e.fetched = entries, next, true
			continue
		}
		if entry.Node == nil {
			break // the end
		}
		enc := dirEntry(class, entry)
		start := len(out.b)
		if last >= 0 {
			start = (start + 7) &^ 7
		}
		if uint32(start+len(enc)) > outLen {
			if last < 0 {
				return errResp(statusBufferTooSmall)
			}
			e.queue = append([]file.Entry{entry}, e.queue...) // for the next query
			if entry.Name == "." || entry.Name == ".." {
				e.queue, e.dots = e.queue[1:], e.dots-1
			}
			break
		}
		out.align(8)
		if last >= 0 {
			le.PutUint32(out.b[last:], uint32(start-last))
		}
		last = start
		out.raw(enc)
		e.sent = true
		if flags&querySingleEntry != 0 {
			break
		}
	}
	if last < 0 {
		if !e.sent {
			return errResp(statusNoSuchFile)
		}
		return errResp(statusNoMoreFiles)
	}
	var w buf
	w.u16(9)
	w.u16(headerSize + 8)
	w.u32(uint32(len(out.b)))
	w.raw(out.b)
	return response{body: w.b}
}

// dirEntry encodes one entry (NextEntryOffset left 0).
func dirEntry(class uint8, e file.Entry) []byte {
	n := e.Node
	name := utf16le(e.Name)
	var w buf
	w.u32(0)
	w.u32(0) // FileIndex
	if class == fileNamesInformation {
		w.u32(uint32(len(name)))
		w.raw(name)
		return w.b
	}
	w.times(n)
	w.u64(endOfFile(n))
	w.u64(allocation(n))
	w.u32(attrBits(n))
	w.u32(uint32(len(name)))
	switch class {
	case fileFullDirectoryInformation:
		w.u32(0)
	case fileIDFullDirectoryInformation:
		w.u32(0)
		w.u32(0)
		w.u64(n.ID)
	case fileBothDirectoryInformation:
		w.u32(0)
		w.zero(26) // no 8.3 short name
	case fileIDBothDirectoryInformation:
		w.u32(0)
		w.zero(26)
		w.u16(0)
		w.u64(n.ID)
	}
	w.raw(name)
	return w.b
}

// match reports whether name matches a Windows wildcard pattern: *
// matches any run of characters, ? any one; both are lower-cased.
func match(pattern, name string) bool {
	if pattern == "*" || pattern == "*.*" && name != "" {
		return true
	}
	p, s := []rune(pattern), []rune(name)
	pi, si := 0, 0
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(p) && (p[pi] == '?' || p[pi] == '>' || p[pi] == s[si]):
			pi++
			si++
		case pi < len(p) && (p[pi] == '*' || p[pi] == '<'):
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(p) && (p[pi] == '*' || p[pi] == '<' || p[pi] == '"' || p[pi] == '>') {
		pi++
	}
	return pi == len(p)
}
