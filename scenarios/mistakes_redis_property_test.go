package scenarios

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

// Property tests of the Redis, Redlock and protected-resource mistakes of issue
// 19 (docs/protocols/redis.md and redlock.md, "Common mistakes"): each fix stays
// safe over 50 to 100 fixed schedules (ten times more under -tags long;
// simtest.Check). Each story is a scenario written in the
// language with every time, delay and size drawn by rapid from the case's
// seed, so a finding names its seed and is judged by the checker like any run. That
// each mistake the literature calls unsafe is FOUND is proved without chance,
// by every fault schedule over a template (mistakes_redis_find_test.go).

// runDrawn parses and runs a drawn scenario, failing the property on a parse
// error (a bug in the template, not a finding).
func runDrawn(t *rapid.T, src string) *Result {
	s, err := Parse("drawn.scn", src)
	if err != nil {
		t.Fatalf("template does not parse: %v\n%s", err, src)
	}
	return Run(s, RunOptions{})
}

// violatedIn fails the property (a finding) if any named invariant is violated.
func violatedIn(t *rapid.T, r *Result, src string, names ...string) {
	for _, n := range names {
		if res, _ := r.Report.Result(n); len(res.Violations) > 0 {
			t.Fatalf("%s violated: %s\nscenario:\n%s", n, res.Violations[0].Detail, src)
		}
	}
}

func drawMs(t *rapid.T, label string, lo, hi int) string {
	return fmt.Sprintf("%dms", rapid.IntRange(lo, hi).Draw(t, label))
}

// Mistake 1. The old SETNX page's stamp lock: c1 crashes holding it; c2 and c3
// try after its stamp has passed, at drawn times, over links of drawn delays,
// and c3 may be descheduled for a drawn while after its GET.
func stampStory(t *rapid.T, acquire string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "protocol redis\nseed 1\nbound 60s\nnode r1 redis\n")
	for _, c := range []string{"c1", "c2", "c3"} {
		fmt.Fprintf(&b, "client %s redis-lock server=r1 acquire=%s retry=%s validity-timer=on\n", c, acquire, drawMs(t, c+"_retry", 100, 500))
		fmt.Fprintf(&b, "link %s r1 delay=%dus\n", c, rapid.IntRange(100, 3000).Draw(t, c+"_delay_us"))
	}
	b.WriteString("at 0s c1 acquire L ttl=2s\nat 500ms crash c1\n")
	// The waiters come at about the same time (within 2 ms, as two pollers of
	// one expired lock do), and c3 may be descheduled soon after.
	c2 := rapid.IntRange(2100_000, 3000_000).Draw(t, "c2_at_us") // c1's stamp has passed
	c3 := c2 + rapid.IntRange(-2000, 2000).Draw(t, "c3_after_c2_us")
	fmt.Fprintf(&b, "at %dus c2 acquire L ttl=2s\nat %dus c3 acquire L ttl=2s\n", c2, c3)
	if rapid.Bool().Draw(t, "c3_pauses") {
		fmt.Fprintf(&b, "at %dus pause c3 for=%dus\n", c3+rapid.IntRange(0, 5000).Draw(t, "c3_pause_after_us"), rapid.IntRange(1000, 20_000).Draw(t, "c3_pause_us"))
	}
	fmt.Fprintf(&b, "at %s c2 release L\nat %s c3 release L\nrun until=7s\n", drawMs(t, "c2_release", 3000, 6000), drawMs(t, "c3_release", 3000, 6000))
	return b.String()
}

const fiveNodes = "node A redis%[1]s\nnode B redis%[1]s\nnode C redis%[1]s\nnode D redis%[1]s\nnode E redis%[1]s\n"

