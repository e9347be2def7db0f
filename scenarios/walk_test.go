package scenarios

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/tui/layout"
)

// Every catalogue scenario has a walk a teacher can use unedited (issue 16,
// docs/workshop.md): `locksim tui ID --walk` stops at least three times, and at
// every stop the narration on screen is about that stop. A narrated step, a
// note or a fault brings its own narration; a violation shows the narration of
// the beat that caused it, told no more than a second of true time before.
func TestCatalogueWalks(t *testing.T) {
	for _, s := range catalogue(t) {
		res := Run(s, RunOptions{})
		tl := layout.New(res.Trace, &res.Report)
		stops := tl.Stops()
		if len(stops) < 3 {
			t.Errorf("%s: its walk stops %d times; narrate its steps or add notes (note at TIME \"...\")", s.ID, len(stops))
		}
		for _, r := range stops {
			row := tl.Row(r)
			text, at := tl.Narration(r)
			switch {
			case text == "":
				t.Errorf("%s: the walk stops at %s (%s) with no narration", s.ID, row.At, row.Text)
			case row.Kind == layout.RowEvent && at != r:
				t.Errorf("%s: the walk stops at %s (%s) with the narration of an earlier step", s.ID, row.At, row.Text)
			case row.At-tl.RowTime(at) > sim.Time(time.Second):
				t.Errorf("%s: the walk stops at the violation at %s with narration from %s: %q", s.ID, row.At, tl.RowTime(at), text)
			}
		}
	}
}

// A walk asks before it tells (issue 28): at each stop, the text on screen (the
// stop's question while it is asked, then the beat's narration with the beat's
// rows) names no outcome the screen has not drawn yet. An outcome is a fact a
// row below the last row drawn reports and no row drawn reports: a client that
// comes to hold (or believe, or win) a lock, a decision, the resource accepting
// or refusing an operation, an invariant violated. A sentence names one when it
// has the process's name and a word for the outcome ("c2 holds the lock too").
func TestCatalogueWalksHaveNoSpoiler(t *testing.T) {
	t.Parallel()
	for _, res := range catalogueRuns(t) {
		s := res.Scenario
		tl := layout.New(res.Trace, &res.Report)
		outs := allOutcomes(tl)
		for _, b := range tl.Beats() {
			if b.Question != "" {
				for _, sp := range spoilersIn(tl, outs, b.Question, b.Stop) {
					t.Errorf("%s: the question at %s names %s, which only a later row shows", s.ID, tl.Row(b.Stop).At, sp)
				}
			}
			for _, sp := range spoilersIn(tl, outs, b.Narration, b.End) {
				t.Errorf("%s: the narration at %s names %s, which only a row after the beat (from %s) shows:\n  %q",
					s.ID, tl.Row(b.Stop).At, sp, tl.Row(b.End).At, b.Narration)
			}
		}
	}
}

// The spoiler check fails on a narration that names a later outcome: a note
// placed before the acquisition it tells of, and a question that gives the
// answer away.
func TestSpoilerCheckFindsALaterOutcome(t *testing.T) {
	s, err := Parse("spoiler.scn", `protocol redis
node r1 redis
client c1 redis-lock server=r1
client c2 redis-lock server=r1
at 0s c1 acquire L ttl=10s
note at 50ms "c1 keeps L past its TTL; at 11 s c2 holds it too"
at 11s c2 acquire L ttl=10s
run until=13s
`)
	if err != nil {
		t.Fatal(err)
	}
	tl := layout.New(Run(s, RunOptions{}).Trace, nil)
	var found []string
	for _, b := range tl.Beats() {
		found = append(found, spoilers(tl, b.Narration, b.End)...)
	}
	if len(found) == 0 {
		t.Fatal("a note that tells, at 50 ms, that c2 holds the lock at 11 s was not caught")
	}
	if sp := spoilers(tl, "Will c2 get it? c2 holds it, of course.", 0); len(sp) == 0 {
		t.Error("a question that answers itself was not caught")
	}
	if sp := spoilers(tl, "Will c2 get the lock?", 0); len(sp) != 0 {
		t.Errorf("a question that only asks was caught: %v", sp)
	}
}

// outcome is a fact a row reports: who, and the words that say it.
type outcome struct {
	who   string // the process (empty: anyone)
	what  string // the fact, for the message
	words []string
}

// allOutcomes lists the facts each row reports, row by row: the observations
// are grouped by event once, not searched again for every row.
func allOutcomes(tl *layout.Timeline) [][]outcome {
	tr := tl.Trace()
	byEvent := map[int][]int{}
	for i := range tr.NumObs() {
		byEvent[tr.ObsEvent(i)] = append(byEvent[tr.ObsEvent(i)], i)
	}
	out := make([][]outcome, tl.Len())
	for r := range out {
		out[r] = outcomesOf(tl, r, byEvent)
	}
	return out
}

