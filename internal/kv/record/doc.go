// Package record keeps small Go values (container, queue and table
// records, blob properties, service properties) as JSON in kv values, so
// that every service reads and writes them the same way.
package record