// Mistake 2a. c1 stalls for a drawn while in the middle of its sequential
// round; c2 tries at a drawn time.
func stallStory(t *rapid.T, validity string) string {
	var b strings.Builder
	delay := rapid.IntRange(100, 2000).Draw(t, "delay_us")
	fmt.Fprintf(&b, "protocol redlock\nseed 1\nbound 60s\nnetwork delay=%dus\n", delay)
	fmt.Fprintf(&b, fiveNodes, "")
	fmt.Fprintf(&b, "client c1 redlock nodes=A,B,C,D,E validity=%s attempts=1\n", validity)
	fmt.Fprintf(&b, "client c2 redlock nodes=A,B,C,D,E validity=%s retry=%s\n", validity, drawMs(t, "retry", 50, 500))
	// The stall falls inside c1's round (ten hops of the network delay): a
	// pause after it holds the lock is another story (redlock-gc-pause).
	fmt.Fprintf(&b, "at 0s c1 acquire L ttl=2s\nat %dus pause c1 for=%s\n", rapid.IntRange(0, 8*delay).Draw(t, "stall_at_us"), drawMs(t, "stall", 1, 3000))
	fmt.Fprintf(&b, "at %s c2 acquire L ttl=2s\nat 6s c1 release L\nat 6s c2 release L\nrun until=7s\n", drawMs(t, "c2_at", 1, 5000))
	return b.String()
}

// Mistake 2b. c1's links to some nodes are slow (drawn), its round may fail;
// c2 wants the lock from a drawn time. Unlocking only the nodes that said OK
// leaves keys that make the lock unavailable for most of a TTL; unlocking every
// instance never does (FIFO links: the delete follows the SET).
func slowLinksStory(t *rapid.T, unlock string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "protocol redlock\nseed 1\nbound 60s\nnetwork delay=500us\n")
	for _, n := range []string{"A", "B", "C", "D", "E"} {
		if rapid.Bool().Draw(t, "slow_"+n) {
			fmt.Fprintf(&b, "link c1 %s delay=%s\n", n, drawMs(t, "delay_"+n, 30, 300))
		}
	}
	fmt.Fprintf(&b, fiveNodes, "")
	fmt.Fprintf(&b, "client c1 redlock nodes=A,B,C,D,E mode=multiplex attempts=1 unlock=%s\n", unlock)
	fmt.Fprintf(&b, "client c2 redlock nodes=A,B,C,D,E mode=multiplex retry=100ms retry-mode=fixed unlock=%s\n", unlock)
	fmt.Fprintf(&b, "at 0s c1 acquire L ttl=5s\nat 2s c1 release L\nat %s c2 acquire L ttl=5s\nat 7s c2 release L\nrun until=8s\n", drawMs(t, "c2_at", 500, 2000))
	return b.String()
}

func TestPropertyRedlockUnlockAllKeepsTheLockAvailable(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		src := slowLinksStory(t, "all")
		r := runDrawn(t, src)
		if u, _ := r.Report.Metric("unavailable_max_ms"); u > 400 {
			t.Fatalf("the lock was unavailable for %.0f ms at a stretch\nscenario:\n%s", u, src)
		}
		violatedIn(t, r, src, "mutex-belief", "grant-exclusive")
	})
}

// Mistake 3. c1 holds the lock; the network may cut it off from some nodes and
// c2 off from others; c1 extends at a drawn time, possibly after its validity
// ended; c2 tries at a drawn time.
func extendStory(t *rapid.T, extend string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "protocol redlock\nseed 1\nbound 60s\nnetwork delay=500us\n")
	fmt.Fprintf(&b, fiveNodes, "")
	fmt.Fprintf(&b, "client c1 redlock nodes=A,B,C,D,E extend=%s\n", extend)
	fmt.Fprintf(&b, "client c2 redlock nodes=A,B,C,D,E extend=%s retry=%s\n", extend, drawMs(t, "retry", 50, 500))
	b.WriteString("at 0s c1 acquire L ttl=2s\n")
	for _, n := range []string{"A", "B", "C", "D", "E"} {
		switch rapid.IntRange(0, 2).Draw(t, "cut_"+n) {
		case 1:
			fmt.Fprintf(&b, "at %s partition c1 | %s\n", drawMs(t, "cut_at_"+n, 100, 1500), n)
		case 2:
			fmt.Fprintf(&b, "at 0s partition c2 | %s\n", n)
		}
	}
	fmt.Fprintf(&b, "at %s c1 extend\nat %s c2 acquire L ttl=2s\nat 7s c1 release L\nat 8s c2 release L\nrun until=9s\n",
		drawMs(t, "extend_at", 500, 4000), drawMs(t, "c2_at", 100, 4000))
	return b.String()
}

