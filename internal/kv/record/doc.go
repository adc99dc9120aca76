// Package record keeps small Go values (container, queue and table
// records, blob properties, service properties) in kv values, so that
// every service reads and writes them the same way: a format byte and
// CBOR under the values' JSON field names, or, for records earlier
// releases wrote, JSON. It also keeps the store's data format (the newest
// record format written to it, or the newest layout change since:
// DataFormat) and refuses a store from a newer release.
package record
