package table

import (
	"encoding/binary"
	"math"

	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// rawRecord is an entity record read in place: a query matches its
// filter against the record's bytes and decodes (and so allocates) only
// the entities it returns. A string value stays in the record until the
// filter asks for it.
type rawRecord struct {
	pk, rk string
	stamp  int64
	props  []rawProperty
	parsed bool // parse has run
}

type rawProperty struct {
	name  []byte
	value odata.Value // Str unset for String, Guid and Binary: see str
	str   []byte
}

// parse reads payload (the head's bytes after the chunk count) into r,
// reusing r's storage. It accepts exactly the payloads decodeEntity
// accepts. r refers to payload until the next parse.
func (r *rawRecord) parse(pk, rk string, payload []byte) error {
	r.pk, r.rk, r.props, r.parsed = pk, rk, r.props[:0], true
	d := decoder{b: payload}
	if d.byte1() != recordFormat {
		return errCorrupt
	}
	d.uvarint()
	r.stamp = d.varint()
	n := d.uvarint()
	if n > maxProperties+systemProperties {
		return errCorrupt
	}
	for i := uint64(0); i < n && d.err == nil; i++ {
		p := rawProperty{name: d.raw(d.uvarint())}
		t := odata.Type(d.byte1())
		p.value.Type = t
		switch t {
		case odata.String, odata.Guid, odata.Binary:
			p.str = d.raw(d.uvarint())
		case odata.Int32, odata.Int64, odata.DateTime:
			p.value.Num = d.varint()
		case odata.Double:
			if b := d.raw(8); len(b) == 8 {
				p.value.Float = math.Float64frombits(binary.LittleEndian.Uint64(b))
			}
		case odata.Boolean:
			p.value.Num = int64(d.byte1())
		default:
			d.fail()
		}
		r.props = append(r.props, p)
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	return d.err
}

// get is Entity.Get over the record.
func (r *rawRecord) get(name string) (odata.Value, bool) {
	switch name {
	case "PartitionKey":
		return odata.StringValue(r.pk), true
	case "RowKey":
		return odata.StringValue(r.rk), true
	case "Timestamp":
		return odata.DateTimeValue(r.stamp), true
	}
	for i := range r.props {
		p := &r.props[i]
		if string(p.name) == name {
			v := p.value
			switch v.Type {
			case odata.String, odata.Guid, odata.Binary:
				v.Str = string(p.str)
			}
			return v, true
		}
	}
	return odata.Value{}, false
}

// raw returns the next n bytes in place.
func (d *decoder) raw(n uint64) []byte {
	if n > uint64(len(d.b)) {
		d.fail()
		return nil
	}
	b := d.b[:n:n]
	d.b = d.b[n:]
	return b
}
