package file

import (
	"cmp"
	"context"
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// ListedHandle is one handle of List Handles, with the path of the node
// it is open on.
type ListedHandle struct {
	Path string
	*Handle
}

// HandleList is one page of List Handles.
type HandleList struct {
	Handles []ListedHandle
	// NextMarker is where the next page starts, "" at the end.
	NextMarker string
}

// forceCloseBatch is how many handles one Force Close Handles call closes
// in its transaction; it answers a marker for the rest.
const forceCloseBatch = 1000

// handlePos is a handle's place in a listing: walks visit nodes depth
// first in name order (a directory before its entries) and each node's
// handles in ID order. A marker is the position of the first handle of
// the next page, so a page resumes correctly even when that handle has
// closed in between.
type handlePos struct {
	path string
	id   uint64
}

func (p handlePos) marker() string { return strconv.FormatUint(p.id, 10) + ":" + p.path }

func parseHandleMarker(m string) (*handlePos, error) {
	if m == "" {
		return nil, nil
	}
	id, path, ok := strings.Cut(m, ":")
	n, err := strconv.ParseUint(id, 10, 64)
	if !ok || err != nil {
		return nil, azerr.ErrInvalidQueryParameterValue.WithMessage("The marker %q was not returned by this server.", m)
	}
	return &handlePos{path: path, id: n}, nil
}

// compare orders positions as walks visit them: a directory's entries in
// the order of their names' folds.
func (p handlePos) compare(q handlePos) int {
	a, b := splitElems(nameKey(p.path)), splitElems(nameKey(q.path))
	for i := range min(len(a), len(b)) {
		if c := strings.Compare(a[i], b[i]); c != 0 {
			return c
		}
	}
	return cmp.Or(cmp.Compare(len(a), len(b)), cmp.Compare(p.id, q.id))
}

func splitElems(path string) []string {
	if path == "" {
		return nil
	}
	return strings.Split(path, "/")
}

// errStopWalk ends a walk early; it never leaves walkHandles.
var errStopWalk = errors.New("stop walk")

// walkHandles visits the handles open on path (a directory or a file,
// "" the root) and, when recursive, on everything beneath a directory.
// Delete-pending nodes are walked too: their handles are exactly what an
// administrator lists and force-closes.
func (t *Tx) walkHandles(acct, share, path string, recursive bool, fn func(path string, h *Handle, l *located) error) error {
	l, err := t.locate(acct, share, path)
	if err != nil {
		return err
	}
	if l.node == nil {
		return azerr.ErrResourceNotFound
	}
	err = t.walkNode(acct, share, path, l, recursive, fn)
	if errors.Is(err, errStopWalk) {
		return nil
	}
	return err
}

func (t *Tx) walkNode(acct, share, path string, l *located, recursive bool, fn func(string, *Handle, *located) error) error {
	hs, err := t.handlesOf(acct, share, l.node.ID)
	if err != nil {
		return err
	}
	for _, h := range hs {
		if err := fn(path, h, l); err != nil {
			return err
		}
	}
	if !recursive || !l.node.Dir {
		return nil
	}
	var kids []Entry
	if _, err := pageEntries(t.r, childrenPrefix(acct, share, l.node.ID), "", "", math.MaxInt, func(n *Node) {
		kids = append(kids, Entry{n.Name, n})
	}); err != nil {
		return err
	}
	for _, k := range kids {
		p := k.Name
		if path != "" {
			p = path + "/" + k.Name
		}
		kl := &located{key: nodeKey(acct, share, l.node.ID, k.Name), entry: nodeKey(acct, share, l.node.ID, k.Name), parentID: l.node.ID, node: k.Node}
		if err := t.walkNode(acct, share, p, kl, recursive, fn); err != nil {
			return err
		}
	}
	return nil
}

// ListHandles lists up to o.Max handles open on ref's path and, when o.Recursive,
// beneath it, from o.Marker on.
func (s *Service) ListHandles(ctx context.Context, ref Ref, o ListHandlesOptions) (*HandleList, error) {
	acct, share, path, recursive, marker, max := ref.Account, ref.Share, ref.Path, o.Recursive, o.Marker, o.Max
	from, err := parseHandleMarker(marker)
	if err != nil {
		return nil, err
	}
	var out *HandleList
	err = s.view(ctx, func(t *Tx) error {
		out = &HandleList{}
		return t.walkHandles(acct, share, path, recursive, func(p string, h *Handle, _ *located) error {
			pos := handlePos{p, h.ID}
			if from != nil && pos.compare(*from) < 0 {
				return nil
			}
			if len(out.Handles) == max {
				out.NextMarker = pos.marker()
				return errStopWalk
			}
			out.Handles = append(out.Handles, ListedHandle{p, h})
			return nil
		})
	})
	return out, err
}

// ForceClosed is what Force Close Handles reports.
type ForceClosed struct {
	Closed int
	// NextMarker is where a further call resumes, "" when done.
	NextMarker string
}

// ForceCloseHandles closes the handle o.HandleID names (every handle when
// it is nil) open on ref's path and, when o.Recursive, beneath it, from
// o.Marker on. A
// handle ID that is not open closes nothing. Force-closing the last
// handle of a delete-pending node does not delete it: it stays, no longer
// pending (Azure: force-closing a delete-on-close handle "might not cause
// the file to be deleted").
func (s *Service) ForceCloseHandles(ctx context.Context, ref Ref, o ForceCloseOptions) (*ForceClosed, error) {
	acct, share, path, id, recursive, marker := ref.Account, ref.Share, ref.Path, o.HandleID, o.Recursive, o.Marker
	from, err := parseHandleMarker(marker)
	if err != nil {
		return nil, err
	}
	var out *ForceClosed
	err = s.Update(ctx, func(t *Tx) error {
		out = &ForceClosed{}
		if recursive {
			// Recursion applies to directories only; Azure refuses it on a
			// file with 400.
			l, err := t.locate(acct, share, path)
			if err != nil {
				return err
			}
			if l.node != nil && !l.node.Dir {
				return azerr.InvalidHeaderValue("x-ms-recursive", "true").WithMessage("x-ms-recursive is valid only for directories.")
			}
		}
		type target struct {
			h *Handle
			l *located
		}
		var targets []target
		err := t.walkHandles(acct, share, path, recursive, func(p string, h *Handle, l *located) error {
			pos := handlePos{p, h.ID}
			switch {
			case from != nil && pos.compare(*from) < 0, id != nil && h.ID != *id:
				return nil
			case len(targets) == forceCloseBatch:
				out.NextMarker = pos.marker()
				return errStopWalk
			}
			targets = append(targets, target{h, l})
			if id != nil {
				return errStopWalk
			}
			return nil
		})
		if err != nil {
			return err
		}
		for _, tg := range targets {
			if err := t.closeHandle(acct, share, tg.h, tg.l, false); err != nil {
				return err
			}
		}
		out.Closed = len(targets)
		return nil
	})
	return out, err
}
