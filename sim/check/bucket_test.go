package check_test

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// once-per-bucket against hand-made histories (docs/invariants.md, after
// shared/design/invariants.md: "the job starts at most once per true-time
// bucket"). The time-bucket lock is lostinsoba's ("Distributed locks: NoSQL",
// https://lostinsoba.com/): ZADD GT CH with score floor(ts / period).

func jobStart(at float64, c sim.ProcID, period time.Duration) step {
	return step{s(at), sim.Observation{Kind: sim.ObsJobStart, Proc: c, Client: c, Lock: "J", Window: period}}
}

func TestOncePerBucket(t *testing.T) {
	t.Run("one start in each bucket holds", func(t *testing.T) {
		tr := history(false, s(40), jobStart(1, c1, s(10)), jobStart(12, c2, s(10)), jobStart(29.9, c1, s(10)))
		wantStatus(t, judge(t, tr, 0, "once-per-bucket"), "holds")
	})
	t.Run("a second start in the same true bucket violates it", func(t *testing.T) {
		tr := history(false, s(40), jobStart(1, c1, s(10)), jobStart(9.5, c2, s(10)), jobStart(10, c3, s(10)))
		r := judge(t, tr, 0, "once-per-bucket")
		wantStatus(t, r, "violated", s(9.5))
		if len(r.Violations) != 1 {
			t.Fatalf("want one violation (10 s opens the next bucket), got %v", r.Violations)
		}
		d := r.Violations[0].Detail
		for _, w := range []string{"c2 starts job J (claimed at 9.500s)", "[0.000s, 10.000s)", "c1 already claimed and started it at 1.000s"} {
			if !strings.Contains(d, w) {
				t.Errorf("detail %q should name %q", d, w)
			}
		}
	})
	t.Run("overlapping runs in different buckets hold: it is not a mutex", func(t *testing.T) {
		tr := history(false, s(40), jobStart(9, c1, s(10)), believe(9, c1), jobStart(10, c2, s(10)), believe(10, c2))
		wantStatus(t, judge(t, tr, 0, "once-per-bucket"), "holds")
		wantStatus(t, judge(t, tr, 0, "mutex-belief"), "violated", s(10))
	})
	// Reviewer's probe (issue 7): w1 claims at 0:59:59.999 and its answer comes
	// back after the hour; w2 claims the next hour at 1:00:00.5. Perfect clocks:
	// one run per hour. The start is dated by the claim, not by the answer.
	t.Run("a start is dated by its claim, not by the answer", func(t *testing.T) {
		claim := func(at float64, c sim.ProcID) step {
			return step{s(at), sim.Observation{Kind: sim.ObsAttempt, Proc: c, Client: c, Lock: "J"}}
		}
		tr := history(false, s(40), claim(9.999, c1), jobStart(10.001, c1, s(10)), claim(10.5, c2), jobStart(10.502, c2, s(10)))
		wantStatus(t, judge(t, tr, 0, "once-per-bucket"), "holds")
		tr = history(false, s(40), jobStart(10.001, c1, s(10)), jobStart(10.502, c2, s(10)))
		wantStatus(t, judge(t, tr, 0, "once-per-bucket"), "violated", s(10.502))
	})
	t.Run("without job starts it is not applicable", func(t *testing.T) {
		tr := history(false, s(10), believe(1, c1))
		wantStatus(t, judge(t, tr, 0, "once-per-bucket"), "n/a")
	})
}
