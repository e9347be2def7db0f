package twopc_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols/twopc"
	"github.com/locksim/locksim/scenarios/proptest"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/sim/fault"
	"github.com/locksim/locksim/sim/simtest"
)

// Tests of two-phase commit, grouped by what they prove. Sources: Gray, "Notes
// on Data Base Operating Systems" (1978); Bernstein, Hadzilacos and Goodman,
// "Concurrency Control and Recovery in Database Systems" (1987), ch. 7: the
// protocol, its timeout actions, cooperative termination, recovery from the log
// (presumed abort), and that 2PC is safe but blocking.

const coord sim.ProcID = 0

// world is a coordinator co and participants p1..p3 (p3 votes as votes3 says).
func world(seed uint64, votes3 bool, cooperative bool) *sim.World {
	return worldWith(seed, votes3, cooperative, twopc.CoordinatorConfig{}, twopc.ParticipantConfig{})
}

// worldWith is world with the coordinator's configuration and the
// participants' options (AbortWhenUncertain, VoteTimeout) given.
func worldWith(seed uint64, votes3 bool, cooperative bool, cc twopc.CoordinatorConfig, pc twopc.ParticipantConfig) *sim.World {
	w := sim.NewWorld(sim.Config{Seed: seed, Limits: sim.Limits{MaxEvents: 200_000, MaxTime: 30 * time.Second, MaxQueue: 10_000}})
	ps := []sim.ProcID{1, 2, 3}
	cc.Participants = ps
	w.AddProcess("co", "coordinator", sim.Clock{}, twopc.NewCoordinator(cc))
	for i, p := range ps {
		var peers []sim.ProcID
		for _, q := range ps {
			if q != p {
				peers = append(peers, q)
			}
		}
		c := pc
		c.Coordinator, c.Peers, c.Vote, c.Cooperative = coord, peers, i < 2 || votes3, cooperative
		w.AddProcess(fmt.Sprintf("p%d", i+1), sim.RoleParticipant, sim.Clock{}, twopc.NewParticipant(c))
	}
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	return w
}

func begin(w *sim.World, at time.Duration) {
	w.Schedule(sim.Time(at), sim.Action{Kind: sim.ActCommand, Proc: coord, Msg: sim.Message{Op: twopc.CmdBegin, Key: "T"}})
}

func at(w *sim.World, t time.Duration, a sim.Action) { w.Schedule(sim.Time(t), a) }

func wantAll(t *testing.T, tr *sim.Trace, d string, who ...string) {
	t.Helper()
	got := simtest.Decisions(tr)
	for _, p := range who {
		if got[p] != d {
			t.Errorf("%s decided %q, want %q (all: %v)", p, got[p], d, got)
		}
	}
}

func TestAllYesCommitsAndOneNoAborts(t *testing.T) {
	w := world(1, true, false)
	begin(w, 100*time.Millisecond)
	wantAll(t, w.Run(), twopc.Commit, "co", "p1", "p2", "p3")
	w = world(1, false, false)
	begin(w, 100*time.Millisecond)
	wantAll(t, w.Run(), twopc.Abort, "co", "p1", "p2", "p3")
}

// A coordinator that crashes before its decision is durable recovers with none
// and aborts (presumed abort); one that crashes after sends it again.
func TestCoordinatorRecoversFromItsLog(t *testing.T) {
	for _, tc := range []struct {
		crash time.Duration
		want  string
	}{{105 * time.Millisecond, twopc.Abort}, {115 * time.Millisecond, twopc.Commit}} {
		t.Run(fmt.Sprintf("crash at %s", tc.crash), func(t *testing.T) {
			w := world(1, true, false)
			begin(w, 100*time.Millisecond)
			at(w, tc.crash, sim.Action{Kind: sim.ActCrash, Proc: coord})
			at(w, 3*time.Second, sim.Action{Kind: sim.ActRestart, Proc: coord})
			wantAll(t, w.Run(), tc.want, "co", "p1", "p2", "p3")
		})
	}
}

