package tui

import (
	"os"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/locksim/locksim/scenarios"
)

// press sends key k to the app and follows the what-if's commands (each a plain
// function returning its message: no timer, no goroutine involved).
func press(a *App, k string) {
	_, cmd := a.Update(keyMsg(k))
	for cmd != nil {
		switch m := cmd().(type) {
		case whatIfMsg, whatIfRunMsg:
			_, cmd = a.Update(m)
		default:
			cmd = nil
		}
	}
}

// What if, here (issue 28): from the cursor on c1's acquisition in
// redlock-clock-jump, i then "pause 15s" re-runs the scenario with the pause
// and opens the two runs compared, both named in the header, the cursor on the
// first difference, and d on the next; W writes the forked scenario (its header
// names the original and the line); u takes the pause back.
func TestWhatIfAtTheCursor(t *testing.T) {
	t.Chdir(t.TempDir())
	a := runApp(t, "redlock-clock-jump", Options{})()
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for a.run.tl.Row().Text == "" || !strings.Contains(a.run.tl.Row().Text, "command c1 acquire") {
		press(a, "j")
	}
	press(a, "i")
	if a.wi == nil || a.wi.menu == nil {
		t.Fatal("i opened no menu")
	}
	menu := ansi.Strip(a.View().Content)
	for _, want := range []string{"What if, just after ", "c1", "pause 15s", "crash, back after 1s", "clock jump +15s"} {
		if !strings.Contains(menu, want) {
			t.Errorf("the menu lacks %q:\n%s", want, menu)
		}
	}
	if strings.Contains(menu, "restart empty") {
		t.Error("the menu offers a client a power loss that only a node's kind has")
	}
	for !strings.HasSuffix(strings.TrimSpace(a.wi.menu.items[a.wi.menu.cursor].label), "pause 15s") {
		press(a, "down")
	}
	press(a, "enter")
	if a.cmp == nil {
		t.Fatalf("no compare after choosing pause 15s:\n%s", ansi.Strip(a.View().Content))
	}
	scr := ansi.Strip(a.View().Content)
	if !strings.Contains(scr, "A redlock-clock-jump") || !strings.Contains(scr, "B redlock-clock-jump + at ") {
		t.Errorf("the header does not name both runs:\n%s", scr)
	}
	if !a.cmp.c.Differs(a.cmp.Cursor()) {
		t.Error("the cursor is not on a difference")
	}
	first := a.cmp.Cursor()
	press(a, "d")
	if a.cmp.Cursor() <= first || !a.cmp.c.Differs(a.cmp.Cursor()) {
		t.Errorf("d went from line %d to %d, not to the next difference", first, a.cmp.Cursor())
	}
	press(a, "W")
	src, err := os.ReadFile("redlock-clock-jump-what-if.scn")
	if err != nil {
		t.Fatalf("W wrote no file: %v\n%s", err, ansi.Strip(a.View().Content))
	}
	if !strings.Contains(string(src), "# What if: redlock-clock-jump, with 1 line added.") || !strings.Contains(string(src), "pause c1 for=15s") {
		t.Errorf("the written file does not name the original and the line:\n%s", src)
	}
	if !strings.Contains(ansi.Strip(a.View().Content), "wrote redlock-clock-jump-what-if.scn") {
		t.Error("the footer does not name the file written")
	}
	press(a, "u")
	if a.cmp != nil || a.run == nil || a.wi != nil {
		t.Fatal("u did not go back to the original run")
	}
	if !strings.Contains(a.run.tl.Row().Text, "command c1 acquire") {
		t.Errorf("u went back to the original at %q, not to the row the what-if was asked at", a.run.tl.Row().Text)
	}
}

// The fault comes just after the cursor's row, which the screen shows as done:
// from the row where c1 comes to hold L, a pause leaves c1 paused holding it
// (and believing, so c2's later majority overlaps it: mutex-belief), not
// paused a moment before the +OK that gave it the lock (then c1 never holds,
// and the what-if would be SAFE). Kleppmann (2016): the process pauses after
// it acquired the lock.
func TestWhatIfComesJustAfterTheCursorsRow(t *testing.T) {
	t.Chdir(t.TempDir())
	a := runApp(t, "redlock-clock-jump", Options{})()
	a.Update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for !strings.Contains(a.run.tl.Row().Text, "c1 believes it holds L") {
		press(a, "j")
	}
	press(a, "c")
	press(a, "i")
	for !strings.HasSuffix(strings.TrimSpace(a.wi.menu.items[a.wi.menu.cursor].label), "pause 15s") {
		press(a, "down")
	}
	press(a, "enter")
	if a.cmp == nil {
		t.Fatalf("no compare:\n%s", ansi.Strip(a.View().Content))
	}
	if scr := ansi.Strip(a.View().Content); !strings.Contains(scr, "B 0.103001s  pause c1") {
		t.Errorf("the strip under the lines does not show B's row at the cursor, the pause:\n%s", scr)
	}
	fork := a.cmp.res[1]
	if got := a.wi.lines(); len(got) != 1 || !strings.HasPrefix(got[0], "at 103.001ms pause c1") {
		t.Errorf("added %q, want the pause a microsecond after the row (at 103.001ms)", got)
	}
	if r, _ := fork.Report.Result("mutex-belief"); len(r.Violations) == 0 {
		t.Errorf("the what-if's c1 paused before it held L: mutex-belief holds in it\n%s", ansi.Strip(a.View().Content))
	}
}

// A check left with esc, and another started before the first's step has
// reported: the first's step is dropped, not shown in the second's screen nor
// let to open its counterexample over it (found in review of issue 27).
func TestAStepOfACheckLeftIsDropped(t *testing.T) {
	cat := catalogue(t)
	a := NewApp(Options{Catalogue: cat, Dark: true, Width: 100, Height: 30})
	var sA, sB *scenarios.Scenario
	for _, s := range cat {
		switch s.ID {
		case "3pc-partition":
			sA = s
		case "redis-del-after-expiry":
			sB = s
		}
	}
	_, stepA := a.Update(checkMsg{sA})
	_, back := a.Update(keyMsg("esc"))
	a.Update(back())
	_, _ = a.Update(checkMsg{sB})
	chkB := a.chk
	if _, next := a.Update(stepA()); next != nil || a.chk != chkB || a.chk.state.schedules != 0 || a.run != nil {
		t.Errorf("the left check's step reached the new one's screen: state %+v, next %v, run %v", a.chk.state, next != nil, a.run != nil)
	}
}