// Mistake 4. Clients reach drawn majorities, the nodes' counters start at drawn
// values (earlier holders reached different nodes), and a holder may pause past
// its lease before its write.
func tokenStory(t *rapid.T, fencing string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "protocol redlock\nseed 1\nbound 60s\nnetwork delay=500us\n")
	for _, n := range []string{"A", "B", "C", "D", "E"} {
		fmt.Fprintf(&b, "node %s redis preload=token:L=%d\n", n, rapid.IntRange(0, 20).Draw(t, "counter_"+n))
	}
	fmt.Fprintf(&b, "node T redis persistence=always preload=token:L=%d\n", rapid.IntRange(0, 20).Draw(t, "counter_T"))
	b.WriteString("resource db fencing=on\n")
	for i := 1; i <= 3; i++ {
		c := fmt.Sprintf("c%d", i)
		fmt.Fprintf(&b, "client %s redlock nodes=A,B,C,D,E fencing=%s counter=T retry=100ms\n", c, fencing)
		for _, n := range []string{"A", "B", "C", "D", "E"} {
			if rapid.IntRange(0, 3).Draw(t, c+"_cut_"+n) == 0 {
				fmt.Fprintf(&b, "at 0s partition %s | %s\n", c, n)
			}
		}
		at := rapid.IntRange(0, 6000).Draw(t, c+"_at_ms")
		fmt.Fprintf(&b, "at %dms %s acquire L ttl=1s\n", at, c)
		if rapid.Bool().Draw(t, c+"_pauses") {
			fmt.Fprintf(&b, "at %dms pause %s for=%s\n", at+200, c, drawMs(t, c+"_pause", 100, 3000))
		}
		fmt.Fprintf(&b, "at %dms %s write db\nat %dms %s release L\n", at+300, c, at+700, c)
	}
	b.WriteString("run until=12s\n")
	return b.String()
}

// Mistake 5. c1 holds the lock on a drawn majority; drawn nodes' wall clocks
// jump forward by drawn amounts; c2 tries at a drawn time.
func jumpStory(t *rapid.T, expiry string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "protocol redlock\nseed 1\nbound 60s\nnetwork delay=500us\n")
	fmt.Fprintf(&b, fiveNodes, " expiry="+expiry)
	b.WriteString("client c1 redlock nodes=A,B,C,D,E attempts=1\nclient c2 redlock nodes=A,B,C,D,E attempts=1\n")
	for _, n := range []string{"A", "B", "C", "D", "E"} {
		switch rapid.IntRange(0, 2).Draw(t, "cut_"+n) {
		case 1:
			fmt.Fprintf(&b, "at 0s partition c1 | %s\n", n)
		case 2:
			fmt.Fprintf(&b, "at 0s partition c2 | %s\n", n)
		}
		if rapid.Bool().Draw(t, "jump_"+n) {
			fmt.Fprintf(&b, "at %s clock-jump %s +%s\n", drawMs(t, "jump_at_"+n, 100, 3000), n, drawMs(t, "jump_by_"+n, 100, 20_000))
		}
	}
	fmt.Fprintf(&b, "at 0s c1 acquire L ttl=5s\nat %s c2 acquire L ttl=5s\nrun until=12s\n", drawMs(t, "c2_at", 200, 6000))
	return b.String()
}

// Mistakes 6 and 7. Kleppmann's pause on one Redis node with a token counter:
// c1 may read before it pauses; c2 takes the lock, reads, and writes at drawn
// times; c1 wakes at a drawn time.
func pauseStory(t *rapid.T, fencing string, c1Reads bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "protocol redis\nseed 1\nbound 60s\nnode r1 redis preload=token:L=32\n")
	for _, c := range []string{"c1", "c2"} {
		fmt.Fprintf(&b, "client %s redis-lock server=r1 fencing=incr validity-timer=on retry=200ms\n", c)
	}
	fmt.Fprintf(&b, "resource db fencing=%s\nat 0s c1 acquire L ttl=2s\n", fencing)
	if c1Reads {
		b.WriteString("at 100ms c1 read db\n")
	}
	// c2 tries at any time; c1 wakes anywhere from before c2's read to after
	// c2's write (the stretch where a stale write can fall).
	c2 := rapid.IntRange(100, 4000).Draw(t, "c2_at_ms")
	read := c2 + rapid.IntRange(0, 3000).Draw(t, "c2_read_after_ms")
	write := read + rapid.IntRange(0, 2000).Draw(t, "c2_write_after_ms")
	wake := max(read+rapid.IntRange(-1000, write-read+1000).Draw(t, "c1_wakes_after_c2_read_ms"), 600)
	fmt.Fprintf(&b, "at 500ms pause c1\nat 600ms c1 write db\nat %dms resume c1\n", wake)
	fmt.Fprintf(&b, "at %dms c2 acquire L ttl=2s\nat %dms c2 read db\nat %dms c2 write db\nrun until=12s\n", c2, read, write)
	return b.String()
}