// While the coordinator is down, uncertain participants block: asking each
// other helps only if one of them knows or has not voted.
func TestCooperativeTermination(t *testing.T) {
	t.Run("all uncertain: blocked", func(t *testing.T) {
		w := world(1, true, true)
		begin(w, 100*time.Millisecond)
		at(w, 105*time.Millisecond, sim.Action{Kind: sim.ActCrash, Proc: coord})
		at(w, 10*time.Second, sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
		if got := simtest.Decisions(w.Run()); len(got) != 0 {
			t.Fatalf("decisions %v, want none: every participant voted yes and none knows", got)
		}
	})
	t.Run("one has not voted: it aborts, and so do the others", func(t *testing.T) {
		w := world(1, true, true)
		// p3 never hears the PREPARE; the coordinator crashes while waiting.
		w.Network().SetLink(coord, 3, sim.Link{Delay: time.Millisecond, Loss: 1})
		begin(w, 100*time.Millisecond)
		at(w, 105*time.Millisecond, sim.Action{Kind: sim.ActCrash, Proc: coord})
		at(w, 10*time.Second, sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
		wantAll(t, w.Run(), twopc.Abort, "p1", "p2", "p3")
	})
}

// A participant that crashes after voting yes recovers uncertain and asks.
func TestParticipantRecoversUncertain(t *testing.T) {
	w := world(1, true, false)
	begin(w, 100*time.Millisecond)
	at(w, 102*time.Millisecond, sim.Action{Kind: sim.ActCrash, Proc: 2})
	at(w, 5*time.Second, sim.Action{Kind: sim.ActRestart, Proc: 2})
	at(w, 10*time.Second, sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	wantAll(t, w.Run(), twopc.Commit, "co", "p1", "p2", "p3")
}

// 2PC never violates commit-agreement, whatever crashes (with or without
// recovery) and partitions hit it, and whatever the votes; nor does a
// participant that times out waiting for the vote request and aborts
// (legal: it has not voted; BHG section 7.3), drawn with a work phase before
// the vote. 300 fixed schedules by default (seeds 1-300, about 0.1 s), 3,000
// under -tags long: a participant that aborts when uncertain (the mistake
// with its flag forced on) first breaks it at seed 114 (issue 32's mutation
// check), so fewer would let that bug through.
func TestPropertyTwoPCNeverDisagrees(t *testing.T) {
	simtest.Check(t, 30, func(t *rapid.T) {
		if r, desc := twoPCRun(t); len(r.Violations) > 0 {
			t.Fatalf("commit-agreement violated at %s: %s\n%s", r.Violations[0].At, r.Violations[0].Detail, desc)
		}
	})
}

// A participant that aborts on its own after voting yes (uncertain=abort): a
// crash or a partition finds a transaction committed at some and aborted at
// others (BHG section 7.3: a yes voter "cannot unilaterally decide Abort";
// 2pc-abort-after-yes), among every such fault over the template, in a fixed
// order.
func TestPropertyAbortAfterYesIsFound(t *testing.T) {
	f := proptest.Find(t, proptest.Config{Template: "testdata/properties/abort-after-yes.scn",
		Faults: []fault.Kind{fault.Crash, fault.Partition}, Invariants: []string{"commit-agreement"}, CheckFaults: 1, Dir: t.TempDir()})
	if !strings.Contains(f.Detail, "decides ABORT T, but co decided COMMIT") {
		t.Errorf("commit-agreement broken by %q, want a participant aborting what co committed", f.Detail)
	}
}

// twoPCRun draws a schedule of crashes (with recovery, or crash-stop) and
// partitions of one process from the other three, around the transaction's
// start, and judges commit-agreement, with a work phase and vote-request
// timeouts drawn.
func twoPCRun(t *rapid.T) (check.Result, string) {
	seed := rapid.Uint64().Draw(t, "seed")
	var cc twopc.CoordinatorConfig
	var pc twopc.ParticipantConfig
	if rapid.Bool().Draw(t, "work_phase") {
		cc.Work = time.Duration(rapid.IntRange(1, 2000).Draw(t, "work_ms")) * time.Millisecond
		pc.VoteTimeout = time.Duration(rapid.IntRange(1, 2000).Draw(t, "vote_timeout_ms")) * time.Millisecond
	}
	w := worldWith(seed, rapid.Bool().Draw(t, "p3_votes_yes"), rapid.Bool().Draw(t, "cooperative"), cc, pc)
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond, Jitter: 3 * time.Millisecond, Dist: sim.DelayUniform,
		Loss: float64(rapid.IntRange(0, 10).Draw(t, "loss_pct")) / 100})
	begin(w, 100*time.Millisecond)
	var faults fault.Schedule
	for range rapid.IntRange(1, 4).Draw(t, "faults") {
		f := fault.Fault{Proc: w.Names()[rapid.IntRange(0, 3).Draw(t, "proc")],
			At:  time.Duration(rapid.IntRange(90, 400).Draw(t, "at_ms")) * time.Millisecond,
			Dur: time.Duration(rapid.IntRange(10, 5000).Draw(t, "dur_ms")) * time.Millisecond}
		switch kind := rapid.SampledFrom([]string{"crash", "crash-forever", "partition"}).Draw(t, "fault"); kind {
		case "crash-forever":
			f.Kind, f.Dur = fault.Crash, fault.Forever
		default:
			f.Kind = fault.Kind(kind)
		}
		faults = append(faults, f)
	}
	faults.Apply(w, nil)
	at(w, 20*time.Second, sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	rep := check.Check(w.Run(), check.Options{Bound: 10 * time.Second})
	r, _ := rep.Result("commit-agreement")
	return r, fmt.Sprintf("seed %d; work %s, vote timeout %s; %s", seed, cc.Work, pc.VoteTimeout, faults)
}

// The mistake of 2pc-abort-after-yes told another way: p1 is cut off from
// everyone (not only the coordinator) from 0.103 s for 3 s, and the
// coordinator crashes after its COMMIT is durable and comes back at 2 s. p1,
// uncertain, aborts at its timeout: the others committed. Waiting (the
// default), p1 asks until the partition heals, and commits.
func TestAbortAfterYesAgainstADurableCommit(t *testing.T) {
	for _, tc := range []struct {
		abort bool
		want  string
		p1    string
	}{{true, "violated", twopc.Abort}, {false, "holds", twopc.Commit}} {
		w := worldWith(1, true, false, twopc.CoordinatorConfig{}, twopc.ParticipantConfig{AbortWhenUncertain: tc.abort})
		begin(w, 100*time.Millisecond)
		fault.Schedule{
			{Kind: fault.Partition, Proc: "p1", At: 103 * time.Millisecond, Dur: 3 * time.Second},
			{Kind: fault.Crash, Proc: "co", At: 115 * time.Millisecond, Dur: 1885 * time.Millisecond}, // the COMMIT is durable at 0.112 s
		}.Apply(w, nil)
		at(w, 8*time.Second, sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
		tr := w.Run()
		rep := check.Check(tr, check.Options{Bound: 10 * time.Second})
		if r, _ := rep.Result("commit-agreement"); r.Status() != tc.want {
			t.Errorf("uncertain=abort %v: commit-agreement %s, want %s (%v)", tc.abort, r.Status(), tc.want, r.Violations)
		}
		wantAll(t, tr, tc.p1, "p1")
		wantAll(t, tr, twopc.Commit, "co", "p2", "p3")
	}
}
