// Package atomiccommit holds what two-phase commit (package twopc) and
// three-phase commit (package threepc) share, written once: a coordinator's
// transaction and its vote count (the first no aborts, a yes from every
// participant ends the vote), a participant casting its vote, forcing a record
// to its log before it acts on it (the write-ahead rule both protocols rest on),
// and the state line the TUI shows for either side.
//
// What differs stays in each protocol's package, where a reader compares them:
// 2PC's prepare, decision log, presumed abort and cooperative termination; 3PC's
// PreCommit phase and its termination protocol. This package decides nothing
// and sends nothing: each protocol chooses what a vote's outcome leads to and
// says so in its own words.
//
// Sources: Bernstein, Hadzilacos and Goodman, "Concurrency Control and Recovery
// in Database Systems" (1987), ch. 7 (the atomic commitment problem, of which
// 2PC and 3PC are two protocols).
//
// Invariants: pure state machines (see package sim).
// May import: sim.
package atomiccommit
