package lockkit_test

import (
	"slices"
	"testing"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/sim"
)

// Tests of majorities and tallies. Sources: the Redis distlock page ("the
// majority of the instances", N/2+1), Lamport, "Paxos Made Simple" (2001),
// section 2.2: any two majorities of the same acceptors share one.

// A majority is more than half, and two majorities of n always intersect.
func TestMajorityIsMoreThanHalf(t *testing.T) {
	for n, want := range []int{1, 1, 2, 2, 3, 3, 4, 4} {
		if got := lockkit.Majority(n); got != want {
			t.Errorf("Majority(%d) = %d, want %d", n, got, want)
		}
		if n > 0 && 2*lockkit.Majority(n) <= n {
			t.Errorf("two majorities of %d need not intersect", n)
		}
	}
}

// A tally counts each voter's first answer once; a stranger, a duplicate or a
// late copy changes nothing.
func TestATallyCountsEachVoterOnce(t *testing.T) {
	voters := []sim.ProcID{3, 5, 7, 9, 11}
	tl := lockkit.NewTally(voters)
	steps := []struct {
		p     sim.ProcID
		yes   bool
		taken bool
	}{
		{5, true, true}, {5, false, false}, {4, true, false}, {7, true, true}, {3, false, true}, {7, true, false},
	}
	for _, s := range steps {
		if got := tl.Vote(s.p, s.yes); got != s.taken {
			t.Fatalf("vote of %d (%v) taken %v, want %v", s.p, s.yes, got, s.taken)
		}
	}
	if tl.Yes() != 2 || tl.Majority() || tl.Done() || !slices.Equal(tl.YesVoters(), []sim.ProcID{5, 7}) {
		t.Fatalf("after 2 yes and 1 no of 5: yes %d (%v), majority %v, done %v", tl.Yes(), tl.YesVoters(), tl.Majority(), tl.Done())
	}
	tl.Vote(11, true)
	if !tl.Majority() || tl.Done() {
		t.Fatalf("3 yes of 5: majority %v, done %v; want a majority, one voter still to answer", tl.Majority(), tl.Done())
	}
}

// Closing a round counts the silent voters as no; a new round starts empty.
func TestCloseCountsTheSilentAsNoAndResetStartsAgain(t *testing.T) {
	tl := lockkit.NewTally([]sim.ProcID{0, 1, 2})
	tl.Vote(1, true)
	tl.Close()
	if !tl.Done() || tl.Yes() != 1 || tl.Vote(2, true) {
		t.Fatalf("a closed round: done %v, yes %d; it must take no more votes", tl.Done(), tl.Yes())
	}
	tl.Reset()
	if tl.Done() || tl.Yes() != 0 || !tl.Vote(1, true) {
		t.Fatal("a reset round still remembers the last one")
	}
}
