package parity

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
)

// A kind groups the server-chosen values that must correspond one to one
// between Azure and cerulean: two requests that got the same ETag from
// Azure must get the same ETag here, and two that got different ETags
// from Azure must get different ones here. Pop receipts are checked in
// the second direction only: Azure gives every message of one Get
// Messages call the same receipt, which clients treat as opaque per
// message.
type kind string

// kindLoose binds without checking (dates, request ids); kindReceipt is
// checked in one direction only. The other kinds are named where they are
// used (headerKinds, xmlKinds, jsonKinds).
const (
	kindLoose     kind = ""
	kindReceipt   kind = "pop receipt"
	minBoundChars      = 6 // shorter values are too likely to occur by chance
)

// binder maps each server-chosen value Azure returned to the value
// cerulean returned in its place, checks that the correspondence is one
// to one within a kind, and rewrites later requests with it.
type binder struct {
	subst map[string]string          // recorded -> live, every form
	plain map[string]string          // recorded -> live, as returned
	fwd   map[kind]map[string]string // recorded -> live
	back  map[kind]map[string]string // live -> recorded
	repl  *strings.Replacer          // built from subst on demand
	// receipts are the pop receipts cerulean last gave, by message id.
	receipts map[string]string
}

func newBinder() *binder {
	return &binder{subst: map[string]string{}, plain: map[string]string{}, fwd: map[kind]map[string]string{}, back: map[kind]map[string]string{}}
}

// sanitized reports whether a recorded value was replaced by the
// recording's sanitizers, so that nothing can be bound to it.
func sanitized(v string) bool {
	return strings.Contains(v, "Sanitized") || strings.Contains(v, "REDACTED") || v == "00000000-0000-0000-0000-000000000000"
}

// bind records that cerulean answered live where Azure answered rec. It
// returns an error when the pair contradicts an earlier one of the same
// kind.
func (b *binder) bind(k kind, rec, live string) error {
	if rec == "" || sanitized(rec) {
		return nil
	}
	if k != kindLoose {
		// An ETag is the same value quoted (in a header) or not (in a
		// listing).
		rec, live := strings.Trim(rec, `"`), strings.Trim(live, `"`)
		if b.fwd[k] == nil {
			b.fwd[k], b.back[k] = map[string]string{}, map[string]string{}
		}
		if prev, ok := b.fwd[k][rec]; ok && prev != live && k != kindReceipt {
			return fmt.Errorf("the recording repeats the %s %q (Azure kept it), cerulean changed it from %q to %q", k, rec, prev, live)
		}
		if prev, ok := b.back[k][live]; ok && prev != rec {
			return fmt.Errorf("the recording changes the %s from %q to %q (Azure changed it), cerulean returned %q both times", k, prev, rec, live)
		}
		b.fwd[k][rec], b.back[k][live] = live, rec
	}
	if rec == live || len(rec) < minBoundChars {
		return nil
	}
	b.add(rec, live)
	if u := strings.Trim(rec, `"`); u != rec && len(u) >= minBoundChars {
		b.add(u, strings.Trim(live, `"`))
	}
	return nil
}

// add substitutes live for rec, in the forms a later request may carry it
// in: as is, and escaped in a query or a path.
func (b *binder) add(rec, live string) {
	b.subst[rec] = live
	b.plain[rec] = live
	b.subst[url.QueryEscape(rec)] = url.QueryEscape(live)
	b.subst[url.PathEscape(rec)] = url.PathEscape(live)
	b.repl = nil
}

// recorded replaces every bound live value in s by the recorded value it
// stands for: an answer that repeats a value the request carried (an
// error's <QueryParameterValue>) repeats the live one.
func (b *binder) recorded(s string) string {
	if len(b.plain) == 0 {
		return s
	}
	back := make(map[string]string, len(b.plain))
	for rec, live := range b.plain {
		if len(live) >= minBoundChars {
			back[live] = rec
		}
	}
	return longestFirst(back).Replace(s)
}

// longestFirst is a replacer of every key of m by its value, longest
// first so that no value is cut by a shorter one inside it.
func longestFirst(m map[string]string) *strings.Replacer {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if len(keys[i]) != len(keys[j]) {
			return len(keys[i]) > len(keys[j])
		}
		return keys[i] < keys[j]
	})
	pairs := make([]string, 0, 2*len(keys))
	for _, k := range keys {
		pairs = append(pairs, k, m[k])
	}
	return strings.NewReplacer(pairs...)
}

// bound returns the live value bound to rec, if any.
func (b *binder) bound(rec string) (string, bool) {
	v, ok := b.subst[rec]
	return v, ok
}

// rewrite replaces every bound recorded value in s by its live value,
// longest first so that no value is cut by a shorter one inside it.
func (b *binder) rewrite(s string) string {
	if len(b.subst) == 0 {
		return s
	}
	if b.repl == nil {
		b.repl = longestFirst(b.subst)
	}
	return b.repl.Replace(s)
}

// Pop receipts are bound per message. Azure gives every message of one
// Get Messages call the same receipt and cerulean one each, so a
// recorded receipt stands for several live ones; the receipt a later
// request carries is the one cerulean last gave the message the request
// names (.../messages/<id>?popreceipt=...).

// liveMessage is one message id and pop receipt from a live answer.
type liveMessage struct {
	ID         string `xml:"MessageId"`
	PopReceipt string `xml:"PopReceipt"`
}

// noteReceipts records the receipts a live answer gave: those in a Get
// Messages body, and the x-ms-popreceipt of an answer about one message.
func (b *binder) noteReceipts(reqURL *url.URL, header string, body []byte) {
	if b.receipts == nil {
		b.receipts = map[string]string{}
	}
	if header != "" {
		if id, ok := messageID(reqURL); ok {
			b.receipts[id] = header
		}
	}
	if !bytes.Contains(body, []byte("<QueueMessagesList")) {
		return
	}
	var list struct {
		Messages []liveMessage `xml:"QueueMessage"`
	}
	if xml.Unmarshal(body, &list) != nil {
		return
	}
	for _, m := range list.Messages {
		if m.ID != "" && m.PopReceipt != "" {
			b.receipts[m.ID] = m.PopReceipt
		}
	}
}

// useReceipt gives a request about one message the receipt cerulean last
// gave that message, when the recorded request carried (recorded) a
// receipt Azure issued. A receipt a test made malformed on purpose (one
// Azure issued with "Random" appended) is left as the binder rewrote it:
// cerulean's receipt, malformed the same way. A receipt the recording's
// sanitizer hid stands for one Azure issued.
func (b *binder) useReceipt(u *url.URL, recorded string) {
	id, ok := messageID(u)
	if !ok {
		return
	}
	if _, issued := b.fwd[kindReceipt][recorded]; !issued && !sanitized(recorded) {
		return
	}
	q := u.Query()
	if r, ok := b.receipts[id]; ok {
		q.Set("popreceipt", r)
		u.RawQuery = q.Encode()
	}
}

// messageID is the id a .../messages/<id> URL names.
func messageID(u *url.URL) (string, bool) {
	dir, id := path.Split(u.Path)
	if id == "" || !strings.HasSuffix(dir, "/messages/") {
		return "", false
	}
	return id, true
}
