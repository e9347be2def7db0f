package scenarios_test

import (
	"slices"
	"testing"
	"time"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/scenarios/proptest"
	"github.com/locksim/locksim/sim/fault"
)

// The Redis, Redlock and protected-resource mistakes of issue 19
// (docs/protocols/redis.md and redlock.md, "Common mistakes") that the
// literature calls unsafe are FOUND without chance: each story is a template
// in testdata/properties (its workload fixed, its paragraph saying what the
// design gets wrong and who says so), and proptest.Find runs every schedule
// of one fault of the kinds the story turns on, at every gap between the
// steps of the process it hits, in a fixed order, before it would draw any at
// random. The same `go test` gives the same answer every time. The fixes stay
// safe under random schedules (mistakes_redis_property_test.go, in package
// scenarios: proptest imports scenarios, so these run from the external test
// package; TestPropertyRedisMistakes's rows keep their names, its FIND rows
// here and its fixes there).

// findIn finds a violation of inv in template under every schedule of one
// fault of the kinds given, and checks that the shortest one is one fault of
// those kinds that breaks inv.
func findIn(t *testing.T, template string, kinds []fault.Kind, inv ...string) proptest.Failure {
	t.Helper()
	f := proptest.Find(t, proptest.Config{Template: "testdata/properties/" + template, Faults: kinds, Invariants: inv,
		CheckFaults: 1, Dir: t.TempDir()})
	if len(f.Schedule) != 1 || !slices.Contains(kinds, f.Schedule[0].Kind) {
		t.Errorf("found with %v, want one fault of %v", f.Schedule, kinds)
	}
	for _, n := range inv {
		if !slices.Contains(f.Broken, n) {
			t.Errorf("found %v broken, want %s", f.Broken, n)
		}
	}
	return f
}

// Mistake 2b. A Redlock client that unlocks only the nodes that said OK: when
// a slow link makes its round fail, the nodes it did not unlock keep its key,
// and the lock is unavailable for most of a TTL (unlocking every instance never
// leaves it so). Nothing is unsafe: progress after the faults (the template's
// 3 s bound) finds it, and the replay's metric measures it.
func TestPropertyRedlockUnlockGrantedOnlyLeavesTheLockUnavailable(t *testing.T) {
	f := proptest.Find(t, proptest.Config{Template: "testdata/properties/redlock-unlock-granted-only.scn",
		Faults: []fault.Kind{fault.Delay}, Invariants: []string{"progress"}, Liveness: true, CheckFaults: 1, Dir: t.TempDir()})
	s, err := scenarios.Load(f.File)
	if err != nil {
		t.Fatal(err)
	}
	if u, _ := scenarios.Run(s, scenarios.RunOptions{}).Report.Metric("unavailable_max_ms"); u < 2500 {
		t.Fatalf("the lock was unavailable for %.0f ms at a stretch, want 2500 or more\n%s", u, f.Message)
	}
}

// mistakeFindings are the rows of TestPropertyRedisMistakes that FIND a
// mistake: each template breaks inv under one fault of the kinds the random
// story drew, and holds without it.
var mistakeFindings = []struct {
	name     string
	template string
	faults   []fault.Kind
	inv      []string
}{
	// Mistake 1: the SETNX stamp lock taken over with DEL then SETNX, its
	// holder crashed; and with GETSET, clocks that disagree.
	{"StampLockDelRaceIsFound", "stamp-del-race.scn", []fault.Kind{fault.Crash}, []string{"mutex-belief"}},
	{"StampLockGetSetWithAClockAheadIsFound", "stamp-getset-clock-ahead.scn", []fault.Kind{fault.ClockJump}, []string{"mutex-belief"}},
	// Mistake 2a: the whole TTL counted as the validity, a stall in the round.
	{"RedlockWithoutElapsedCheckIsFound", "redlock-full-ttl.scn", []fault.Kind{fault.Pause}, []string{"mutex-belief"}},
	// Mistake 3: extensions that re-SET, or count any one node.
	{"RedlockExtendBySetIsFound", "redlock-extend-set.scn", []fault.Kind{fault.Partition}, []string{"mutex-belief"}},
	{"RedlockExtendOnAnyNodeIsFound", "redlock-extend-any-node.scn", []fault.Kind{fault.Partition}, []string{"mutex-belief"}},
	// Mistake 4: fencing tokens from the nodes' own counters.
	{"RedlockTokensFromNodeCountersAreFound", "redlock-tokens-max-of-nodes.scn", []fault.Kind{fault.Partition}, []string{"tokens-ordered"}},
	// Mistake 5: keys expired by the nodes' wall clocks.
	{"WallClockExpiryUnderAJumpIsFound", "redlock-wall-clock-expiry.scn", []fault.Kind{fault.ClockJump}, []string{"mutex-belief"}},
	// Mistakes 6 and 7: a storage that fences writes only, and the lock-value
	// check-and-set, against Kleppmann's pause.
	{"FencingOnWritesOnlyIsFound", "fencing-writes-only.scn", []fault.Kind{fault.Pause}, []string{"resource-safe"}},
	{"LockValueLoneStaleWriteIsFound", "lock-value-lone-write.scn", []fault.Kind{fault.Pause}, []string{"resource-safe"}},
}

func TestPropertyRedisMistakes(t *testing.T) {
	for _, c := range mistakeFindings {
		t.Run(c.name, func(t *testing.T) {
			f := findIn(t, c.template, c.faults, c.inv...)
			if c.name == "RedlockWithoutElapsedCheckIsFound" {
				// The stall falls inside c1's round (ten hops of 0.5 ms): a
				// pause after it holds the lock is another story (redlock-gc-pause).
				if p := f.Schedule[0]; p.Proc != "c1" || p.At > 10*time.Millisecond {
					t.Errorf("found with %v, want c1 stalled in its round", f.Schedule)
				}
			}
		})
	}
}