// outcomesOf lists the facts row r reports; byEvent lists each event's
// observations.
func outcomesOf(tl *layout.Timeline, r int, byEvent map[int][]int) []outcome {
	tr := tl.Trace()
	ev := tl.RowEvent(r)
	if ev < 0 {
		f := strings.Fields(tl.Row(r).Text) // "VIOLATION mutex-belief: ..."
		if len(f) < 2 {
			return nil
		}
		name := strings.TrimSuffix(f[1], ":")
		return []outcome{{what: name + " violated", words: []string{name}}}
	}
	var out []outcome
	for _, i := range byEvent[ev] {
		o := tr.Observation(i)
		name := func(p sim.ProcID) string {
			if p >= 0 && int(p) < len(tr.Names) {
				return tr.Names[p]
			}
			return ""
		}
		switch o.Kind {
		case sim.ObsBeliefStart:
			out = append(out, outcome{name(o.Client), name(o.Client) + " holds " + o.Lock,
				[]string{"holds", "holding", "wins", "won", "believes", "acquired", "gets", "takes"}})
		case sim.ObsDecide:
			w := []string{"commit", "commits", "committed"}
			if o.Name == sim.Abort {
				w = []string{"abort", "aborts", "aborted"}
			}
			out = append(out, outcome{name(o.Proc), name(o.Proc) + " decides " + o.Name, w})
		case sim.ObsResource:
			w := []string{"accepts", "accepted"}
			if !o.Accepted {
				w = []string{"rejects", "rejected", "refuses", "refused"}
			}
			out = append(out, outcome{name(o.Client), name(o.Proc) + " " + w[0] + " " + name(o.Client) + "'s " + o.Op, w})
		}
	}
	return out
}

// spoilers lists the outcomes text names that rows after row visible report
// and no row up to it does. A sentence names an outcome when a word for it
// follows the process's name within four words, with no other process named
// between ("c2 asks r3 and gets the lock"; not "c2 tries while c1 holds it").
func spoilers(tl *layout.Timeline, text string, visible int) []string {
	return spoilersIn(tl, allOutcomes(tl), text, visible)
}

// spoilersIn is spoilers with each row's outcomes given (allOutcomes).
func spoilersIn(tl *layout.Timeline, outs [][]outcome, text string, visible int) []string {
	if strings.TrimSpace(text) == "" {
		return nil
	}
	seen := map[string]bool{}
	for r := 0; r <= visible && r < tl.Len(); r++ {
		for _, o := range outs[r] {
			seen[o.what] = true
		}
	}
	names := map[string]bool{}
	for _, n := range tl.Trace().Names {
		names[strings.ToLower(n)] = true
	}
	var out []string
	sentences := strings.FieldsFunc(strings.ToLower(text), func(c rune) bool { return c == '.' || c == ';' || c == '?' || c == '!' || c == ',' })
	for r := visible + 1; r < tl.Len(); r++ {
		for _, o := range outs[r] {
			if seen[o.what] {
				continue
			}
			seen[o.what] = true // each outcome once
			for _, sen := range sentences {
				words := strings.FieldsFunc(sen, func(c rune) bool { return c != '-' && !unicode.IsLetter(c) && !unicode.IsDigit(c) })
				if names1(words, o, names) {
					out = append(out, fmt.Sprintf("%q (%s, at %s)", strings.TrimSpace(sen), o.what, tl.Row(r).At))
					break
				}
			}
		}
	}
	return out
}

// names1 reports whether the words name outcome o.
func names1(words []string, o outcome, names map[string]bool) bool {
	who := strings.ToLower(o.who)
	for i, w := range words {
		if !slices.Contains(o.words, w) {
			continue
		}
		if who == "" {
			return true
		}
		for j := i - 1; j >= 0 && j >= i-4; j-- {
			if words[j] == who {
				return true
			}
			if names[words[j]] {
				break // another process is the subject
			}
		}
	}
	return false
}

// Promise beside belief (issue 28): each grant's promised window is a bar in
// the service's column, from the grant to the end of its window (the TTL, in
// true time), closed early only by the owner's release. An early expiry (a
// clock jump) does not close it: the bar shows the promise the service broke.
// Sources: Redis, "Distributed Locks with Redis"; Kleppmann (2016).
func TestPromiseBarsFollowTheServicesPromise(t *testing.T) {
	bar := func(id, proc string, at sim.Time) bool {
		t.Helper()
		s, err := Load(id)
		if err != nil {
			t.Fatal(err)
		}
		tl := layout.New(Run(s, RunOptions{}).Trace, nil)
		col := -1
		for i, c := range tl.Columns() {
			if c.Name == proc {
				col = i
			}
		}
		r := tl.RowAt(tl.Key(0))
		for r+1 < tl.Len() && tl.RowTime(r+1) <= at {
			r++
		}
		return tl.Row(r).Cells[col].Spans&layout.SpanPromise != 0
	}
	s := func(sec float64) sim.Time { return sim.Time(sec * float64(time.Second)) }
	// C's clock jumps at 1 s and its key expires at once; the promise ran to 10 s.
	if !bar("redlock-clock-jump", "C", s(1.5)) {
		t.Error("redlock-clock-jump: C's promise to c1 is not drawn after its key expired early")
	}
	if bar("redlock-clock-jump", "C", s(0.0001)) {
		t.Error("redlock-clock-jump: C's promise is drawn before C grants anything")
	}
	// The owner's release closes the promise (at 2.001 s; the next grant at 2.109 s).
	if !bar("redis-happy", "r1", s(1.9)) || bar("redis-happy", "r1", s(2.05)) {
		t.Error("redis-happy: r1's promise to c1 is not closed by c1's release")
	}
	// c1 holds past its TTL (10 s): r1's promise ends at 10 s, not at c1's DEL.
	if !bar("redis-del-after-expiry", "r1", s(9.9)) || bar("redis-del-after-expiry", "r1", s(10.5)) {
		t.Error("redis-del-after-expiry: r1's promise to c1 does not end with its TTL")
	}
}
