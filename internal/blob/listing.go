package blob

import (
	"context"
	"errors"
	"strings"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// ListBlobsOptions are List Blobs' query parameters.
type ListBlobsOptions struct {
	Prefix, Delimiter, Marker string
	Max                       int
	Uncommitted               bool // include blobs that have only uncommitted blocks
	Snapshots                 bool // include each blob's snapshots, oldest first, before it
}

// ListedBlob is one List Blobs entry; Record is nil for a blob that has
// only uncommitted blocks.
type ListedBlob struct {
	Name     string
	Snapshot string // set for a snapshot entry
	Record   *blobRecord
}

// BlobListing is one page of List Blobs.
type BlobListing struct {
	Blobs      []ListedBlob
	Prefixes   []string
	NextMarker string
}

// ListBlobs lists one page of a container's blobs from one snapshot.
func (s *Service) ListBlobs(ctx context.Context, acct, container string, o ListBlobsOptions) (*BlobListing, error) {
	out := &BlobListing{}
	err := s.store.View(ctx, func(r kv.Reader) error {
		if _, err := loadContainer(r, acct, container); err != nil {
			return err
		}
		records := blobsPrefix(acct, container)
		blocks := uncommittedPrefix(acct, container)
		end := kv.PrefixEnd(records.StrPrefix(o.Prefix))
		blockEnd := kv.PrefixEnd(blocks.StrPrefix(o.Prefix))
		cursor := o.Prefix
		if o.Marker > cursor {
			cursor = o.Marker
		}
		entries := 0
		for {
			name, raw, ok, err := firstName(r, records, records.Str(cursor), end)
			if err != nil {
				return err
			}
			if o.Uncommitted {
				bname, _, bok, err := firstName(r, blocks, blocks.Str(cursor), blockEnd)
				if err != nil {
					return err
				}
				if bok && (!ok || bname < name) {
					name, raw, ok = bname, nil, true
				}
			}
			if !ok {
				return nil
			}
			if entries == o.Max {
				out.NextMarker = name
				return nil
			}
			entries++
			if o.Delimiter != "" {
				if i := strings.Index(name[len(o.Prefix):], o.Delimiter); i >= 0 {
					group := name[:len(o.Prefix)+i+len(o.Delimiter)]
					out.Prefixes = append(out.Prefixes, group)
					next, ok := nameSuccessorOfPrefix(group)
					if !ok {
						return nil
					}
					cursor = next
					continue
				}
			}
			entry := ListedBlob{Name: name}
			if raw != nil {
				entry.Record = &blobRecord{}
				if err := decode(raw, entry.Record); err != nil {
					return err
				}
				if o.Snapshots {
					// A blob's snapshots stay on the page of the blob.
					snaps, err := listSnapshots(r, acct, container, name)
					if err != nil {
						return err
					}
					for _, sn := range snaps {
						out.Blobs = append(out.Blobs, ListedBlob{Name: name, Snapshot: sn.ID, Record: sn.Record})
					}
				}
			}
			out.Blobs = append(out.Blobs, entry)
			cursor = name + "\x00"
		}
	})
	return out, err
}

// firstName returns the first blob name at or after start in a range whose
// keys are base + name + more elements.
func firstName(r kv.Reader, base tuple.Key, start, end []byte) (name string, value []byte, ok bool, err error) {
	var failed error
	err = r.Scan(start, end, func(k, v []byte) bool {
		rd, err := tuple.NewReader(k, len(base))
		if err == nil {
			name, err = rd.Str()
		}
		failed, value, ok = err, append([]byte(nil), v...), err == nil
		return false
	})
	return name, value, ok, errors.Join(err, failed)
}

// nameSuccessorOfPrefix returns the smallest name that does not start with
// p, i.e. p with its last byte incremented.
func nameSuccessorOfPrefix(p string) (string, bool) {
	b := kv.PrefixEnd([]byte(p))
	return string(b), b != nil
}
