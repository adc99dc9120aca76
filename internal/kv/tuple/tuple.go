package tuple

import (
	"encoding/binary"
	"errors"
)

// Key is an encoded key under construction; every method appends to a copy.
type Key []byte

// New starts a key with a raw (unescaped) prefix, such as a service tag.
func New(prefix string) Key { return Key(prefix) }

func (k Key) clone(extra int) Key {
	out := make(Key, len(k), len(k)+extra)
	copy(out, k)
	return out
}

// Str appends a string element.
func (k Key) Str(s string) Key { return k.Bytes([]byte(s)) }

// Bytes appends a byte-string element.
func (k Key) Bytes(b []byte) Key {
	out := k.clone(len(b) + 2)
	out = appendEscaped(out, b)
	return append(out, 0x00)
}

// Uint appends a fixed-width big-endian integer element.
func (k Key) Uint(v uint64) Key {
	return binary.BigEndian.AppendUint64(k.clone(8), v)
}

// Raw appends bytes as they are (a tag inside a layout).
func (k Key) Raw(s string) Key { return append(k.clone(len(s)), s...) }

// StrPrefix appends the escaped s without its terminator: every key whose
// next string element starts with s starts with the result.
func (k Key) StrPrefix(s string) Key { return appendEscaped(k.clone(len(s)), []byte(s)) }

func appendEscaped(out []byte, b []byte) []byte {
	for _, c := range b {
		out = append(out, c)
		if c == 0x00 {
			out = append(out, 0xff)
		}
	}
	return out
}

// ErrMalformed is returned when a key does not decode as expected.
var ErrMalformed = errors.New("tuple: malformed key")

// Reader decodes the elements of a key in order.
type Reader struct{ rest []byte }

// NewReader reads k after skipping skip bytes (a known prefix).
func NewReader(k []byte, skip int) (*Reader, error) {
	if skip > len(k) {
		return nil, ErrMalformed
	}
	return &Reader{rest: k[skip:]}, nil
}

// Str reads a string element.
func (r *Reader) Str() (string, error) {
	b, err := r.Bytes()
	return string(b), err
}

// Bytes reads a byte-string element.
func (r *Reader) Bytes() ([]byte, error) {
	var out []byte
	for i := 0; i < len(r.rest); i++ {
		c := r.rest[i]
		if c != 0x00 {
			out = append(out, c)
			continue
		}
		if i+1 < len(r.rest) && r.rest[i+1] == 0xff {
			out = append(out, 0x00)
			i++
			continue
		}
		r.rest = r.rest[i+1:]
		return out, nil
	}
	return nil, ErrMalformed
}

// Uint reads an integer element.
func (r *Reader) Uint() (uint64, error) {
	if len(r.rest) < 8 {
		return 0, ErrMalformed
	}
	v := binary.BigEndian.Uint64(r.rest)
	r.rest = r.rest[8:]
	return v, nil
}

// Raw skips n raw bytes.
func (r *Reader) Raw(n int) error {
	if len(r.rest) < n {
		return ErrMalformed
	}
	r.rest = r.rest[n:]
	return nil
}

// Tag reports whether the next raw byte is tag, and skips it if so.
func (r *Reader) Tag(tag byte) bool {
	if len(r.rest) == 0 || r.rest[0] != tag {
		return false
	}
	r.rest = r.rest[1:]
	return true
}

// Done reports whether every element has been read.
func (r *Reader) Done() bool { return len(r.rest) == 0 }

// Tagged reads key as prefix, one string element and the raw byte tag —
// the "<service><account><tag>…" layout of the Storage services' keys —
// and returns a reader after the tag, or false when key is not that.
func Tagged(key []byte, prefix string, tag byte) (*Reader, bool) {
	if len(key) < len(prefix) || string(key[:len(prefix)]) != prefix {
		return nil, false
	}
	r := &Reader{rest: key[len(prefix):]}
	if _, err := r.Bytes(); err != nil || !r.Tag(tag) {
		return nil, false
	}
	return r, true
}

// ReadTagged reads key as prefix, one string element and a raw tag byte —
// the "<service><account><tag>…" layout of the Storage services' keys —
// and returns the account, the tag and a reader after the tag.
func ReadTagged(key []byte, prefix string) (acct string, tag byte, r *Reader, err error) {
	if len(key) < len(prefix) || string(key[:len(prefix)]) != prefix {
		return "", 0, nil, ErrMalformed
	}
	r = &Reader{rest: key[len(prefix):]}
	if acct, err = r.Str(); err != nil {
		return "", 0, nil, err
	}
	if len(r.rest) == 0 {
		return "", 0, nil, ErrMalformed
	}
	tag, r.rest = r.rest[0], r.rest[1:]
	return acct, tag, r, nil
}

// Fields reads a key's elements as Reader does but keeps the first error
// instead of returning it: every read after it returns a zero value, and
// Err reports it. Code that reads several elements checks once.
type Fields struct {
	r   *Reader
	err error
}

// Fields returns the rest of r's key as Fields.
func (r *Reader) Fields() *Fields { return &Fields{r: r} }

// Bytes reads a byte-string element.
func (f *Fields) Bytes() []byte {
	if f.err != nil {
		return nil
	}
	b, err := f.r.Bytes()
	f.err = err
	return b
}

// Str reads a string element.
func (f *Fields) Str() string { return string(f.Bytes()) }

// Uint reads an integer element.
func (f *Fields) Uint() uint64 {
	if f.err != nil {
		return 0
	}
	v, err := f.r.Uint()
	f.err = err
	return v
}

// Err is the first error a read met.
func (f *Fields) Err() error { return f.err }
