// Package redlock models the Redlock client as the Redis "Distributed Locks with
// Redis" page specifies it: take the time T1; SET key value NX PX ttl on N
// independent masters, one after another or all at once, each with a per-node
// timeout small against the TTL; the lock is acquired only with N/2+1 successes
// and a positive validity, validity = TTL - (T2 - T1) - drift with drift =
// TTL x 0.01 + 2 ms; elapsed time is measured on the client's monotonic clock by
// default, or on its wall clock (which a jump moves: Kleppmann's point against
// antirez's); on failure, and on release, compare-and-delete on ALL nodes; retry
// after a random delay (or a fixed one, which lets a split vote repeat forever).
//
// The client reports its belief (with the validity it computed) and, because in
// Redlock the service's promise is the client's own computation, the grant: the
// window T1 + TTL - drift, for the checker's grant-exclusive and quorum-backed.
//
// Invariants: a pure state machine (see package sim).
// May import: sim, protocols/redis (its commands), protocols/lockkit (the lock-client kit).
package redlock
