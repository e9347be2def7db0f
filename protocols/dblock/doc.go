// Package dblock models the locks most teams actually run: rows in a relational
// database. One node is the database (durable commits, a unique key, row locks
// taken by SELECT ... FOR UPDATE with a lock wait timeout, a sequence); clients
// lock in one of five ways:
//
//   - insert: INSERT a row under a unique key to lock, DELETE it to unlock. Not
//     reentrant, and no expiry: a holder that dies leaves its row forever.
//   - lease: a row with a locked_until column, taken when it has passed; "now" is
//     the database's clock or a time the client supplies (its own clock).
//   - for-update: SELECT ... FOR UPDATE inside a transaction; others block on the
//     row (their FOR UPDATE and their writes) until the holder commits, or until
//     their lock wait timeout interrupts them.
//   - cas: optimistic concurrency, no lock at all: read the row's version, then
//     UPDATE ... WHERE version = v, and retry when no row was updated.
//   - advisory: PostgreSQL's session-level advisory lock (advisory.go), held
//     by the client's session in a shared lock table of limited size.
//
// The database runs transactions as PostgreSQL's Read Committed does (txn.go):
// writes lock their rows until the transaction ends, a transaction holds any
// number of rows, an INSERT waits for an open transaction that wrote its key,
// a deadlock is found deadlock_timeout after a waiter began to wait and
// aborts it (40P01), and an error aborts the transaction block (25P02 until
// ROLLBACK).
//
// The database can also be one region of a table replicated across regions
// with last writer wins (regions.go), where the optimistic update loses
// updates. Two published mistakes are client options: a lease client with no
// validity timer (ShedLock's lockAtMostFor shorter than the task) and an
// advisory lock "released" by COMMIT.
//
// The retry policy (a lockkit.Retry: fixed, random, exponential backoff) is the
// client's, because with these locks it decides how the lock performs under
// contention.
//
// The database reports grants (a lock row inserted, a lease taken, a row lock
// or an advisory lock granted) so the checker can judge it as a lock service; clients report beliefs.
//
// Invariants: pure state machines (see package sim); maps are visited sorted.
// May import: sim, protocols/lockkit (the lock-client kit).
package dblock
