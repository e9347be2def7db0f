package scenarios

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// Issue 31, item 11: workloads that repeat. "c1 writes db every 200 ms while it
// holds L" is one line, `every 200ms c1 write db while c1 holds L`, instead of
// one at line per write.

const everyBase = `protocol redis
node r1 redis
client c1 redis-lock server=r1 ttl=3s validity-timer=off
client c2 redis-lock server=r1 ttl=3s retry=200ms
resource db
at 100ms c1 acquire L
at 300ms c2 acquire L
`

// Bad every lines are errors at their line and column, with a hint; and a
// line that would repeat until the time limit needs an end.
func TestEveryErrorsNamePositionAndHint(t *testing.T) {
	for _, tc := range []parseCase{
		{everyBase + "every 200ms c1 write db\n", "t.scn:8:1: every needs an end", "until=TIME"},
		{everyBase + "every soon c1 write db\nrun until=5s\n", "t.scn:8:7: \"soon\" is not a period", "250ms"},
		{everyBase + "every 100us c1 write db\nrun until=5s\n", "t.scn:8:7: every 100us repeats more often than once a millisecond", "1ms or more"},
		{everyBase + "every 200ms form=1s c1 write db\nrun until=5s\n", "t.scn:8:13: unknown argument form for every", "did you mean from=?"},
		{everyBase + "every 200ms from=2s until=1s c1 write db\nrun until=5s\n", "t.scn:8:13: every from 2.000s until=1.000s never repeats", "after the first time"},
		{everyBase + "every 1s crash r1\nrun until=5s\n", "t.scn:8:10: every repeats a client's command, and \"crash r1\" is not one", "at line for each time"},
		{everyBase + "every 1s pause c1 for=1s\nrun until=5s\n", "t.scn:8:10: every repeats a client's command", ""},
		{everyBase + "every 200ms c1 write db while c1 has L\nrun until=5s\n", "t.scn:8:31: while needs a client that holds a lock", "while CLIENT holds LOCK"},
		{everyBase + "every 200ms c1 write db while r1 holds L\nrun until=5s\n", "t.scn:8:31: r1 is not a client", ""},
		{everyBase + "every 200ms c1 write db while c9 holds L\nrun until=5s\n", "t.scn:8:31: unknown process \"c9\"", ""},
		{everyBase + "every 200ms c1 wrte db\nrun until=5s\n", "t.scn:8:16: unknown client command \"wrte\"", "write"},
		{everyBase + "every 200ms while c1 holds L\nrun until=5s\n", "t.scn:8:13: every needs a client's command", ""},
		{everyBase + "every 1ms until=200s c1 write db\n", "t.scn:8:7: every 1ms from 0.001s until=200.000s repeats more than 100000 times", "longer period"},
		{everyBase + "every 200ms until=2h c1 write db\n", "t.scn:8:7: until=7200.000s is after the run's time limit", ""},
		{everyBase + "every 200ms from=1s until=3s c1 write db while c1 holds L\n", "", ""},
		{everyBase + "every 200ms c1 write db while c1 holds L\nrun until=5s\n", "", ""},
	} {
		tc.check(t)
	}
}

// writesBy lists the true times at which client's writes were commanded.
func writesBy(r *Result, client string) []time.Duration {
	var at []time.Duration
	for i := range r.Trace.Len() {
		e := r.Trace.Event(i)
		if e.Kind == sim.EvCommand && r.Trace.Names[e.Proc] == client && strings.Contains(r.Trace.Actions[e.Action].Label, "write") {
			at = append(at, time.Duration(e.At))
		}
	}
	return at
}

// The times: one period in (or from=), every period, before until= and the
// run's end; with while, only those at which the client believes it holds
// the lock; none while the client is paused (the application's loop is
// frozen with it: Kleppmann's GC pause), and the loop goes on after it, as
// long as the client still believes.
func TestEveryRepeatsWhileItsClientHolds(t *testing.T) {
	run := func(src string) *Result {
		t.Helper()
		s, err := Parse("every.scn", src)
		if err != nil {
			t.Fatal(err)
		}
		return Run(s, RunOptions{})
	}
	ms := func(ts ...int) []time.Duration {
		var out []time.Duration
		for _, x := range ts {
			out = append(out, time.Duration(x)*time.Millisecond)
		}
		return out
	}
	same := func(what string, got, want []time.Duration) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: writes at %v, want %v", what, got, want)
			return
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s: writes at %v, want %v", what, got, want)
				return
			}
		}
	}
	// No condition: 500, 1000, ... before until=2.5s.
	r := run(everyBase + "every 500ms until=2500ms c1 write db\nrun until=5s\n")
	same("every 500ms until=2500ms", writesBy(r, "c1"), ms(500, 1000, 1500, 2000))
	// from= and the run's end.
	r = run(everyBase + "every 1s from=2500ms c1 write db\nrun until=5s\n")
	same("every 1s from=2500ms", writesBy(r, "c1"), ms(2500, 3500, 4500))
	// While c1 holds L: from its grant (0.1 s) to its release at 1.1 s.
	r = run(everyBase + "at 1100ms c1 release L\nevery 200ms c1 write db while c1 holds L\nrun until=3s\n")
	same("while c1 holds L", writesBy(r, "c1"), ms(200, 400, 600, 800, 1000))
	// c2's loop starts once c2 holds L, after c1's release (c2 retries every 200 ms).
	if w := writesBy(r, "c2"); len(w) != 0 {
		t.Errorf("c2 wrote at %v with no every line of its own", w)
	}
	r = run(everyBase + "at 1100ms c1 release L\nevery 200ms c2 write db while c2 holds L\nrun until=2s\n")
	if w := writesBy(r, "c2"); len(w) == 0 || w[0] < 1100*time.Millisecond || w[len(w)-1] >= 2*time.Second {
		t.Errorf("c2's loop wrote at %v: want only after c1's release at 1.1 s, and before the end", w)
	}
	// A pause: nothing while c1 is stopped; it believes all along (no validity
	// timer), so the loop goes on after it, whatever happened meanwhile.
	r = run(everyBase + "at 500ms pause c1 for=1s\nevery 200ms until=2100ms c1 write db while c1 holds L\nrun until=3s\n")
	same("a pause from 0.5 s to 1.5 s", writesBy(r, "c1"), ms(200, 400, 1600, 1800, 2000))
	// A crash ends the belief: no write after it, even once c1 is back.
	r = run(everyBase + "at 500ms crash c1\nat 700ms restart c1\nevery 200ms c1 write db while c1 holds L\nrun until=2s\n")
	same("a crash at 0.5 s", writesBy(r, "c1"), ms(200, 400))
}

// A repeat's line never happening is a warning after the run, like a trigger
// that never fired; a line that ran is not.
func TestEveryThatNeverHappenedIsAWarning(t *testing.T) {
	s, err := Parse("w.scn", everyBase+"every 200ms c1 write db while c1 holds M\nevery 200ms c2 read db while c2 holds L\nrun until=4s\n")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range Run(s, RunOptions{}).Warnings() {
		got = append(got, w.String())
	}
	want := "w.scn:8:1: warning: `every 200ms c1 write db while c1 holds M` never happened: none of its times came while it could\n  hint: check in the timeline that c1 holds M"
	if len(got) != 1 || !strings.HasPrefix(got[0], want) {
		t.Errorf("warnings %q, want one: %q", got, want)
	}
}
