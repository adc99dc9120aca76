// Package tuple builds order-preserving keys from strings and integers, the
// way FoundationDB's tuple layer does: a string element is its bytes with
// 0x00 escaped as 0x00 0xff, then a 0x00 terminator, so keys sort by their
// elements and no element can run into the next.
package tuple
