package kv

import "context"

// MoveBatch is the bytes one MovePrefix transaction writes at most
// (keys twice, for the write and the delete, and values), well inside
// MaxTxnSize.
const MoveBatch = 2 << 20

// MovePrefix moves every key that starts with from to the same key with
// to in place of from, value unchanged, in transactions that write at
// most MoveBatch bytes each, until no key is left under from. each, when
// not nil, runs in the transaction that moves a key, with the key's part
// after the prefix and its value (to re-index what moved, say).
//
// A move is not atomic: a crash leaves the keys split between the two
// prefixes, and calling MovePrefix again finishes it. Callers keep
// writers off both prefixes while a move runs (a soft-deleted
// container's or share's record says it is moving), since a key written
// under from during the move moves too and one written under to may be
// overwritten.
func MovePrefix(ctx context.Context, store Store, from, to []byte, each func(tx Txn, rest, value []byte) error) error {
	for {
		moved := 0
		err := store.Update(ctx, func(tx Txn) error {
			moved = 0
			type pair struct{ k, v []byte }
			var batch []pair
			size := 0
			err := tx.Scan(from, PrefixEnd(from), func(k, v []byte) error {
				batch = append(batch, pair{append([]byte(nil), k...), append([]byte(nil), v...)})
				size += 2*len(k) + len(v)
				if size >= MoveBatch {
					return ErrStopScan
				}
				return nil
			})
			if err != nil {
				return err
			}
			for _, p := range batch {
				rest := p.k[len(from):]
				nk := append(append([]byte(nil), to...), rest...)
				if err := tx.Set(nk, p.v); err != nil {
					return err
				}
				if err := tx.Delete(p.k); err != nil {
					return err
				}
				if each != nil {
					if err := each(tx, rest, p.v); err != nil {
						return err
					}
				}
			}
			moved = len(batch)
			return nil
		})
		if err != nil || moved == 0 {
			return err
		}
	}
}
