package odata

// Range is an interval of string values. A bound that is not set is open
// (unbounded); Empty means no value is in the range.
type Range struct {
	Empty        bool
	Lo, Hi       string
	HasLo, HasHi bool
	LoInc, HiInc bool
}

// FullRange holds every string.
func FullRange() Range { return Range{} }

// Point holds exactly v.
func Point(v string) Range {
	return Range{Lo: v, Hi: v, HasLo: true, HasHi: true, LoInc: true, HiInc: true}
}

// Single returns the only value in r, if r holds exactly one.
func (r Range) Single() (string, bool) {
	if !r.Empty && r.HasLo && r.HasHi && r.LoInc && r.HiInc && r.Lo == r.Hi {
		return r.Lo, true
	}
	return "", false
}

// Contains reports whether v is in r.
func (r Range) Contains(v string) bool {
	if r.Empty {
		return false
	}
	if r.HasLo && (v < r.Lo || v == r.Lo && !r.LoInc) {
		return false
	}
	if r.HasHi && (v > r.Hi || v == r.Hi && !r.HiInc) {
		return false
	}
	return true
}

// Intersect returns the values in both r and o.
func (r Range) Intersect(o Range) Range {
	if r.Empty || o.Empty {
		return Range{Empty: true}
	}
	out := r
	if o.HasLo && (!out.HasLo || o.Lo > out.Lo || o.Lo == out.Lo && !o.LoInc) {
		out.Lo, out.HasLo, out.LoInc = o.Lo, true, o.LoInc
	}
	if o.HasHi && (!out.HasHi || o.Hi < out.Hi || o.Hi == out.Hi && !o.HiInc) {
		out.Hi, out.HasHi, out.HiInc = o.Hi, true, o.HiInc
	}
	if out.HasLo && out.HasHi && (out.Lo > out.Hi || out.Lo == out.Hi && (!out.LoInc || !out.HiInc)) {
		return Range{Empty: true}
	}
	return out
}

// Hull returns the smallest range holding both r and o.
func (r Range) Hull(o Range) Range {
	switch {
	case r.Empty:
		return o
	case o.Empty:
		return r
	}
	out := r
	switch {
	case !o.HasLo:
		out.HasLo, out.Lo, out.LoInc = false, "", false
	case out.HasLo && (o.Lo < out.Lo || o.Lo == out.Lo && o.LoInc):
		out.Lo, out.LoInc = o.Lo, o.LoInc
	}
	switch {
	case !o.HasHi:
		out.HasHi, out.Hi, out.HiInc = false, "", false
	case out.HasHi && (o.Hi > out.Hi || o.Hi == out.Hi && o.HiInc):
		out.Hi, out.HiInc = o.Hi, o.HiInc
	}
	return out
}

// KeyRange returns a range holding the value of the String property prop
// (PartitionKey or RowKey) of every entity the filter matches. Scanning
// only that range finds every match; the filter itself still decides
// each entity.
func (f *Filter) KeyRange(prop string) Range { return f.root.keyRange(prop) }

func (n andNode) keyRange(p string) Range { return n.l.keyRange(p).Intersect(n.r.keyRange(p)) }
func (n orNode) keyRange(p string) Range  { return n.l.keyRange(p).Hull(n.r.keyRange(p)) }

// A negation can match anything its operand does not; staying sound
// without reasoning about complements means the full range.
func (n notNode) keyRange(string) Range { return FullRange() }

func (n constNode) keyRange(string) Range {
	if n.v {
		return FullRange()
	}
	return Range{Empty: true}
}

func (n cmpNode) keyRange(p string) Range {
	if n.prop != p {
		return FullRange()
	}
	if n.lit.Type != String {
		return Range{Empty: true} // keys are strings: never equal to another type
	}
	v := n.lit.Str
	switch n.op {
	case opEq:
		return Point(v)
	case opGt:
		return Range{Lo: v, HasLo: true}
	case opGe:
		return Range{Lo: v, HasLo: true, LoInc: true}
	case opLt:
		return Range{Hi: v, HasHi: true}
	case opLe:
		return Range{Hi: v, HasHi: true, HiInc: true}
	}
	return FullRange()
}
