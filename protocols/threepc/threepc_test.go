package threepc_test

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols/threepc"
	"github.com/locksim/locksim/scenarios/proptest"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/sim/fault"
	"github.com/locksim/locksim/sim/simtest"
)

// Tests of three-phase commit. Sources: Skeen, "Nonblocking Commit Protocols"
// (SIGMOD 1981): with crash-stop failures and no partitions, 3PC lets the
// operational participants always decide, and decide alike; Bernstein,
// Hadzilacos and Goodman (1987), section 7.5: the termination protocol, and that
// no commit protocol is nonblocking under network partitions.

const coord sim.ProcID = 0

func world(seed uint64, gap time.Duration, link sim.Link) *sim.World {
	w := sim.NewWorld(sim.Config{Seed: seed, Limits: sim.Limits{MaxEvents: 200_000, MaxTime: 30 * time.Second, MaxQueue: 10_000}})
	ps := []sim.ProcID{1, 2, 3}
	w.AddProcess("co", "coordinator", sim.Clock{}, threepc.NewCoordinator(threepc.CoordinatorConfig{Participants: ps, SendGap: gap}))
	for i, p := range ps {
		var peers []sim.ProcID
		for _, q := range ps {
			if q != p {
				peers = append(peers, q)
			}
		}
		w.AddProcess(fmt.Sprintf("p%d", i+1), sim.RoleParticipant, sim.Clock{}, threepc.NewParticipant(threepc.ParticipantConfig{
			Coordinator: coord, Peers: peers, Vote: true}))
	}
	w.Network().SetDefault(link)
	w.Schedule(sim.Time(100*time.Millisecond), sim.Action{Kind: sim.ActCommand, Proc: coord, Msg: sim.Message{Op: threepc.CmdBegin, Key: "T"}})
	w.Schedule(sim.Time(20*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	return w
}

func fixed() sim.Link { return sim.Link{Delay: time.Millisecond} }

// The coordinator's crash at any point of the protocol leaves the participants
// deciding, and alike: commit if one of them had been pre-committed, abort if
// none had.
func TestCoordinatorCrashAtEveryPoint(t *testing.T) {
	for ms := 100; ms <= 200; ms += 5 {
		w := world(1, 20*time.Millisecond, fixed())
		w.Schedule(sim.Time(time.Duration(ms)*time.Millisecond), sim.Action{Kind: sim.ActCrash, Proc: coord})
		tr := w.Run()
		got := simtest.Decisions(tr)
		if got["p1"] == "" || got["p1"] != got["p2"] || got["p2"] != got["p3"] {
			t.Errorf("coordinator crash at %d ms: decisions %v, want all three alike", ms, got)
		}
		pre := false
		for i := range tr.Len() {
			if e := tr.Event(i); e.Kind == sim.EvDeliver && tr.Msg(e).Op == threepc.OpPreCommit {
				pre = true
			}
		}
		if want := map[bool]string{true: threepc.Commit, false: threepc.Abort}[pre]; got["p1"] != want {
			t.Errorf("coordinator crash at %d ms: decided %s, want %s (a PreCommit arrived: %v)", ms, got["p1"], want, pre)
		}
	}
}

// Skeen's positive result, over random schedules: with crash failures of the
// coordinator and one participant (which may recover from its log), and no
// partitions, commit-agreement and nonblocking hold.
func TestPropertyCrashStopIsNonblockingAndAgrees(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		w := world(seed, time.Duration(rapid.IntRange(0, 30).Draw(t, "gap_ms"))*time.Millisecond,
			sim.Link{Delay: time.Millisecond, Jitter: 2 * time.Millisecond, Dist: sim.DelayUniform})
		// Crash-stop: the coordinator does not come back; a participant may,
		// from its log.
		faults := fault.Schedule{{Kind: fault.Crash, Proc: "co", Dur: fault.Forever,
			At: time.Duration(rapid.IntRange(100, 300).Draw(t, "coordinator_crash_ms")) * time.Millisecond}}
		if rapid.Bool().Draw(t, "participant_crash") {
			f := fault.Fault{Kind: fault.Crash, Proc: w.Names()[rapid.IntRange(1, 3).Draw(t, "participant")],
				At: time.Duration(rapid.IntRange(100, 3000).Draw(t, "participant_crash_ms")) * time.Millisecond, Dur: fault.Forever}
			if rapid.Bool().Draw(t, "participant_recovers") { // from its log
				f.Dur = time.Duration(rapid.IntRange(1, 6000).Draw(t, "down_ms")) * time.Millisecond
			}
			faults = append(faults, f)
		}
		faults.Apply(w, nil)
		rep := check.Check(w.Run(), check.Options{Bound: 10 * time.Second})
		for _, inv := range []string{"commit-agreement", "nonblocking"} {
			if r, _ := rep.Result(inv); len(r.Violations) > 0 {
				t.Fatalf("%s violated at %s: %s\nseed %d; %s", inv, r.Violations[0].At, r.Violations[0].Detail, seed, faults)
			}
		}
	})
}

