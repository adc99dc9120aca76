package search

import (
	"encoding/binary"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
)

// On disk, the bleve index of search index name with definition ETag etag
// is the scorch index in <dir>/<name>/<generation>, the generation naming
// the mapping version and the ETag. Any other directory there is a
// generation no longer used (a changed definition, a recreated index) and
// is removed when the index is next built.
//
// mappingVersion names how documents are mapped into bleve (indexMapping,
// bleveDocument and the analyzers they use): raise it with any change
// there, so that indexes written by an earlier release are rebuilt rather
// than searched with a mapping they were not built with. Version 2: a
// stopwords token filter's stopwordsList and ignoreCase are applied.
const mappingVersion = 2

// Internal keys of the mark an on-disk index carries: the change sequence
// it reflects, the definition ETag and the mapping version it was built
// with. setMark puts them in the batch they describe.
var (
	markSeq     = []byte("cerulean.seq")
	markETag    = []byte("cerulean.etag")
	markMapping = []byte("cerulean.mapping")
)

func setMark(b *bleve.Batch, etag string, seq uint64) {
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], seq)
	b.SetInternal(markSeq, v[:])
	b.SetInternal(markETag, []byte(etag))
	b.SetInternal(markMapping, []byte(strconv.Itoa(mappingVersion)))
}

// readMark returns the change sequence an on-disk index reflects, or an
// error when its mark is missing (a build that did not finish) or is of
// another definition or mapping.
func readMark(bi bleve.Index, etag string) (uint64, error) {
	mv, err := bi.GetInternal(markMapping)
	if err != nil {
		return 0, err
	}
	if string(mv) != strconv.Itoa(mappingVersion) {
		return 0, fmt.Errorf("mapping version %q, want %d", mv, mappingVersion)
	}
	et, err := bi.GetInternal(markETag)
	if err != nil {
		return 0, err
	}
	if string(et) != etag {
		return 0, fmt.Errorf("definition ETag %s, want %s", et, etag)
	}
	sv, err := bi.GetInternal(markSeq)
	if err != nil {
		return 0, err
	}
	if len(sv) != 8 {
		return 0, errors.New("no change sequence")
	}
	return binary.BigEndian.Uint64(sv), nil
}

// scorchConfig is the store configuration of every bleve index: a
// directory another process holds open is an error after a while, not a
// wait for ever.
func scorchConfig() map[string]any {
	return map[string]any{"bolt_timeout": "5s"}
}

func (x *derivedIndexes) indexPath(name string) string { return filepath.Join(x.dir, name) }

func (x *derivedIndexes) generationPath(name, etag string) string {
	gen := strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return -1
	}, etag)
	return filepath.Join(x.indexPath(name), fmt.Sprintf("m%d-%s", mappingVersion, gen))
}

// clearIndexDir removes every generation of index name. The caller holds
// the index's derived exclusively.
func (x *derivedIndexes) clearIndexDir(name string) error {
	entries, err := os.ReadDir(x.indexPath(name))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("list search index directory: %w", err)
	}
	for _, e := range entries {
		if err := os.RemoveAll(filepath.Join(x.indexPath(name), e.Name())); err != nil {
			return fmt.Errorf("remove old search index files: %w", err)
		}
	}
	return nil
}

// reopen opens the on-disk index of d's definition, if there is a usable
// one no newer than kv's change sequence seq, and sets d to it. Anything
// else (none, unreadable, unfinished, of another mapping) answers false,
// and the caller rebuilds, which clears the directory.
func (x *derivedIndexes) reopen(d *derived, seq uint64) bool {
	path := x.generationPath(d.name, d.etag)
	if _, err := os.Stat(path); err != nil {
		return false
	}
	bi, mark, err := openOnDisk(path, d.etag)
	if err == nil && mark > seq {
		err = fmt.Errorf("change sequence %d is past the store's %d", mark, seq)
	}
	if err != nil {
		if bi != nil {
			_ = bi.Close()
		}
		x.log.Warn("search index on disk is unusable; rebuilding it from the store", "index", d.name, "err", err)
		return false
	}
	d.bi, d.path, d.seq = bi, path, mark
	d.applied.Store(mark)
	x.stats.reopened.Add(1)
	return true
}

// openOnDisk opens the index at path and reads its mark. A damaged index
// may make bleve panic rather than fail; that is an error like any other.
func openOnDisk(path, etag string) (bi bleve.Index, mark uint64, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("open %s: %v", path, r)
		}
	}()
	bi, err = bleve.OpenUsing(path, scorchConfig())
	if err != nil {
		return nil, 0, err
	}
	mark, err = readMark(bi, etag)
	return bi, mark, err
}

// waitPersisted waits, for a while, until every segment of bi is on disk,
// so that a clean shutdown leaves nothing for the next start to catch up.
// Not waiting is safe: the mark is persisted with the segments it
// describes, so a restart catches up from whatever was persisted.
func waitPersisted(bi bleve.Index) {
	adv, err := bi.Advanced()
	if err != nil {
		return
	}
	sc, ok := adv.(*scorch.Scorch)
	if !ok {
		return
	}
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if n, ok := sc.StatsMap()["TotMemorySegmentsAtRoot"].(uint64); !ok || n == 0 {
			return
		}
	}
}

// sweep removes the directories of indexes that no longer exist (deleted
// while this process was not running, or by another process), except
// those with a derived in the map. live are the existing indexes. Files
// (the server's lock file) are left alone.
func (x *derivedIndexes) sweep(live map[string]bool) {
	if x.dir == "" {
		return
	}
	entries, err := os.ReadDir(x.dir)
	if err != nil {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, e := range entries {
		if !e.IsDir() || live[e.Name()] || x.m[e.Name()] != nil {
			continue
		}
		if err := os.RemoveAll(filepath.Join(x.dir, e.Name())); err != nil {
			x.log.Warn("remove files of a deleted search index", "index", e.Name(), "err", err)
		}
	}
}
