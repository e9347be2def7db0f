// Package threepc models Skeen's three-phase commit: CanCommit? (the votes),
// PreCommit (everyone voted yes; acknowledged), DoCommit. The extra phase means
// no process can commit while another is still uncertain, so the participants
// that remain can always finish without the coordinator: a participant that
// times out while uncertain or pre-committed runs the termination protocol. It
// asks the other participants for their states, the lowest-numbered one that
// answers (or itself) acts as the new coordinator, and it decides: commit if any
// reachable participant is committed or pre-committed and none aborted, abort if
// all are uncertain. A coordinator that times out waiting for PreCommit
// acknowledgements commits.
//
// Under crash-stop failures those rules are nonblocking and consistent. Under a
// partition they are not: each side runs them on what it can reach, and the
// side that saw a PreCommit commits while the side that did not aborts. The same
// code shows both.
//
// Participants force their yes vote, their PreCommit and their decision to a log;
// one that restarts uncertain or pre-committed may never decide on its own: it
// asks the coordinator and the other participants what was decided, and waits
// (Bernstein et al. 7.5, "Recovery": the termination protocol is run by the
// operational processes that time out, not by a process that recovers; a
// recovering one that coordinated a termination on the states it collected at
// once would abort beside a coordinator that is alive and about to commit). If
// nobody answers before its timeout, it runs the termination protocol, as any
// participant that times out does. The coordinator logs nothing: a coordinator
// that restarts has forgotten the transaction and takes no part in it again.
//
// Sources: Dale Skeen, "Nonblocking Commit Protocols" (SIGMOD 1981); Bernstein,
// Hadzilacos and Goodman, "Concurrency Control and Recovery in Database Systems"
// (1987), section 7.5 (3PC and its termination protocol, and why it is not
// resilient to network partitions).
//
// Invariants: pure state machines (see package sim).
// May import: sim, protocols/atomiccommit (what 2PC and 3PC share).
package threepc

import "github.com/locksim/locksim/sim"

// Messages.
const (
	OpCanCommit = "CANCOMMIT?"
	OpYes       = "YES"
	OpNo        = "NO"
	OpPreCommit = "PRECOMMIT"
	OpAck       = "ACK"
	OpDoCommit  = "DOCOMMIT"
	OpAbort     = "ABORT"
	OpStateReq  = "STATE?" // termination: what is your state?
	OpState     = "STATE"  // termination: my state (Value)
	// A participant that recovers undecided asks what was decided; whoever
	// knows answers (Value: commit or abort); whoever does not stays silent.
	OpDecisionReq = "DECISION?"
	OpDecision    = "DECISION"
)

// CmdBegin starts a transaction at the coordinator.
const CmdBegin = "begin"

// Decisions, as ObsDecide names them.
const (
	Commit = sim.Commit
	Abort  = sim.Abort
)

func decide(out *sim.Outputs, txn, d, how string) { sim.Decide(out, txn, d, how) }
