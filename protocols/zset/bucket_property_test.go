package zset_test

import (
	"fmt"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols/redis"
	"github.com/locksim/locksim/protocols/zset"
	"github.com/locksim/locksim/scenarios/explore"
	"github.com/locksim/locksim/scenarios/proptest"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/sim/fault"
	"github.com/locksim/locksim/sim/simtest"
)

// Property tests of the time-bucket lock (lostinsoba, "Distributed locks: NoSQL":
// ZADD jobs GT CH floor(ts / period) JOB). Each worker's cron fires every hour,
// a few minutes past the hour by true time; each computes the bucket from its own
// clock. A clock far ahead raises the stored score past buckets that have not
// come yet, and when it is corrected (NTP steps it back) the true hours it
// claimed early get no run: every correction of a clock ahead over a template
// finds every-period violated (testdata/properties/bucket-clock-ahead.scn). With
// perfect clocks every hour runs exactly once, whatever the crons' minutes.

type cronStory struct {
	minute []time.Duration // how far past each true hour each worker's cron fires
}

func (s cronStory) String() string {
	return fmt.Sprintf("crons at %v past the hour", s.minute)
}

func worker(i int) string { return fmt.Sprintf("w%d", i+1) }

const hours = 5

func drawCronStory(t *rapid.T) cronStory {
	var s cronStory
	for range rapid.IntRange(2, 3).Draw(t, "workers") {
		s.minute = append(s.minute, time.Duration(rapid.IntRange(1, 50).Draw(t, "cron_min"))*time.Minute)
	}
	return s
}

func runCronStory(s cronStory) check.Report {
	w := sim.NewWorld(sim.Config{Seed: 1, Limits: sim.Limits{MaxEvents: 100_000, MaxTime: (hours + 1) * time.Hour, MaxQueue: 10_000}})
	w.AddProcess("r1", "redis", sim.Clock{}, redis.NewNode(redis.NodeConfig{}))
	for i := range s.minute {
		p := w.AddProcess(worker(i), "client", sim.Clock{},
			zset.New(zset.Config{Server: 0, Mode: zset.ModeBucket, Period: time.Hour, Hold: time.Minute}))
		for h := range hours {
			w.Schedule(sim.Time(time.Duration(h)*time.Hour+s.minute[i]), sim.Action{Kind: sim.ActCommand, Proc: p,
				Msg: sim.Message{Op: zset.CmdAcquire, Key: "report"}})
		}
	}
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	w.Schedule(sim.Time(hours*time.Hour), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	return check.Check(w.Run(), check.Options{})
}

// A clock 90 minutes ahead, corrected by a clock jump back: every jump of the
// menu's sizes, at every gap between each worker's steps, finds an hour with
// no run. The default menu's jumps (seconds) cannot move an hour's bucket, so
// the menu's clock jumps are the correction and its mirror.
func TestPropertyClockAheadMissesPeriodsIsFound(t *testing.T) {
	f := proptest.Find(t, proptest.Config{Template: "testdata/properties/bucket-clock-ahead.scn",
		Faults: []fault.Kind{fault.ClockJump}, Invariants: []string{"every-period"}, Liveness: true, CheckFaults: 1,
		Menu: explore.DefaultMenu(0).With(fault.ClockJump, []explore.Size{{Mag: -(90 * time.Minute).Milliseconds()}, {Mag: (90 * time.Minute).Milliseconds()}}),
		Dir:  t.TempDir()})
	if len(f.Schedule) != 1 || f.Schedule[0].Proc != "w1" || f.Schedule[0].Mag >= 0 {
		t.Errorf("found with %v, want w1's clock stepped back", f.Schedule)
	}
}

func TestPropertyPerfectClocksRunEveryPeriodOnce(t *testing.T) {
	simtest.Check(t, 1, func(t *rapid.T) {
		s := drawCronStory(t)
		rep := runCronStory(s)
		for _, inv := range []string{"every-period", "once-per-bucket"} {
			if r, _ := rep.Result(inv); !r.Holds() {
				t.Fatalf("%s %s: %v\nschedule: %s", inv, r.Status(), r.Violations, s)
			}
		}
	})
}
