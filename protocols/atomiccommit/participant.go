package atomiccommit

import "github.com/locksim/locksim/sim"

// CastVote reports a participant's vote on txn (sim.ObsVote), which the
// checker reads: a commit needs every participant's yes.
func CastVote(out *sim.Outputs, txn string, yes bool) {
	vote := sim.VoteNo
	if yes {
		vote = sim.VoteYes
	}
	sim.Vote(out, txn, vote)
}

// Force writes r to the log and forces it to disk: a vote, a pre-commit or a
// decision is durable before the process acts on it, so a crash cannot make it
// forget a promise (the write-ahead rule).
func Force(out *sim.Outputs, r sim.Message) {
	out.Write(r)
	out.Fsync()
}

// Describe is a state line: none when there is no transaction yet, else the
// transaction, its state, and the decision when it is given ("" leaves it out).
func Describe(none, txn, state, decision string) string {
	if txn == "" {
		return none
	}
	s := txn + ": " + state
	if decision != "" {
		s += ", decision " + decision
	}
	return s
}
