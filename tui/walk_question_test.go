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
	cat, err := scenarios.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	asked := 0
	for _, s := range cat {
		res := scenarios.Run(s, scenarios.RunOptions{Snapshots: true})
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
