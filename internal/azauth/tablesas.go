package azauth

// A table SAS may carry partition and row key bounds (spk, srk, epk, erk):
// it then reaches only the entities between (spk, srk) and (epk, erk),
// both inclusive, in the table's (PartitionKey, RowKey) order. A row key
// bound applies only within its own partition. Absent bounds are open.

// AllowsEntity reports whether a may touch the entity (pk, rk). Requests
// that are not a key-bounded table SAS are always allowed here; what they
// may do is Allows' business.
func (a Access) AllowsEntity(pk, rk string) bool {
	if a.startPK != "" && (pk < a.startPK || pk == a.startPK && a.startRK != "" && rk < a.startRK) {
		return false
	}
	if a.endPK != "" && (pk > a.endPK || pk == a.endPK && a.endRK != "" && rk > a.endRK) {
		return false
	}
	return true
}

// EntityRange returns a table SAS's key bounds, "" where a bound is open,
// so that queries can be confined to the range instead of failing.
func (a Access) EntityRange() (startPK, startRK, endPK, endRK string) {
	return a.startPK, a.startRK, a.endPK, a.endRK
}
