package record

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// Encode marshals v. Records are plain structs that always marshal, so a
// failure is a programming error.
func Encode(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encode %T: %v", v, err))
	}
	return b
}

// Decode unmarshals a stored record into v.
func Decode(b []byte, v any) error {
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("decode %T: %w", v, err)
	}
	return nil
}

// Load reads key into v; found is false (and v untouched) for an absent key.
func Load(r kv.Reader, key []byte, v any) (found bool, err error) {
	b, err := r.Get(key)
	if errors.Is(err, kv.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, Decode(b, v)
}

// Store writes v under key.
func Store(tx kv.Txn, key []byte, v any) error { return tx.Set(key, Encode(v)) }
