//go:build !linux

package bench

import "os"

// fdatasync falls back to a full fsync where fdatasync does not exist.
func fdatasync(f *os.File) error { return f.Sync() }
