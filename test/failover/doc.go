// Package failover proves that the PostgreSQL engine loses no acknowledged
// write when the database fails over: a primary with a synchronous
// standby, killed with SIGKILL under write load through a front end; the
// standby promoted; a front end started on it finds every write it was
// told had succeeded. The clusters are the test's own (PostgreSQL's
// server binaries from Debian's postgresql package, which `make test`
// installs); without them the test skips, except in CI.
package failover
