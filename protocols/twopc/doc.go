// Package twopc models two-phase commit: a coordinator asks the participants to
// prepare; each votes (a yes is a promise, forced to its log first); the
// coordinator decides commit only if every vote is yes, forces the decision to
// its log and sends it; the participants apply it and acknowledge.
//
// The blocking is the lesson. A participant that voted yes is uncertain: it has
// given up its right to abort and cannot commit on its own, so if the
// coordinator is gone it waits (termination=wait), or asks the other
// participants (termination=cooperative): any of them that knows the decision,
// or has not voted and so may still abort, settles it; if all voted yes and none
// knows, all stay blocked. A coordinator that recovers with a decision in its
// log sends it again; with none, it aborts (presumed abort).
//
// Sources: Gray, "Notes on Data Base Operating Systems" (1978); Bernstein,
// Hadzilacos and Goodman, "Concurrency Control and Recovery in Database Systems"
// (1987), ch. 7 (the protocol, its timeouts and cooperative termination).
//
// Invariants: pure state machines (see package sim).
// May import: sim, protocols/atomiccommit (what 2PC and 3PC share).
package twopc

import "github.com/locksim/locksim/sim"

// Messages, as the textbooks name them.
const (
	OpPrepare   = "PREPARE"   // coordinator -> participant: vote on Key
	OpWork      = "WORK"      // coordinator -> participant: the transaction's work, before the vote (CoordinatorConfig.Work)
	OpYes       = "YES"       // participant -> coordinator: prepared
	OpNo        = "NO"        // participant -> coordinator: cannot commit
	OpCommit    = "COMMIT"    // the decision
	OpAbort     = "ABORT"     // the decision
	OpAck       = "ACK"       // participant -> coordinator: decision applied
	OpAsk       = "DECISION?" // an uncertain participant asks
	OpUncertain = "UNCERTAIN" // the answer of a participant that does not know either
)

// Commands a coordinator takes.
const CmdBegin = "begin"

// Decisions, as ObsDecide names them.
const (
	Commit = sim.Commit
	Abort  = sim.Abort
)

// Disk records.
const (
	recBegin    = "BEGIN"
	recPrepared = "PREPARED"
	recDecision = "DECISION"
	recEnd      = "END"
)

func decisionOp(d string) string {
	if d == Commit {
		return OpCommit
	}
	return OpAbort
}

func decide(out *sim.Outputs, txn, d, how string) { sim.Decide(out, txn, d, how) }
