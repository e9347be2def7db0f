package zookeeper

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// Tests of sessions on their own (ZooKeeper programmer's guide, "ZooKeeper
// Sessions"; its SessionTrackerImpl, which expires sessions in buckets of one
// tick): timeouts are negotiated within [2, 20] ticks; the leader expires a
// silent session on the first whole tick past its timeout, deleting its
// ephemeral nodes; the client learns of it only when it next asks.

func at(d time.Duration) sim.LocalTime { return sim.LocalTime{Mono: d} }

func TestSessionsNegotiateTheirTimeoutWithinTwoAndTwentyTicks(t *testing.T) {
	s := &Server{cfg: ServerConfig{Tick: 2 * time.Second}}
	for ask, want := range map[int64]int64{1000: 4000, 4000: 4000, 10_000: 10_000, 60_000: 40_000} {
		if got := s.negotiate(ask); got != want {
			t.Errorf("asked %d ms, granted %d, want %d", ask, got, want)
		}
	}
}

// A session expires once silent for longer than its timeout (not at exactly
// its timeout), and one the leader is already closing is not expired twice.
func TestSessionClockExpiresTheSilentOnes(t *testing.T) {
	sessions := map[int64]*session{
		1: {timeout: 4000},
		2: {timeout: 2000},
		3: {timeout: 2000, closing: true},
		4: {timeout: 2000},
	}
	c := sessionClock{}
	for id := range sessions {
		c.touch(id, at(0))
	}
	c.touch(4, at(time.Second))
	if got := c.expired(at(2*time.Second), sessions); got != nil {
		t.Errorf("at 2s (silent for exactly 2s at most): %v expired, want none", got)
	}
	if got := c.expired(at(2500*time.Millisecond), sessions); !slices.Equal(got, []int64{2}) {
		t.Errorf("at 2.5s: %v expired, want [2]", got)
	}
	if got := c.expired(at(4001*time.Millisecond), sessions); !slices.Equal(got, []int64{1, 2, 4}) {
		t.Errorf("at 4.001s: %v expired, want [1 2 4], in id order", got)
	}
}

// With ZooKeeper's default tick of 2 s, a session of 4 s whose client falls
// silent at 0.101s expires on the whole tick at 6s (at 4s it has been silent
// 3.899s): its ephemeral node goes with it. The client hears nothing until it
// asks again, and is told SESSIONEXPIRED. A pinging client keeps its session.
func TestSessionsASilentSessionExpiresOnTheFirstWholeTickPastItsTimeout(t *testing.T) {
	e := newEnsemble(1, ServerConfig{})
	silent := e.driver(0, 4*time.Second, 0)
	pinging := e.driver(0, 4*time.Second, time.Second)
	e.at(100*time.Millisecond, silent, sim.Message{Op: OpCreate, Key: "/e", Opts: "EPHEMERAL"})
	e.at(100*time.Millisecond, pinging, sim.Message{Op: OpCreate, Key: "/p", Opts: "EPHEMERAL"})
	e.at(7*time.Second, silent, sim.Message{Op: OpExists, Key: "/e"})
	tr := e.w.Run()
	expired := notes(tr, "expires session")
	if len(expired) != 1 || !strings.HasPrefix(expired[0], "6.000s z1 expires session") ||
		!strings.HasSuffix(expired[0], "of d1: not heard from for 5.899s") {
		t.Fatalf("expiries %q, want d1's session at 6s", expired)
	}
	if got := replies(tr, silent); !slices.Equal(got, []string{"CONNECTED", "CREATED /e", "ERROR SESSIONEXPIRED"}) {
		t.Errorf("d1's replies %q", got)
	}
	if st := data(tr, "z1"); strings.Contains(st, "/e(") || !strings.Contains(st, "/p(") {
		t.Errorf("z1 should hold /p and no longer /e: %s", st)
	}
}

// A client that comes back with its session to a follower is connected only
// once the leader has confirmed the session (ZooKeeper's Learner.validateSession
// and the leader's REVALIDATE). d1's server z2 is cut off from the leader at
// 300 ms: d1's reconnection at 350 ms goes unanswered until z2, having noticed
// the leader's silence, stops serving and drops it (CONNECTIONLOSS); once the
// partition heals, a reconnection is confirmed, and counts as hearing from the
// session at the leader.
func TestSessionsAFollowerConnectsAReturningSessionOnlyOnTheLeadersWord(t *testing.T) {
	e := newEnsemble(3, ServerConfig{Tick: 100 * time.Millisecond})
	d := e.driver(1, 2*time.Second, 0)
	e.act(300*time.Millisecond, sim.Action{Kind: sim.ActPartition, A: e.servers[1:2], B: []sim.ProcID{e.servers[0], e.servers[2]}})
	e.at(350*time.Millisecond, d, sim.Message{Op: OpConnect})
	e.act(1500*time.Millisecond, sim.Action{Kind: sim.ActHeal})
	e.at(2*time.Second, d, sim.Message{Op: OpConnect})
	e.act(3*time.Second, sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	tr := e.w.Run()
	if got, want := replies(tr, d), []string{"CONNECTED", "ERROR CONNECTIONLOSS", "CONNECTED"}; !slices.Equal(got, want) {
		t.Errorf("d1's replies %q, want %q", got, want)
	}
	// Silent since it connected at the start, d1's session of 2 s would have
	// expired on the leader's tick at 2.1 s; the reconnection at 2 s kept it.
	if expired := notes(tr, "expires session"); len(expired) != 0 {
		t.Errorf("the confirmed reconnection should have kept the session alive: %q", expired)
	}
}
