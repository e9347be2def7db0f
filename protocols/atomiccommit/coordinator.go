package atomiccommit

import (
	"slices"

	"github.com/locksim/locksim/sim"
)

// Outcome is what a vote leaves the count at.
type Outcome uint8

const (
	Pending Outcome = iota // votes are still missing
	VotedNo                // this vote was no: the transaction aborts
	AllYes                 // every participant has voted yes
)

// Txn is a coordinator's transaction, one at a time: its name, the
// participants' votes, and the decision once there is one.
type Txn struct {
	env          sim.Env
	participants []sim.ProcID
	Name         string // the transaction; "" before the first
	Decision     string // Commit or Abort; "" while undecided
	votes        map[sim.ProcID]bool
}

// NewTxn returns a coordinator's empty transaction over participants.
func NewTxn(env sim.Env, participants []sim.ProcID) Txn {
	return Txn{env: env, participants: participants, votes: map[sim.ProcID]bool{}}
}

// Participant reports whether p takes part (messages from others are ignored).
func (t *Txn) Participant(p sim.ProcID) bool { return slices.Contains(t.participants, p) }

// Begin starts txn with no votes and no decision, unless the coordinator is
// busy with another: then it notes so, and reports false.
func (t *Txn) Begin(txn string, busy bool, out *sim.Outputs) bool {
	if busy {
		out.Observe(sim.Note(t.env.ID, "%s is busy with %s; begin ignored", t.env.Name, t.Name))
		return false
	}
	t.Name, t.Decision = txn, ""
	clear(t.votes)
	return true
}

// Vote counts from's vote. A participant's later vote replaces its earlier one;
// a no is VotedNo at once, whatever the others said.
func (t *Txn) Vote(from sim.ProcID, yes bool) Outcome {
	t.votes[from] = yes
	switch {
	case !yes:
		return VotedNo
	case len(t.votes) == len(t.participants):
		return AllYes
	}
	return Pending
}

// Describe is the coordinator's state line: "idle", or the transaction, its
// phase, and the decision once there is one.
func (t *Txn) Describe(phase string) string {
	return Describe("idle", t.Name, phase, t.Decision)
}
