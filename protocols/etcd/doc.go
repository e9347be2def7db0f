// Package etcd models an etcd cluster and its lease lock (the concurrency
// package's Mutex), at the level of detail the lessons need:
//
//   - Raft: one leader per term; a write is an entry the leader appends to its log
//     and replicates; it is committed once a quorum has logged it (fsynced), and
//     every member applies committed entries in log order. A member that hears
//     nothing from a leader for an election timeout (randomised) stands for
//     election; votes go to candidates whose logs are at least as up to date. A
//     leader that no longer hears from a quorum steps down (etcd runs Raft with
//     CheckQuorum).
//   - The store: one global revision, raised by every write; each key keeps its
//     create revision, mod revision and lease. Transactions compare a key's create
//     revision (0: absent) to put a key only if it is absent.
//   - Leases: granted with a TTL through the log; the leader alone keeps their
//     deadlines (on its own monotonic clock), renews them on keepalive, and
//     revokes an expired lease through the log, deleting the keys attached to it.
//     A new leader gives every lease a fresh TTL plus an election timeout
//     (etcd's lessor Promote).
//   - Watches are kept by the member the client is connected to and fire when it
//     applies a deletion.
//
// The leader reports the lock grants (each lock prefix's key with the lowest
// create revision) so the checker can judge the service; clients report beliefs.
//
// Invariants: pure state machines (see package sim); maps are visited sorted.
// May import: sim, protocols/lockkit (the lock-client kit).
package etcd
