// Package redis models a Redis node and the single-instance lock client built on it,
// as the Redis documentation describes them ("Distributed Locks with Redis", the SET,
// EXPIRE and persistence pages).
//
// The node keeps keys with an absolute expiry on its own WALL clock, as Redis does:
// a key expires lazily when touched and actively in a cycle ten times a second, so a
// node whose clock jumps forward expires keys early. What survives a crash is decided
// by the persistence policy (none, AOF with fsync every second, fsync always, no
// fsync), through the kernel's disk.
//
// The client implements the published variants of the single-instance lock: atomic
// SET NX PX against SETNX followed by EXPIRE, and a compare-and-delete release script
// against a plain DEL, optionally with a validity timer. It reports its belief; the
// node reports its grants; the checker compares them.
//
// The node also keeps sorted sets (ZADD with NX, XX, GT, LT and CH, ZSCORE; see
// zset.go), on which package zset builds lostinsoba's sorted-set locks; it reports
// the sorted-set mutex's flips from 0 to 1 as grants.
//
// Invariants: pure state machines (see package sim); keys are visited in sorted order.
// May import: sim, protocols/lockkit (the lock-client kit).
package redis