// mistakeProperties: each row's story is drawn at random, and none may ever
// violate its invariants over 1,000 schedules (a fix). The rows that FIND a
// mistake the literature calls unsafe are TestPropertyRedisMistakes's rows in
// mistakes_redis_find_test.go.
var mistakeProperties = []struct {
	name  string
	story func(t *rapid.T) string
	inv   []string
}{
	{"StampLockGetSetIsSafeWhileClocksAgree", func(t *rapid.T) string { return stampStory(t, "setnx-stamp-getset") }, []string{"mutex-belief", "grant-exclusive"}},
	{"RedlockElapsedCheckIsSafe", func(t *rapid.T) string { return stallStory(t, "elapsed") }, []string{"mutex-belief", "grant-exclusive", "quorum-backed"}},
	{"RedlockCompareAndExtendIsSafe", func(t *rapid.T) string { return extendStory(t, "compare-and-extend") }, []string{"mutex-belief", "grant-exclusive", "quorum-backed"}},
	{"RedlockTokensFromOneCounterAreOrdered", func(t *rapid.T) string { return tokenStory(t, "counter") }, []string{"tokens-ordered", "resource-safe", "fencing-monotonic"}},
	{"MonotonicExpiryIsSafeUnderJumps", func(t *rapid.T) string { return jumpStory(t, "monotonic") }, []string{"mutex-belief", "grant-exclusive", "quorum-backed"}},
	{"FencingEveryOperationIsSafe", func(t *rapid.T) string { return pauseStory(t, "on", rapid.Bool().Draw(t, "c1_reads")) }, []string{"resource-safe", "fencing-monotonic"}},
	// The lock-value check-and-set refuses a stale holder that marked the storage
	// before the new holder did (antirez's case), whatever the timing.
	{"LockValueRefusesAHolderThatMarkedFirst", func(t *rapid.T) string { return pauseStory(t, "lock-value", true) }, []string{"resource-safe"}},
}

func TestPropertyRedisMistakes(t *testing.T) {
	for _, c := range mistakeProperties {
		t.Run(c.name, func(t *testing.T) {
			simtest.Check(t, 10, func(t *rapid.T) {
				src := c.story(t)
				violatedIn(t, runDrawn(t, src), src, c.inv...)
			})
		})
	}
}

// Issue 31, item 9: Redlock's delayed restart (the Redis distlock page's remedy
// for a node without persistence), counted in true time or by the node's own
// wall clock (restart C after=D clock=node). Kleppmann (2016): the delayed
// restart "again relies on a reasonably accurate measurement of time, and would
// fail if the clock jumps". c1 holds A, B and C with a drawn TTL; C crashes at
// a drawn time and is to stay out for the TTL plus a drawn margin; while it is
// down its wall clock jumps by a drawn amount, either way; c2, which cannot
// reach A and B, keeps trying from just after the crash.
// The rounds run from rapid's seed, which a failure logs (simtest.Check).
type delayedRestart struct {
	src                     string
	ttl, crash, delay, jump time.Duration
	jumpAt                  time.Duration
}

