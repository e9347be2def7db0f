package lockkit

import (
	"slices"

	"github.com/locksim/locksim/sim"
)

// Majority is the smallest number of n voters that is more than half of them,
// n/2+1: two majorities of the same n always share a voter, which is what
// Redlock's quorum and Paxos's phases rest on.
func Majority(n int) int { return n/2 + 1 }

// Tally is one round of requests to a fixed group of voters: who has answered,
// and who said yes. Redlock's SET round and its extension round, and a Paxos
// proposer's promises and acceptances, are tallies.
type Tally struct {
	voters   []sim.ProcID
	answered []bool
	yes      []bool
}

// NewTally returns an empty tally over voters.
func NewTally(voters []sim.ProcID) Tally {
	return Tally{voters: voters, answered: make([]bool, len(voters)), yes: make([]bool, len(voters))}
}

// Reset starts a new round: nobody has answered.
func (t *Tally) Reset() {
	clear(t.answered)
	clear(t.yes)
}

// Vote records p's answer and reports true, unless p is no voter or has
// answered this round already (a duplicate or a late copy), which changes
// nothing and reports false.
func (t *Tally) Vote(p sim.ProcID, yes bool) bool {
	i := slices.Index(t.voters, p)
	if i < 0 || t.answered[i] {
		return false
	}
	t.answered[i], t.yes[i] = true, yes
	return true
}

// Close counts every voter that has not answered as a no (the round timed out).
func (t *Tally) Close() {
	for i := range t.answered {
		t.answered[i] = true
	}
}

// Yes is the number of voters that said yes.
func (t *Tally) Yes() int {
	n := 0
	for _, y := range t.yes {
		if y {
			n++
		}
	}
	return n
}

// Done reports whether every voter has answered.
func (t *Tally) Done() bool { return !slices.Contains(t.answered, false) }

// Majority reports whether a majority of the voters said yes.
func (t *Tally) Majority() bool { return t.Yes() >= Majority(len(t.voters)) }

// YesVoters lists the voters that said yes, in the group's order.
func (t *Tally) YesVoters() []sim.ProcID {
	var ps []sim.ProcID
	for i, y := range t.yes {
		if y {
			ps = append(ps, t.voters[i])
		}
	}
	return ps
}
