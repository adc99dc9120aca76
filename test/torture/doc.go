// Package torture kills the real server with SIGKILL at random moments
// under a mixed workload from many SDK clients, restarts it on the same
// data, and checks every acknowledged write:
//
//   - a blob holds the content of its last acknowledged write or of the
//     write in flight at the kill, never a mix; block lists likewise;
//   - an ETag never names two different contents;
//   - a conditional counter never loses an acknowledged increment;
//   - a table entity-group batch and a Cosmos transactional batch are
//     applied whole or not at all, and Cosmos If-Match replaces lose no
//     acknowledged increment;
//   - an acknowledged queue message is neither lost nor resurrected after
//     an acknowledged delete;
//   - every Azure Files region, written range by range by the one writer
//     that owns it, holds its last acknowledged content or that with the
//     range write in flight at the kill applied whole;
//   - the Blob and Files layouts on the killed server's store pass
//     blob.CheckInvariants and file.CheckInvariants.
//
// A long run:
//
//	go test ./test/torture -torture.cycles 300
package torture
