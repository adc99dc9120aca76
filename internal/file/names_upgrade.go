package file

import (
	"context"
	"errors"
	"fmt"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// Stores written before names were case-insensitive key each directory
// entry by its name as given, under legacyNodesTag, with no name in the
// record. The upgrade moves every such entry to nodesTag, keyed by its
// name's fold and recording the name, once per Service before its first
// operation (ready). It runs in kv transactions of at most
// upgradeBatchBytes each: every entry moves whole in one of them, so a
// crash leaves some entries moved and the rest where they were, and the
// next start moves the rest. What is left to move is exactly what the
// legacy range holds, so the upgrade needs no version of its own and
// running it again does nothing. The Service serves nothing until it is
// done; CheckInvariants refuses an entry left behind. A release from
// before the upgrade would misread the new keys; the store's data format
// (record.DataFormatFileNames, marked when the server opens the store)
// makes it refuse the store instead.
//
// Two legacy entries of one directory whose names differ only in case
// (which a release before the upgrade let a client create) cannot both
// keep their names: the first in byte order does, and each other is
// renamed "<name> (case conflict N)" with the smallest N free, its open
// handles following it. Nothing else changes: IDs, and with them the
// content, subtrees, handles and locks, stay as they are.
// docs/decisions/20261127_files_case_insensitive_names.md.

// upgradeBatchBytes bounds the legacy records one upgrade transaction
// moves, well under kv.MaxTxnSize (each is deleted and written again);
// tests lower it to move one entry per transaction.
var upgradeBatchBytes = kv.MaxTxnSize / 8

// ready runs the upgrade to case-insensitive names once per Service; the
// operations that reach the store call it first.
func (s *Service) ready(ctx context.Context) error {
	if s.namesUpgraded.Load() {
		return nil
	}
	s.upgradeMu.Lock()
	defer s.upgradeMu.Unlock()
	if s.namesUpgraded.Load() {
		return nil
	}
	moved, renamed, err := upgradeNames(ctx, s.store)
	if err != nil {
		return fmt.Errorf("upgrade file names: %w", err)
	}
	if moved > 0 {
		s.log.Info("file: directory entries keyed by case-insensitive names", "entries", moved, "renamed_for_case_conflicts", renamed)
	}
	s.namesUpgraded.Store(true)
	return nil
}

// upgradeNames moves every legacy directory entry of the store, and
// reports how many it moved and how many of those it renamed.
func upgradeNames(ctx context.Context, store kv.Store) (moved, renamed int, err error) {
	accts, err := legacyAccounts(ctx, store)
	if err != nil {
		return 0, 0, err
	}
	for _, acct := range accts {
		for {
			var m, r int
			err := store.Update(ctx, func(tx kv.Txn) error {
				var err error
				m, r, err = upgradeBatch(tx, acct)
				return err
			})
			if err != nil {
				return moved, renamed, err
			}
			moved, renamed = moved+m, renamed+r
			if m == 0 {
				break
			}
		}
	}
	return moved, renamed, nil
}

// legacyAccounts lists the accounts that hold legacy directory entries:
// one short scan per account the File keyspace holds.
func legacyAccounts(ctx context.Context, store kv.Store) ([]string, error) {
	var out []string
	err := store.View(ctx, func(r kv.Reader) error {
		out = nil
		all := tuple.New(accountTag)
		from, end := []byte(all), kv.PrefixEnd(all)
		for {
			acct, found := "", false
			err := r.Scan(from, end, func(k, _ []byte) error {
				a, _, _, err := tuple.ReadTagged(k, accountTag)
				acct, found = a, true
				if err != nil {
					return err
				}
				return kv.ErrStopScan
			})
			if err != nil || !found {
				return err
			}
			p := accountKey(acct).Raw(legacyNodesTag)
			legacy := false
			if err := r.Scan(p, kv.PrefixEnd(p), func(_, _ []byte) error { legacy = true; return kv.ErrStopScan }); err != nil {
				return err
			}
			if legacy {
				out = append(out, acct)
			}
			from = kv.PrefixEnd(accountKey(acct))
		}
	})
	return out, err
}

// upgradeBatch moves up to upgradeBatchBytes of one account's legacy
// entries inside tx; it moves none when none is left.
func upgradeBatch(tx kv.Txn, acct string) (moved, renamed int, err error) {
	type pair struct{ k, v []byte }
	var batch []pair
	p := accountKey(acct).Raw(legacyNodesTag)
	size := 0
	err = tx.Scan(p, kv.PrefixEnd(p), func(k, v []byte) error {
		batch = append(batch, pair{append([]byte(nil), k...), append([]byte(nil), v...)})
		if size += len(k) + len(v); size >= upgradeBatchBytes {
			return kv.ErrStopScan
		}
		return nil
	})
	if err != nil {
		return 0, 0, err
	}
	t := &Tx{r: tx, tx: tx}
	for _, e := range batch {
		f := tuple.Key(e.k)
		rd, err := tuple.NewReader(f, len(p))
		if err != nil {
			return 0, 0, err
		}
		fs := rd.Fields()
		share, parent, name := fs.Str(), fs.Uint(), fs.Str()
		n := new(Node)
		if err := errors.Join(fs.Err(), record.Decode(e.v, n)); err != nil {
			return 0, 0, fmt.Errorf("legacy entry %q: %w", e.k, err)
		}
		stored, err := t.freeName(acct, share, parent, name)
		if err != nil {
			return 0, 0, err
		}
		if stored != name {
			renamed++
			if err := t.moveHandles(acct, share, n.ID, n.ID, parent, stored); err != nil {
				return 0, 0, err
			}
		}
		n.Name = stored
		if err := tx.Delete(e.k); err != nil {
			return 0, 0, err
		}
		if err := record.Store(tx, nodeKey(acct, share, parent, stored), n); err != nil {
			return 0, 0, err
		}
		moved++
	}
	return moved, renamed, nil
}

// freeName is name when no entry of the directory has it in any case,
// else "name (case conflict N)" with the smallest N that none has.
func (t *Tx) freeName(acct, share string, parent uint64, name string) (string, error) {
	for i := 0; ; i++ {
		cand := name
		if i > 0 {
			cand = fmt.Sprintf("%s (case conflict %d)", name, i)
		}
		n, err := loadNode(t.r, nodeKey(acct, share, parent, cand))
		if err != nil || n == nil {
			return cand, err
		}
	}
}
