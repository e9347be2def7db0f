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

// Property tests of the time-bucket lock (lostinsoba, "Distributed locks: NoSQL":
// ZADD jobs GT CH floor(ts / period) JOB). Each worker's cron fires every hour,
// a few minutes past the hour by true time; each computes the bucket from its own
// clock. A clock far ahead raises the stored score past buckets that have not
// come yet, and when it is corrected (NTP steps it back) the true hours it
// claimed early get no run: random offsets and corrections find every-period
// violated. With perfect clocks every hour runs exactly once.

type cronStory struct {
	offsets []time.Duration // each worker's clock offset
	minute  []time.Duration // how far past each true hour each worker's cron fires
	fixes   fault.Schedule  // NTP steps a worker's clock back to the truth (a clock jump)
}

func (s cronStory) String() string {
	return fmt.Sprintf("offsets %v, crons at %v past the hour; %s", s.offsets, s.minute, s.fixes)
}

func worker(i int) string { return fmt.Sprintf("w%d", i+1) }

const hours = 5

func drawCronStory(t *rapid.T, skew bool) cronStory {
	var s cronStory
	for i := range rapid.IntRange(2, 3).Draw(t, "workers") {
		var off time.Duration
		if skew {
			off = time.Duration(rapid.IntRange(-180, 180).Draw(t, "offset_min")) * time.Minute
			if rapid.Bool().Draw(t, "corrected") {
				fix := fault.Fault{Kind: fault.ClockJump, Proc: worker(i), Mag: -off.Milliseconds(),
					At: time.Duration(rapid.IntRange(1, hours*60).Draw(t, "fix_at_min")) * time.Minute}
				if off != 0 {
					s.fixes = append(s.fixes, fix)
				}
			}
		}
		s.offsets = append(s.offsets, off)
		s.minute = append(s.minute, time.Duration(rapid.IntRange(1, 50).Draw(t, "cron_min"))*time.Minute)
	}
	return s
}

func runCronStory(s cronStory) check.Report {
	w := sim.NewWorld(sim.Config{Seed: 1, Limits: sim.Limits{MaxEvents: 100_000, MaxTime: (hours + 1) * time.Hour, MaxQueue: 10_000}})
	w.AddProcess("r1", "redis", sim.Clock{}, redis.NewNode(redis.NodeConfig{}))
	for i := range s.offsets {
		p := w.AddProcess(worker(i), "client", sim.Clock{Offset: s.offsets[i]},
			zset.New(zset.Config{Server: 0, Mode: zset.ModeBucket, Period: time.Hour, Hold: time.Minute}))
		for h := range hours {
			w.Schedule(sim.Time(time.Duration(h)*time.Hour+s.minute[i]), sim.Action{Kind: sim.ActCommand, Proc: p,
				Msg: sim.Message{Op: zset.CmdAcquire, Key: "report"}})
		}
	}
	s.fixes.Apply(w, nil)
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	w.Schedule(sim.Time(hours*time.Hour), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	return check.Check(w.Run(), check.Options{})
}

func TestPropertyClockAheadMissesPeriodsIsFound(t *testing.T) {
	simtest.Find(t, func(t *rapid.T) {
		s := drawCronStory(t, true)
		rep := runCronStory(s)
		if r, _ := rep.Result("every-period"); len(r.Violations) > 0 {
			t.Fatalf("%s\nschedule: %s", r.Violations[0].Detail, s)
		}
	})
}

func TestPropertyPerfectClocksRunEveryPeriodOnce(t *testing.T) {
	simtest.Check(t, 1, func(t *rapid.T) {
		s := drawCronStory(t, false)
		rep := runCronStory(s)
		for _, inv := range []string{"every-period", "once-per-bucket"} {
			if r, _ := rep.Result(inv); !r.Holds() {
				t.Fatalf("%s %s: %v\nschedule: %s", inv, r.Status(), r.Violations, s)
			}
		}
	})
}
