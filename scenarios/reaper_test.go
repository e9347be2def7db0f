package scenarios

import (
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/sim/simtest"
)

// Issue 31, item 8: a reaper's recovery is not a double run. lostinsoba's
// state-transition lock ("Distributed locks: NoSQL",
// https://lostinsoba.com/posts/distributed_locks_nosql) lets another worker set a
// timeout status on a job whose worker died, so that the job runs: safe, only
// slow, when the reaper's clock is slow. A reaper whose clock is fast resets a
// job a live worker still runs: two runs at once. The catalogue tells each once
// (zset-state-reaper-slow-clock, zset-state-reaper-fast-clock); these
// tellings use other names, timings, faults and clock errors, and the verdicts
// are computed by the checker from the run.

// reaperTelling is one story and the invariants it must violate or keep.
type reaperTelling struct {
	name, src      string
	verdict        string
	violated, hold []string
}

var reaperTellings = []reaperTelling{
	{
		name: "crashed worker, reaper 5% slow and 40 s behind, a third worker finds the job done",
		src: `protocol zset
seed 3
bound 2m
node jobs redis
client cron-a zset-lock server=jobs mode=state hold=45s
client cron-b zset-lock server=jobs mode=state hold=15s retry=7s attempts=30 reap-after=1m drift=-50000 offset=-40s
client cron-c zset-lock server=jobs mode=state hold=15s retry=7s attempts=30 reap-after=1m
at 2s cron-a acquire nightly
at 30s crash cron-a
at 31s cron-b acquire nightly
at 3m cron-c acquire nightly
run until=4m
`,
		verdict: "SAFE", hold: []string{"once-per-bucket", "grant-exclusive", "mutex-belief", "deadlock-free"},
	},
	{
		name: "worker lost power mid-run; the reaper's clock is slow and restarts count too",
		src: `protocol zset
seed 2
bound 90s
node jobs redis
client p zset-lock server=jobs mode=state hold=20s
client q zset-lock server=jobs mode=state hold=5s retry=2s attempts=60 reap-after=40s drift=-80000
at 0s p acquire export
at 10s power-loss p
at 12s q acquire export
at 30s restart p
run until=3m
`,
		verdict: "SAFE", hold: []string{"once-per-bucket", "grant-exclusive", "mutex-belief"},
	},
	{
		name: "live worker, reaper 2 min ahead: reset while the job still runs",
		src: `protocol zset
seed 3
node jobs redis
client cron-a zset-lock server=jobs mode=state hold=3m
client cron-b zset-lock server=jobs mode=state hold=20s retry=10s attempts=30 reap-after=4m offset=2m
at 0s cron-a acquire nightly
at 5s cron-b acquire nightly
run until=5m
`,
		verdict: "UNSAFE", violated: []string{"mutex-belief", "once-per-bucket"}, hold: []string{"grant-exclusive"},
	},
	{
		name: "live worker that finishes just after a 5% fast reaper resets it",
		src: `protocol zset
seed 4
node jobs redis
client p zset-lock server=jobs mode=state hold=39s
client q zset-lock server=jobs mode=state hold=5s retry=500ms attempts=200 reap-after=40s drift=50000
at 1s p acquire export
at 2s q acquire export
run until=2m
`,
		verdict: "UNSAFE", violated: []string{"mutex-belief", "once-per-bucket"},
	},
}

func TestReaperRecoveryToldASecondWay(t *testing.T) {
	for _, tl := range reaperTellings {
		t.Run(tl.name, func(t *testing.T) {
			s, err := Parse("telling.scn", tl.src)
			if err != nil {
				t.Fatalf("%v\n%s", err, tl.src)
			}
			r := Run(s, RunOptions{})
			if got := string(r.Report.Verdict); got != tl.verdict {
				t.Errorf("verdict %s, want %s", got, tl.verdict)
			}
			for _, n := range tl.violated {
				if res, _ := r.Report.Result(n); len(res.Violations) == 0 {
					t.Errorf("%s %s, want violated", n, res.Status())
				}
			}
			for _, n := range tl.hold {
				if res, _ := r.Report.Result(n); !res.Holds() {
					t.Errorf("%s %s, want holds", n, res.Status())
				}
			}
		})
	}
}

