// Package odata implements the part of OData v3 the Table service speaks:
// the EDM property types and their values, and the $filter language
// (comparisons, and/or/not, parentheses, typed literals) with an evaluator
// and the key range a filter confines PartitionKey and RowKey to, so that
// a query fixing the partition scans only that partition.
package odata
