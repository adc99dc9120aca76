package file

import (
	"fmt"
	"sync"
	"testing"
)

// changeLog is a ChangeWatcher that records what it is told.
type changeLog struct {
	mu  sync.Mutex
	got []string
}

func (l *changeLog) Changed(c Change) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.got = append(l.got, fmt.Sprintf("%d %s %v", c.Action, c.Path, c.Dir))
}

func (l *changeLog) take() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	got := l.got
	l.got = nil
	return got
}

// TestWatchChanges: every committed change to a share's entries is told
// to the watchers (SMB's CHANGE_NOTIFY rests on it): FileREST creates,
// writes, property changes, renames within and across directories and
// deletes; a change that fails is not told, and an unregistered watcher
// hears nothing.
func TestWatchChanges(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	log := &changeLog{}
	stop := s.WatchChanges(log)
	ref := func(p string) Ref { return Ref{Account: testAcct, Share: "s", Path: p} }
	expect := func(step string, want ...string) {
		t.Helper()
		got := log.take()
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%s: told %q, want %q", step, got, want)
		}
	}
	if _, err := s.CreateDirectory(ctx, ref("d"), SMBChange{}, nil); err != nil {
		t.Fatal(err)
	}
	expect("create directory", "1 d true")
	if _, err := s.CreateFile(ctx, ref("d/f"), CreateFileOptions{Size: 4}); err != nil {
		t.Fatal(err)
	}
	expect("create file", "1 d/f false")
	put(t, s, "d/f", 0, []byte("data"))
	expect("put range", "3 d/f false")
	if _, err := s.CreateFile(ctx, ref("d/f"), CreateFileOptions{Size: 8}); err != nil {
		t.Fatal(err)
	}
	expect("create over a file", "3 d/f false")
	if _, err := s.Rename(ctx, ShareRef{Account: testAcct, Share: "s"}, Rename{Source: "d/f", Dest: "d/g"}); err != nil {
		t.Fatal(err)
	}
	expect("rename in place", "4 d/f false", "5 d/g false")
	if _, err := s.Rename(ctx, ShareRef{Account: testAcct, Share: "s"}, Rename{Source: "d/g", Dest: "g"}); err != nil {
		t.Fatal(err)
	}
	expect("move to another directory", "2 d/g false", "1 g false")
	if err := s.DeleteDirectory(ctx, ref("missing"), Preconditions{}); err == nil {
		t.Fatal("deleting a missing directory succeeded")
	}
	expect("failed delete")
	if err := s.DeleteFile(ctx, ref("g"), Preconditions{}); err != nil {
		t.Fatal(err)
	}
	expect("delete file", "2 g false")
	stop()
	if err := s.DeleteDirectory(ctx, ref("d"), Preconditions{}); err != nil {
		t.Fatal(err)
	}
	expect("after stop")
}