// reaperStory draws a state lock with a reaper: w1 claims the job and either
// crashes mid-run (crash) or runs it to the end; w2 retries with a reaper
// whose clock drifts by a drawn amount, slow when crash, fast otherwise.
func reaperStory(t *rapid.T, crash bool) string {
	reapS := rapid.IntRange(10, 60).Draw(t, "reap_after_s")
	var b strings.Builder
	fmt.Fprintf(&b, "protocol zset\nseed 1\nbound 10m\nnode r1 redis\n")
	if crash {
		hold := rapid.IntRange(5, 2*reapS).Draw(t, "w1_hold_s")
		drift := -rapid.IntRange(0, 100000).Draw(t, "slow_ppm")
		fmt.Fprintf(&b, "client w1 zset-lock server=r1 mode=state hold=%ds\n", hold)
		fmt.Fprintf(&b, "client w2 zset-lock server=r1 mode=state hold=%s retry=1s attempts=%d reap-after=%ds drift=%d\n",
			drawMs(t, "w2_hold", 100, 20000), 2*reapS+20, reapS, drift)
		// w1 dies before reap-after has passed in true time: a reaper that is
		// slow (or exact) never finds it alive.
		fmt.Fprintf(&b, "at 0s w1 acquire J\nat %s crash w1\n", drawMs(t, "crash_at", 10, min(hold, reapS)*1000-10))
	} else {
		// Fast by 5% to 10%: w2 reaps at reap-after/(1+drift) in true time, at
		// least 476 ms early, and at most one retry (300 ms) later; w1 runs
		// until 50 ms before reap-after, so it is alive when reaped.
		drift := rapid.IntRange(50000, 100000).Draw(t, "fast_ppm")
		retry := rapid.IntRange(50, 300).Draw(t, "retry_ms")
		fmt.Fprintf(&b, "client w1 zset-lock server=r1 mode=state hold=%dms\n", reapS*1000-50)
		fmt.Fprintf(&b, "client w2 zset-lock server=r1 mode=state hold=1s retry=%dms attempts=%d reap-after=%ds drift=%d\n",
			retry, reapS*1000/retry+10, reapS, drift)
		fmt.Fprintf(&b, "at 0s w1 acquire J\n")
	}
	fmt.Fprintf(&b, "at %s w2 acquire J\nrun until=15m\n", drawMs(t, "w2_at", 1, 9000))
	return b.String()
}

// A crashed worker's job, reaped by a reaper however slow: the job runs once to
// the end, the reset ends the crashed claim, and no two workers run it at once.
func TestPropertyReaperRecoveryIsNotASecondRun(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		src := reaperStory(t, true)
		r := runDrawn(t, src)
		violatedIn(t, r, src, "once-per-bucket", "grant-exclusive", "mutex-belief")
		if n, _ := r.Report.Metric("acquisitions"); n != 2 {
			t.Fatalf("%v acquisitions, want 2: the crashed worker's and the reaper's\n%s", n, src)
		}
	})
}

// A live worker's job, reaped by a fast reaper before it ends: always two
// workers at once, and a job that runs once ran again.
func TestPropertyFastReaperDoublesALiveRun(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		src := reaperStory(t, false)
		r := runDrawn(t, src)
		for _, n := range []string{"mutex-belief", "once-per-bucket"} {
			if res, _ := r.Report.Result(n); len(res.Violations) == 0 {
				t.Fatalf("%s %s, want violated: the reaper reset a live worker\n%s", n, res.Status(), src)
			}
		}
	})
}