func delayedRestartStory(t *rapid.T, clock string) delayedRestart {
	ms := func(label string, lo, hi int) time.Duration {
		return time.Duration(rapid.IntRange(lo, hi).Draw(t, label)) * time.Millisecond
	}
	d := delayedRestart{ttl: ms("ttl", 3000, 8000), crash: ms("crash_at", 500, 2000)}
	d.delay = d.ttl + ms("margin", 1000, 3000)
	d.jumpAt = d.crash + ms("jump_after_crash", 100, int(d.delay/time.Millisecond)-100)
	d.jump = ms("jump", -5000, 15000)
	if d.jump == 0 {
		d.jump = time.Millisecond
	}
	var b strings.Builder
	fmt.Fprintf(&b, "protocol redlock\nseed 1\nbound 60s\nnetwork delay=500us\n")
	// A jump forward corrects a clock that was behind (an NTP step, as in the
	// catalogue's story); a jump back sets a right clock behind. The jump
	// comes while C is down, so it moves no TTL of a key C holds.
	offset := time.Duration(0)
	if d.jump > 0 {
		offset = -d.jump
	}
	fmt.Fprintf(&b, "node A redis\nnode B redis\nnode C redis persistence=none offset=%dms\nnode D redis\nnode E redis\n", offset/time.Millisecond)
	b.WriteString("client c1 redlock nodes=A,B,C,D,E attempts=1\n")
	fmt.Fprintf(&b, "client c2 redlock nodes=A,B,C,D,E retry=%s\n", drawMs(t, "retry", 100, 500))
	b.WriteString("at 0s partition c1 | D,E\nat 0s partition c2 | A,B\n")
	fmt.Fprintf(&b, "at 0s c1 acquire L ttl=%dms\n", d.ttl/time.Millisecond)
	fmt.Fprintf(&b, "at %dms crash C\nat %dms restart C after=%dms clock=%s\n", d.crash/time.Millisecond, d.crash/time.Millisecond, d.delay/time.Millisecond, clock)
	fmt.Fprintf(&b, "at %dms clock-jump C %+dms\n", d.jumpAt/time.Millisecond, d.jump/time.Millisecond)
	fmt.Fprintf(&b, "at %dms c2 acquire L ttl=%dms\n", (d.crash+100*time.Millisecond)/time.Millisecond, d.ttl/time.Millisecond)
	fmt.Fprintf(&b, "run until=%dms\n", (d.crash+d.delay+max(-d.jump, 0)+d.ttl+time.Second)/time.Millisecond)
	d.src = b.String()
	return d
}

// restartAt is when the run's one restart happened (the story restarts C only).
func restartAt(t *rapid.T, r *Result, src string) time.Duration {
	for i := range r.Trace.Len() {
		if e := r.Trace.Event(i); e.Kind == sim.EvRestart {
			return time.Duration(e.At)
		}
	}
	t.Fatalf("C never restarted\nscenario:\n%s", src)
	return 0
}

// In true time, the node's clock does not matter: C comes back exactly the
// delay after its crash, after every key it forgot expired, and the lock stays
// safe whatever the jump.
func TestPropertyDelayedRestartInTrueTimeIgnoresTheNodesClock(t *testing.T) {
	simtest.Check(t, 5, func(t *rapid.T) {
		d := delayedRestartStory(t, "true")
		r := runDrawn(t, d.src)
		if got, want := restartAt(t, r, d.src), d.crash+d.delay; got != want {
			t.Fatalf("C restarted at %s, want %s (the crash plus after=)\nscenario:\n%s", got, want, d.src)
		}
		violatedIn(t, r, d.src, "quorum-backed", "grant-exclusive", "mutex-belief")
	})
}

// By the node's clock, C comes back when its wall clock reads the crash's
// reading plus the delay: a jump of J moves the restart by -J (at once if the
// clock already reads past the deadline). When that brings C back well before
// c1's keys expire, c2 wins a majority while c1 holds the lock: the mistake is
// found; when it still comes after, the run is safe.
func TestPropertyDelayedRestartByTheNodesClockFollowsItsJumps(t *testing.T) {
	simtest.Check(t, 5, func(t *rapid.T) {
		d := delayedRestartStory(t, "node")
		r := runDrawn(t, d.src)
		want := max(d.crash+d.delay-d.jump, d.jumpAt)
		got := restartAt(t, r, d.src)
		if got != want {
			t.Fatalf("C restarted at %s, want %s (its clock read the deadline then)\nscenario:\n%s", got, want, d.src)
		}
		switch {
		case got >= d.ttl+200*time.Millisecond: // every key c1 had has expired
			violatedIn(t, r, d.src, "quorum-backed", "grant-exclusive", "mutex-belief")
		case got <= d.ttl-time.Second: // c2 has time for a round while c1 holds the lock
			if res, _ := r.Report.Result("quorum-backed"); len(res.Violations) == 0 {
				t.Fatalf("C came back at %s, before c1's keys expire at about %s, and quorum-backed %s\nscenario:\n%s",
					got, d.ttl, res.Status(), d.src)
			}
		}
	})
}
