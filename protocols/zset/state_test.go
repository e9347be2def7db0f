package zset_test

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols/redis"
	"github.com/locksim/locksim/protocols/zset"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/sim/fault"
	"github.com/locksim/locksim/sim/simtest"
)

// Tests of the state-transition lock's release, grouped by what they prove.
// Source: lostinsoba, "Distributed locks: NoSQL", the state transition lock
// (https://lostinsoba.com/posts/distributed_locks_nosql): a job is claimed by
// moving its status to in progress (ZADD jobs GT CH 1 J), and a claim is
// taken from new or failed only. Released to done (2), no claim moves it
// again; released to new (0), the next claim runs the job again.

// The node reports the state lock's claims as grants, and their ends: the
// checker's ledger sees one acquisition per claim that won.
func TestStateClaimsAreGrants(t *testing.T) {
	cfg := zset.Config{Mode: zset.ModeState, Hold: time.Second}
	tr := run(t, nil, []zset.Config{cfg}, acquire(0, 1))
	var grants, ends int
	for _, o := range tr.Observations() {
		switch o.Kind {
		case sim.ObsGrant:
			grants++
		case sim.ObsGrantEnd:
			ends++
		}
	}
	if grants != 1 || ends != 1 {
		t.Fatalf("%d grants and %d grant ends, want the claim's grant and its end at the release", grants, ends)
	}
}

// The story of zset-state-released-claimed-again told another way: one
// worker, its cron firing twice, 10 s apart. Released to new, its second
// claim wins and the job runs twice; released to done, the second claim gets
// CH = 0.
func TestStateReleasedToNewRunsTheJobAgain(t *testing.T) {
	for _, tc := range []struct {
		toNew bool
		runs  int
		want  string
	}{{true, 2, "violated"}, {false, 1, "holds"}} {
		cfg := zset.Config{Mode: zset.ModeState, Hold: time.Second, ReleaseToNew: tc.toNew}
		tr := run(t, nil, []zset.Config{cfg}, acquire(0, 1), acquire(10*time.Second, 1))
		if starts, _ := believers(tr); len(starts) != tc.runs {
			t.Errorf("release to new %v: runs %v, want %d", tc.toNew, starts, tc.runs)
		}
		rep := check.Check(tr, check.Options{})
		if r, _ := rep.Result("once-per-bucket"); r.Status() != tc.want {
			t.Errorf("release to new %v: once-per-bucket %s, want %s (%v)", tc.toNew, r.Status(), tc.want, r.Violations)
		}
	}
}

// stateRun draws 2 to 4 workers claiming job J at random moments, each
// running it for a random time and retrying every 100 ms to 1 s, with crashes
// of the workers drawn from the fault schedule.
func stateRun(t *rapid.T, toNew bool) (check.Report, string) {
	w := sim.NewWorld(sim.Config{Seed: rapid.Uint64().Draw(t, "seed"), Limits: sim.Limits{MaxEvents: 100_000, MaxTime: time.Minute, MaxQueue: 10_000}})
	w.AddProcess("r1", "redis", sim.Clock{}, redis.NewNode(redis.NodeConfig{}))
	n := rapid.IntRange(2, 4).Draw(t, "workers")
	var names []string
	desc := ""
	for i := range n {
		cfg := zset.Config{Server: 0, Mode: zset.ModeState, ReleaseToNew: toNew,
			Hold:  time.Duration(rapid.IntRange(100, 3000).Draw(t, "hold_ms")) * time.Millisecond,
			Retry: every(time.Duration(rapid.IntRange(100, 1000).Draw(t, "retry_ms"))*time.Millisecond, rapid.IntRange(0, 20).Draw(t, "attempts"))}
		name := fmt.Sprintf("w%d", i+1)
		names = append(names, name)
		p := w.AddProcess(name, "client", sim.Clock{}, zset.New(cfg))
		at := time.Duration(rapid.IntRange(0, 5000).Draw(t, "claim_ms")) * time.Millisecond
		w.Schedule(sim.Time(at), sim.Action{Kind: sim.ActCommand, Proc: p, Msg: sim.Message{Op: zset.CmdAcquire, Key: "J"}})
		desc += fmt.Sprintf("%s claims at %s holding %s, retry %s; ", name, at, cfg.Hold, cfg.Retry.Delay)
	}
	sp := fault.Space{Menu: []fault.Kind{fault.Crash}, Start: 0, Stop: 5 * time.Second, End: 10 * time.Second,
		Targets: func(fault.Kind) fault.Targets { return fault.Targets{Procs: names} }}
	faults := sp.Draw(simtest.Rapid(t))
	faults.Apply(w, nil)
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond, Jitter: 2 * time.Millisecond, Dist: sim.DelayUniform})
	w.Schedule(sim.Time(30*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	return check.Check(w.Run(), check.Options{}), desc + faults.String()
}

// Released to new, random claims find the job run twice.
func TestPropertyStateReleasedToNewRunsTwice(t *testing.T) {
	// Found at seed 1; from other seeds in 10 of 10 ranges of 50 cases (Find requires 8).
	simtest.Find(t, func(t *rapid.T) {
		rep, desc := stateRun(t, true)
		if r, _ := rep.Result("once-per-bucket"); len(r.Violations) > 0 {
			t.Fatalf("%s\n%s", r.Violations[0].Detail, desc)
		}
	})
}

// Released to done, the job runs at most once and never has two holders,
// whatever the claims and crashes. 100 fixed schedules by default, 1,000
// under -tags long.
func TestPropertyStateDoneRunsOnce(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		rep, desc := stateRun(t, false)
		for _, inv := range []string{"once-per-bucket", "mutex-belief", "grant-exclusive"} {
			if r, _ := rep.Result(inv); len(r.Violations) > 0 {
				t.Fatalf("%s violated: %s\n%s", inv, r.Violations[0].Detail, desc)
			}
		}
	})
}
