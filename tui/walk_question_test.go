package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/tui/layout"
)

// flat is a screen's text with its box drawing and spacing gone: a sentence the
// screen wraps over lines (the detail line's) reads as one.
func flat(screen string) string {
	screen = strings.Map(func(r rune) rune {
		if strings.ContainsRune("│╭╮╰╯─", r) {
			return ' '
		}
		return r
	}, ansi.Strip(screen))
	return strings.Join(strings.Fields(screen), " ")
}

// While a walk asks a stop's question, nothing on the screen gives its answer
// (issue 28: the room predicts before it sees). The answer is the beat's
// narration; at a note that asks (note ... ask "Q" "TEXT"), the note's own
// text, which the detail line under the timeline once printed whole beside the
// question: "2.121s note: COMMIT. ... p1 decides COMMIT" under "What will they
// decide?". Every catalogue walk that asks, at a projector's 120x40 and a
// laptop's 80x24.
func TestAWalkAsksWithoutTheAnswerOnScreen(t *testing.T) {
	t.Parallel()
	cat, runs := catalogueRuns(t)
	asked := 0
	for i, s := range cat {
		res := runs[i]
		tl := layout.New(res.Trace, &res.Report)
		questions := 0
		for _, b := range tl.Beats() {
			if b.Question != "" {
				questions++
			}
		}
		if questions == 0 {
			continue
		}
		for _, size := range [][2]int{{120, 40}, {80, 24}} {
			a := NewApp(Options{Result: res, Walk: true, Dark: true})
			a.Update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
			for range 2 * len(tl.Beats()) {
				a.Update(keyMsg("space"))
				if a.run.asking < 0 {
					continue
				}
				asked++
				b, _ := a.run.tl.Layout().BeatOf(a.run.asking)
				screen := flat(a.View().Content)
				for _, answer := range []string{b.Narration, scenarios.NoteText(res.Trace, res.Trace.Event(max(a.run.tl.Layout().RowEvent(b.Stop), 0)))} {
					if words := strings.Fields(answer); len(words) >= 4 {
						if lead := strings.Join(words[:4], " "); strings.Contains(screen, lead) {
							t.Errorf("%s at %dx%d: the question %q is on screen with its answer (%q...)", s.ID, size[0], size[1], b.Question, lead)
						}
					}
				}
			}
		}
	}
	if asked == 0 {
		t.Fatal("no catalogue walk asked a question: the test tests nothing")
	}
}

// A walk never scrolls a stop off the screen while it shows the stop's beat:
// a beat taller than the screen is shown a screen at a time, the stop at the
// top first (2pc-coordinator-crash's last stop, ◆ nonblocking at 10.1 s, was
// once a hundred rows above the cursor, under DECISION? traffic: Bernstein,
// Hadzilacos and Goodman's blocking, with the mark that says so off screen).
// The walk still reaches every stop, and the end of every beat. The header
// says nothing only the end can say ("data safe", redlock-gc-pause-fenced's
// badge, while the walk asks whether the storage will take c1's stale write),
// and at the end it gives the verdict, at a laptop's 80 columns too.
func TestAWalkKeepsItsStopOnScreen(t *testing.T) {
	t.Parallel()
	cat, runs := catalogueRuns(t)
	for i, s := range cat {
		res := runs[i]
		a := NewApp(Options{Result: res, Walk: true, Dark: true})
		a.Update(tea.WindowSizeMsg{Width: 80, Height: 24}) // a laptop's: the fewest rows a class meets
		tl := a.run.tl.Layout()
		stops, ends := map[int]bool{}, map[int]bool{}
		for range 4 * tl.Len() {
			if a.run.tl.Cursor() == tl.Len()-1 {
				break
			}
			a.Update(keyMsg("space"))
			c := a.run.tl.Cursor()
			b, ok := tl.BeatOf(c)
			if !ok || c > b.End {
				continue
			}
			if !stops[b.Stop] && a.run.tl.top > b.Stop { // the beat's first screen
				t.Errorf("%s: the stop at row %d (%s) is scrolled off: the screen starts at row %d, the cursor at %d",
					s.ID, b.Stop, tl.Row(b.Stop).Text, a.run.tl.top, c)
			}
			stops[b.Stop], ends[b.Stop] = true, ends[b.Stop] || c == b.End
			if head := ansi.Strip(a.run.header()); c < tl.Len()-1 && strings.Contains(head, "data safe") && !strings.Contains(head, "data safe so far") {
				t.Errorf("%s: before the end the header says the data is safe, which only the end can say: %s", s.ID, head)
			}
		}
		if head := ansi.Strip(a.run.header()); !strings.Contains(head, string(res.Report.Verdict)) {
			t.Errorf("%s: at the end of the walk the header does not give the verdict, %s: %s", s.ID, res.Report.Verdict, head)
		}
		for _, b := range tl.Beats() {
			if !stops[b.Stop] || !ends[b.Stop] {
				t.Errorf("%s: the walk did not reach the stop at row %d or its beat's end (%d)", s.ID, b.Stop, b.End)
			}
		}
	}
}

// Back on a stop that asks (S, the previous stop, or ↑ up to it), the walk asks
// again, the answer hidden: the workshop plan lets a teacher return to a
// question and put it to the room once more (a teacher's walk found the
// answer left on screen). redis-del-after-expiry's first question, "does c1
// still believe it holds L?" (Redis, "Distributed Locks with Redis": a paused
// client cannot know its key expired).
func TestAWalkAsksAgainWhenItGoesBackToAQuestion(t *testing.T) {
	res := result(t, "redis-del-after-expiry")
	tl := layout.New(res.Trace, &res.Report)
	for _, back := range []string{"S", "up"} {
		a := NewApp(Options{Result: res, Walk: true, Dark: true})
		a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
		stop := -1
		for range 2 * len(tl.Beats()) {
			a.Update(keyMsg("space"))
			if a.run.asking >= 0 {
				stop = a.run.asking
				break
			}
		}
		if stop < 0 {
			t.Fatal("the walk never asks: the test tests nothing")
		}
		b, _ := tl.BeatOf(stop)
		a.Update(keyMsg("space")) // the answer
		if a.run.asking >= 0 || !strings.Contains(flat(a.View().Content), strings.Join(strings.Fields(b.Narration)[:4], " ")) {
			t.Fatalf("space after the question did not show its answer")
		}
		for range a.run.tl.Cursor() - stop + 1 {
			if a.run.tl.Cursor() == stop {
				break
			}
			a.Update(keyMsg(back))
		}
		if a.run.tl.Cursor() != stop {
			t.Fatalf("%s did not go back to the stop (row %d, at %d)", back, stop, a.run.tl.Cursor())
		}
		screen := flat(a.View().Content)
		if lead := strings.Join(strings.Fields(b.Narration)[:4], " "); strings.Contains(screen, lead) || a.run.asking != stop || !strings.Contains(screen, "space: the answer") {
			t.Errorf("back with %s on the stop that asks %q: want the question without its answer (%q...) on screen\n%s", back, b.Question, lead, a.View().Content)
		}
	}
}
