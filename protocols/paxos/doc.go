// Package paxos models single-decree Paxos: proposers, acceptors, and the
// proposers as learners.
//
//   - Phase 1: a proposer picks a proposal number n, unique and higher than any
//     it used before (round * 1000 + its id; the round is forced to disk before
//     use, so a restart never reuses one), and sends PREPARE n. An acceptor that
//     has promised nothing higher promises n and answers with the highest
//     proposal it has accepted, if any.
//   - Phase 2: with promises from a majority, the proposer sends ACCEPT n v,
//     where v is the value of the highest-numbered proposal among the answers, or
//     its own value if there is none. An acceptor accepts unless it has promised
//     a higher number. A value is chosen once a majority accepted it under one n.
//   - An acceptor's promise and acceptance are its memory: with
//     persistence=always it forces them to disk before answering; with
//     persistence=none a restart forgets them (the fault Paxos assumes away).
//   - With nack=on an acceptor answers a proposal it ignores with the higher
//     number it promised, so the proposer gives up at once rather than at its
//     timeout; either way it retries after a backoff, fixed or random.
//
// Safety (one value chosen) needs no timing assumption; progress does: two
// proposers that keep pre-empting each other choose nothing (the duel), and a
// random backoff breaks the symmetry.
//
// Source: Leslie Lamport, "Paxos Made Simple" (2001); "The Part-Time
// Parliament" (1998).
//
// Invariants: pure state machines (see package sim).
// May import: sim, protocols/lockkit (the lock-client kit).
package paxos

// Messages, as "Paxos Made Simple" names them.
const (
	OpPrepare  = "PREPARE"
	OpPromise  = "PROMISE"
	OpAccept   = "ACCEPT"
	OpAccepted = "ACCEPTED"
	OpNack     = "NACK"
)

// CmdPropose starts a proposer's attempt to have its value chosen.
const CmdPropose = "propose"

// Decree names the single decree the model decides.
const Decree = "decree"
