// Package testclock is a clock a test can move forward: the server's
// services read the time from it, so that a lease's expiry, a message's
// visibility, a SAS token's end or an item's TTL arrive when a test says
// instead of after a real wait. It is off unless the server is started
// with it (serve --test-clock, or the embedded server's option).
package testclock
