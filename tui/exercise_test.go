package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// An exercise in the terminal (issue 30): its panel gives the goal, the budget
// and hints one at a time (e); i offers only what the budget has left, in its
// sizes; the what-if is graded as it runs: a pause of c1 past its lease makes
// the storage take a stale write (Kleppmann 2016), "PASSED" with the violation.
func TestAnExerciseIsSolvedAtTheCursor(t *testing.T) {
	a := runApp(t, "redlock-one-pause", Options{})()
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	scr := strings.Join(strings.Fields(ansi.Strip(a.run.narration())), " ")
	for _, want := range []string{"Exercise: make redlock-one-pause violate resource-safe", "1 of 1 left: pause 1 on=c1 for=1s,5s,15s", "e: a hint (1 of 2)"} {
		if !strings.Contains(scr, want) {
			t.Errorf("the exercise panel lacks %q:\n%s", want, scr)
		}
	}
	press(a, "e")
	if scr := strings.Join(strings.Fields(ansi.Strip(a.run.narration())), " "); !strings.Contains(scr, "Hint 1: A paused process runs no timers") || strings.Contains(scr, "Hint 2") {
		t.Errorf("e showed not exactly the first hint:\n%s", scr)
	}
	for !strings.Contains(a.run.tl.Row().Text, "command c1 read") {
		press(a, "j")
	}
	press(a, "c")
	press(a, "i")
	if a.wi == nil || a.wi.menu == nil {
		t.Fatalf("i opened no menu: %v", a.wi)
	}
	var labels []string
	for _, it := range a.wi.menu.items {
		labels = append(labels, strings.TrimSpace(it.label))
	}
	if strings.Join(labels, "|") != "pause 1s|pause 5s|pause 15s" {
		t.Errorf("the menu offers %q, want the budget's three pauses only", labels)
	}
	press(a, "down")
	press(a, "down")
	press(a, "enter")
	if a.cmp == nil || a.wi.grade == nil {
		t.Fatalf("no graded compare after the pause:\n%s", ansi.Strip(a.View().Content))
	}
	lines := strings.Split(ansi.Strip(a.View().Content), "\n")
	foot := lines[len(lines)-1]
	if !strings.Contains(foot, "PASSED") || !strings.Contains(foot, "resource-safe at ") {
		t.Errorf("the footer does not say passed with the violation: %q", foot)
	}
	// The budget is spent: i has nothing more to offer c1.
	if _, err := newWhatIfMenu(a.com, a.wi.orig.Scenario, "c1", 0, a.wi.lines()); err == nil || !strings.Contains(err.Error(), "the budget has nothing left for c1") {
		t.Errorf("a second fault beyond the budget: %v", err)
	}
}

// The menu offers the budget's sizes as grade takes them: 2pc-one-crash's
// crash lists no back=, so co stays down (a restart would be refused), and
// that answer leaves 2PC blocked (Bernstein et al. 1987, 7.4): PASSED.
func TestAnExercisesMenuOffersWhatGradeTakes(t *testing.T) {
	a := runApp(t, "2pc-one-crash", Options{})()
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for !strings.Contains(a.run.tl.Row().Text, "command co begin") {
		press(a, "j")
	}
	press(a, "c")
	press(a, "i")
	if a.wi == nil || a.wi.menu == nil {
		t.Fatalf("i opened no menu: %+v", a.wi)
	}
	var labels []string
	for _, it := range a.wi.menu.items {
		labels = append(labels, strings.TrimSpace(it.label))
	}
	if strings.Join(labels, "|") != "crash, stays down" {
		t.Fatalf("the menu offers %q, want only the crash that stays down", labels)
	}
	press(a, "enter")
	if a.wi.grade == nil || !a.wi.grade.Passed {
		t.Errorf("co crashing after begin and staying down: %+v (status %q)", a.wi.grade, a.wi.status)
	}
}
