package twopc_test

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols/twopc"
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
	w := sim.NewWorld(sim.Config{Seed: seed, Limits: sim.Limits{MaxEvents: 200_000, MaxTime: 30 * time.Second, MaxQueue: 10_000}})
	ps := []sim.ProcID{1, 2, 3}
	w.AddProcess("co", "coordinator", sim.Clock{}, twopc.NewCoordinator(twopc.CoordinatorConfig{Participants: ps}))
	for i, p := range ps {
		var peers []sim.ProcID
		for _, q := range ps {
			if q != p {
				peers = append(peers, q)
			}
		}
		w.AddProcess(fmt.Sprintf("p%d", i+1), sim.RoleParticipant, sim.Clock{}, twopc.NewParticipant(twopc.ParticipantConfig{
			Coordinator: coord, Peers: peers, Vote: i < 2 || votes3, Cooperative: cooperative}))
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
// recovery) and partitions hit it, and whatever the votes. 1,000 schedules by
// default (10 rounds of rapid checks; a fifth under -short).
func TestPropertyTwoPCNeverDisagrees(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		w := world(seed, rapid.Bool().Draw(t, "p3_votes_yes"), rapid.Bool().Draw(t, "cooperative"))
		w.Network().SetDefault(sim.Link{Delay: time.Millisecond, Jitter: 3 * time.Millisecond, Dist: sim.DelayUniform,
			Loss: float64(rapid.IntRange(0, 10).Draw(t, "loss_pct")) / 100})
		begin(w, 100*time.Millisecond)
		// Crashes (with recovery, or crash-stop) and partitions of one process
		// from the other three, around the transaction's start.
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
		if r, _ := rep.Result("commit-agreement"); len(r.Violations) > 0 {
			t.Fatalf("commit-agreement violated at %s: %s\nseed %d; %s", r.Violations[0].At, r.Violations[0].Detail, seed, faults)
		}
	})
}
