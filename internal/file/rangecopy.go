package file

import (
	"bytes"
	"context"

	"github.com/cerulean-db/cerulean/internal/azbody"
	"github.com/cerulean-db/cerulean/internal/azerr"
)

// RangeCopy is one Put Range From URL: Length bytes at SrcOffset of a
// file of this server written at Offset of the destination.
type RangeCopy struct {
	SrcAcct, SrcShare, SrcPath string
	SrcOffset                  int64
	Acct, Share, Path          string
	Offset, Length             int64
	// SourceCRC64 (x-ms-source-content-crc64) is verified against the
	// bytes read; IfMatchCRC64 and IfNoneMatchCRC64 are the source
	// conditions on them. Each is nil when not sent.
	SourceCRC64      []byte
	IfMatchCRC64     []byte
	IfNoneMatchCRC64 []byte
	// KeepLastWriteTime is x-ms-file-last-write-time: preserve.
	KeepLastWriteTime bool
	Dest              Preconditions
}

// PutRangeFromURL reads a range of a file of this server from one
// snapshot and writes it into the destination as Put Range does. The
// answer carries the CRC64 of the bytes copied.
func (s *Service) PutRangeFromURL(ctx context.Context, rc RangeCopy) (*Written, error) {
	if rc.Length < 1 || rc.Length > MaxPutRange {
		return nil, azerr.ErrOutOfRangeInput.WithMessage("A Put Range From URL writes 1 byte to 4 MiB.")
	}
	s.breakCaching(ctx, Ref{Account: rc.Acct, Share: rc.Share, Path: rc.Path}, true)
	var buf bytes.Buffer
	rng := &Range{Start: rc.SrcOffset, End: rc.SrcOffset + rc.Length - 1}
	err := s.GetFile(ctx, Ref{Account: rc.SrcAcct, Share: rc.SrcShare, Path: rc.SrcPath}, GetFileOptions{Range: rng}, func(d *Download) error {
		if d.Length != rc.Length {
			return azerr.ErrInvalidRange.WithMessage("The source range lies beyond the source file's end.")
		}
		return d.Stream(&buf)
	})
	if err != nil {
		return nil, err
	}
	data := buf.Bytes()
	crc := azbody.CRC64(data)
	switch {
	case rc.SourceCRC64 != nil && !bytes.Equal(rc.SourceCRC64, crc):
		return nil, azerr.ErrCrc64Mismatch
	case rc.IfMatchCRC64 != nil && !bytes.Equal(rc.IfMatchCRC64, crc),
		rc.IfNoneMatchCRC64 != nil && bytes.Equal(rc.IfNoneMatchCRC64, crc):
		return nil, azerr.ErrSourceConditionNotMet
	}
	var out *Node
	err = s.Update(ctx, func(t *Tx) error {
		n, err := t.writeRange(rc.Acct, rc.Share, rc.Path, rc.Offset, rc.Offset+rc.Length, rangeData{b: data}, rc.KeepLastWriteTime, rc.Dest)
		out = n
		return err
	})
	if err != nil {
		return nil, err
	}
	return &Written{File: out, ContentCRC64: crc}, nil
}