// Skeen's negative result: a partition finds two sides deciding differently,
// among every partition of one process over the template, in a fixed order.
func TestPropertyPartitionsFindDisagreement(t *testing.T) {
	f := proptest.Find(t, proptest.Config{Template: "testdata/properties/partition.scn",
		Faults: []fault.Kind{fault.Partition}, Invariants: []string{"commit-agreement"}, CheckFaults: 1, Dir: t.TempDir()})
	if len(f.Schedule) != 1 || f.Schedule[0].Kind != fault.Partition {
		t.Errorf("found with %v, want one partition", f.Schedule)
	}
}

// Issue 31, item 9c: 3PC as Wikipedia and many course notes state it, where a
// coordinator whose PreCommit acknowledgements time out aborts, while a
// cohort in pre-commit commits on its own timeout. ackStory runs one
// participant (p1, p2 or p3) behind a slow link of delay d, and cuts it off
// from everyone while its ACK is on its way: between PreCommit's arrival
// (0.1 s + 3d: CanCommit, the vote, PreCommit) and the ACK's (0.1 s + 4d).
// It returns the decisions and the checker's report.
func ackStory(seed uint64, abort bool, slow int, d, cutAfter time.Duration) (map[string]string, check.Report) {
	w := sim.NewWorld(sim.Config{Seed: seed, Limits: sim.Limits{MaxEvents: 200_000, MaxTime: 30 * time.Second, MaxQueue: 10_000}})
	ps := []sim.ProcID{1, 2, 3}
	w.AddProcess("co", "coordinator", sim.Clock{}, threepc.NewCoordinator(threepc.CoordinatorConfig{Participants: ps, AckTimeoutAbort: abort}))
	for i, p := range ps {
		var peers []sim.ProcID
		for _, q := range ps {
			if q != p {
				peers = append(peers, q)
			}
		}
		w.AddProcess(fmt.Sprintf("p%d", i+1), sim.RoleParticipant, sim.Clock{}, threepc.NewParticipant(threepc.ParticipantConfig{
			Coordinator: coord, Peers: peers, Vote: true}))
	}
	w.Network().SetDefault(fixed())
	p := ps[slow]
	w.Network().SetLink(coord, p, sim.Link{Delay: d})
	w.Network().SetLink(p, coord, sim.Link{Delay: d})
	w.Schedule(sim.Time(100*time.Millisecond), sim.Action{Kind: sim.ActCommand, Proc: coord, Msg: sim.Message{Op: threepc.CmdBegin, Key: "T"}})
	var rest []sim.ProcID
	for _, q := range []sim.ProcID{coord, 1, 2, 3} {
		if q != p {
			rest = append(rest, q)
		}
	}
	w.Schedule(sim.Time(100*time.Millisecond+3*d+cutAfter), sim.Action{Kind: sim.ActPartition, A: []sim.ProcID{p}, B: rest})
	w.Schedule(sim.Time(20*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	tr := w.Run()
	return simtest.Decisions(tr), check.Check(tr, check.Options{Bound: 10 * time.Second})
}

// The catalogue's 3pc-ack-timeout-abort told a second way: p3, not p1, is
// the slow one (40 ms), and the cut falls 5 ms after its PreCommit arrived.
// Aborting on the missing ACK, the coordinator and the two others abort while
// p3 commits alone; with Skeen's rule everyone commits.
func TestTextbookAckTimeoutDisagreesWithTheCohort(t *testing.T) {
	for _, abort := range []bool{true, false} {
		got, rep := ackStory(7, abort, 2, 40*time.Millisecond, 5*time.Millisecond)
		r, _ := rep.Result("commit-agreement")
		wantOthers := map[bool]string{true: threepc.Abort, false: threepc.Commit}[abort]
		if got["p3"] != threepc.Commit || got["co"] != wantOthers || got["p1"] != wantOthers || got["p2"] != wantOthers || r.Holds() == abort {
			t.Errorf("ack-timeout=abort %v: decisions %v, commit-agreement %s; want p3 COMMIT, the others %s", abort, got, r.Status(), wantOthers)
		}
	}
}

// Over random schedules of the same shape (which participant, its delay, when
// within its ACK's flight the cut falls, the kernel's seed): the textbook
// coordinator always disagrees with the lone pre-committed cohort, and
// Skeen's never does, nor blocks. 100 fixed schedules by default, 1,000
// under -tags long.
func TestPropertyTextbookAckTimeoutAlwaysDisagrees(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		slow := rapid.IntRange(0, 2).Draw(t, "slow_participant")
		d := time.Duration(rapid.IntRange(2, 60).Draw(t, "delay_ms")) * time.Millisecond
		cut := time.Duration(rapid.Int64Range(1, int64(d)-1).Draw(t, "cut_after_precommit_ns"))
		abort := rapid.Bool().Draw(t, "ack_timeout_abort")
		got, rep := ackStory(seed, abort, slow, d, cut)
		agree, _ := rep.Result("commit-agreement")
		nb, _ := rep.Result("nonblocking")
		if abort && agree.Holds() {
			t.Fatalf("ack-timeout=abort: decisions %v and commit-agreement holds (p%d, delay %s, cut %s after PreCommit)", got, slow+1, d, cut)
		}
		if !abort && (!agree.Holds() || !nb.Holds()) {
			t.Fatalf("ack-timeout=commit: decisions %v, commit-agreement %s, nonblocking %s (p%d, delay %s, cut %s after PreCommit)",
				got, agree.Status(), nb.Status(), slow+1, d, cut)
		}
	})
}
