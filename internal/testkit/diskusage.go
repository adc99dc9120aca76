package testkit

import (
	"errors"
	"io/fs"
	"path/filepath"
	"syscall"
)

// DiskUsage is what the files under dir occupy: the blocks allocated to
// them, as du counts them (blocks allocated ahead, like a preallocated
// log's, included), and their apparent size. A file removed while the
// walk runs (a compaction's obsolete input) counts for nothing.
func DiskUsage(dir string) (allocated, apparent int64, err error) {
	err = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil || d.IsDir() {
			return err
		}
		info, err := d.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		apparent += info.Size()
		if st, ok := info.Sys().(*syscall.Stat_t); ok {
			allocated += st.Blocks * 512
		}
		return nil
	})
	return allocated, apparent, err
}
