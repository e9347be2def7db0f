package atomiccommit_test

import (
	"testing"

	"github.com/locksim/locksim/protocols/atomiccommit"
	"github.com/locksim/locksim/sim"
)

// Tests of what 2PC and 3PC share: the coordinator's vote count (Bernstein,
// Hadzilacos and Goodman 1987, section 7.2: commit only if every participant
// votes yes; one no aborts) and the state line. The protocols' own tests
// (twopc, threepc) prove the rest through whole runs.

func newTxn() atomiccommit.Txn {
	env := sim.Env{ID: 0, Name: "co", Names: []string{"co", "p1", "p2", "p3"}}
	return atomiccommit.NewTxn(env, []sim.ProcID{1, 2, 3})
}

type vote struct {
	from sim.ProcID
	yes  bool
	want atomiccommit.Outcome
}

func TestVoteCount(t *testing.T) {
	for name, votes := range map[string][]vote{
		"commit only when every participant says yes": {{1, true, atomiccommit.Pending},
			{1, true, atomiccommit.Pending} /* a duplicate counts once */, {2, true, atomiccommit.Pending},
			{3, true, atomiccommit.AllYes}},
		"one no aborts": {{1, true, atomiccommit.Pending}, {2, false, atomiccommit.VotedNo}},
		// a duplicated vote request answered after the participant aborted on its own
		"yes then no from one participant aborts": {{1, true, atomiccommit.Pending}, {1, false, atomiccommit.VotedNo}},
	} {
		tx := newTxn()
		tx.Begin("t1", false, &sim.Outputs{})
		for i, v := range votes {
			if got := tx.Vote(v.from, v.yes); got != v.want {
				t.Errorf("%s: vote %d (p%d yes=%v) = %v, want %v", name, i+1, v.from, v.yes, got, v.want)
			}
		}
	}
}

func TestBeginClearsTheLastTransaction(t *testing.T) {
	tx := newTxn()
	tx.Begin("t1", false, &sim.Outputs{})
	tx.Vote(1, true)
	tx.Vote(2, true)
	tx.Decision = sim.Commit
	if tx.Begin("t2", true, &sim.Outputs{}) {
		t.Fatal("a busy coordinator began another transaction")
	}
	if tx.Name != "t1" {
		t.Fatalf("a refused begin changed the transaction to %q", tx.Name)
	}
	tx.Begin("t2", false, &sim.Outputs{})
	if tx.Name != "t2" || tx.Decision != "" {
		t.Fatalf("after begin: %q decision %q, want t2 undecided", tx.Name, tx.Decision)
	}
	if got := tx.Vote(3, true); got != atomiccommit.Pending {
		t.Fatalf("votes of t1 counted for t2: %v", got)
	}
}

func TestDescribe(t *testing.T) {
	for _, c := range []struct{ none, txn, state, decision, want string }{
		{"idle", "", "collecting votes", "", "idle"},
		{"idle", "t1", "collecting votes", "", "t1: collecting votes"},
		{"idle", "t1", "decided", sim.Commit, "t1: decided, decision commit"},
		{"no transaction", "", "init", "", "no transaction"},
	} {
		if got := atomiccommit.Describe(c.none, c.txn, c.state, c.decision); got != c.want {
			t.Errorf("Describe(%q, %q, %q, %q) = %q, want %q", c.none, c.txn, c.state, c.decision, got, c.want)
		}
	}
}
