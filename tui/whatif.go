package tui

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/scenarios/explore"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/fault"
)

// What if, here: at the cursor, a fault for the selected process (i), the run
// again from the start with it (scenarios.Scenario.With), beside the original
// in the compare view; u takes the last one back, W writes the forked scenario
// to a file. Re-runs take milliseconds and are deterministic: the original side
// never changes.

// whatIf is the state of a class's what-ifs on one scenario.
type whatIf struct {
	orig    *scenarios.Result
	back    *Scenario  // the run's screen as it was at the first i (cursor, walk): the last u returns to it
	added   [][]string // each injection's lines, in order
	menu    *WhatIfMenu
	status  string           // what the footer says after W
	running bool             // a re-run is under way
	grade   *scenarios.Grade // an exercise's: the last re-run graded
}

// lines is every added line, in order.
func (w *whatIf) lines() []string { return slices.Concat(w.added...) }

// WhatIfMenu is the small menu of faults `i` opens for one process at one
// instant: the kinds that process can suffer, each with the sizes of
// locksim check's default menu, and one to type a size.
type WhatIfMenu struct {
	com    *Common
	proc   string
	row    time.Duration // the cursor's row's time
	at     time.Duration // the fault's: just after the row
	items  []whatIfItem
	cursor int
	typing *whatIfItem // the item whose size is being typed
	input  string
	err    string
	cast   fault.Cast
	w, h   int
}

// whatIfItem is one choice: a fault, or (typed) a kind whose size is typed.
type whatIfItem struct {
	label string
	fault fault.Fault
	typed bool
}

// whatIfMsg is a choice: the lines to add.
type whatIfMsg struct{ lines []string }

// whatIfRunMsg is a re-run done: the original and the fork.
type whatIfRunMsg struct {
	fork *scenarios.Result
	err  error
}

// whatIfKinds are the faults the menu offers, in its order, with how each
// reads.
var whatIfKinds = []struct {
	kind  fault.Kind
	label func(size string) string
}{
	{fault.Pause, func(z string) string { return "pause " + z }},
	{fault.Crash, func(z string) string { return "crash, back after " + z }},
	{fault.RestartEmpty, func(z string) string { return "restart empty (power loss), back after " + z }},
	{fault.Partition, func(z string) string { return "isolate for " + z }},
	{fault.ClockJump, func(z string) string { return "clock jump " + z }},
	{fault.Drift, func(z string) string { return "drift " + z }},
}

// justAfter is how long after the cursor's row a what-if's fault falls. The
// screen at the cursor shows the world after that row (c1 holds L): the fault
// must come after it, not before it as a fault scheduled at the row's very
// instant would (scheduled first, it runs first among that instant's events).
// A microsecond is the smallest step the scenario language writes plainly
// (103.001ms); it also puts the fault after the other events of that instant.
const justAfter = time.Microsecond

// newWhatIfMenu offers the faults process proc of scenario s can suffer just
// after true time at, the cursor's row (the kinds explore would hit it with),
// or says why none.
func newWhatIfMenu(com *Common, s *scenarios.Scenario, proc string, at sim.Time, added []string) (*WhatIfMenu, error) {
	tpl, err := explore.FromSourceIn(s.Registry(), s.ID, s.Source)
	if err != nil {
		return nil, err
	}
	m := &WhatIfMenu{com: com, proc: proc, row: time.Duration(at), at: time.Duration(at) + justAfter, cast: tpl.Cast()}
	if s.IsExercise() {
		return m.budgetItems(s, added)
	}
	menu := explore.DefaultMenu(0)
	for _, k := range whatIfKinds {
		if !slices.Contains(tpl.Targets(k.kind).Procs, proc) {
			continue // the process's kind does not suffer it
		}
		for _, z := range menu.Sizes(k.kind) {
			f := fault.Fault{Kind: k.kind, Proc: proc, At: m.at, Dur: z.Dur, Mag: z.Mag}
			m.items = append(m.items, whatIfItem{label: k.label(explore.SizeText(k.kind, z)), fault: f})
		}
		m.items = append(m.items, whatIfItem{label: k.label("(type a size)"), fault: fault.Fault{Kind: k.kind, Proc: proc, At: m.at}, typed: true})
	}
	if len(m.items) == 0 {
		return nil, fmt.Errorf("no fault of the menu can hit %s", proc)
	}
	return m, nil
}

// budgetItems offers, in an exercise, only what its budget has left for the
// process, in the sizes its allow lines list: the student's what-ifs are
// answers, graded as they run.
func (m *WhatIfMenu) budgetItems(s *scenarios.Scenario, added []string) (*WhatIfMenu, error) {
	ex := s.Exercise
	if ex.Goal.Fix() {
		return nil, fmt.Errorf("this exercise asks for a fix: change an option in its file, and grade it with locksim grade")
	}
	left, err := s.BudgetLeft(added)
	if err != nil {
		return nil, err
	}
	for i, al := range ex.Allows {
		if left[i] == 0 || !slices.Contains(al.On, m.proc) {
			continue
		}
		for _, k := range whatIfKinds {
			if k.kind != al.Kind {
				continue
			}
			for _, z := range explore.AllowSizes(al) {
				f := fault.Fault{Kind: k.kind, Proc: m.proc, At: m.at, Dur: z.Dur, Mag: z.Mag}
				label := k.label(explore.SizeText(k.kind, z))
				if z.Dur == fault.Forever {
					label = string(k.kind) + ", stays down"
				}
				m.items = append(m.items, whatIfItem{label: label, fault: f})
			}
		}
	}
	if len(m.items) == 0 {
		return nil, fmt.Errorf("the budget has nothing left for %s: %s", m.proc, ex.Budget())
	}
	return m, nil
}

// SetSize sets the menu's size.
func (m *WhatIfMenu) SetSize(w, h int) { m.w, m.h = w, h }

// Update moves the choice; enter chooses (a whatIfMsg), esc closes (nil lines).
func (m *WhatIfMenu) Update(msg tea.KeyPressMsg) tea.Cmd {
	if m.typing != nil {
		switch msg.String() {
		case "esc":
			m.typing, m.input, m.err = nil, "", ""
		case "backspace":
			if r := []rune(m.input); len(r) > 0 {
				m.input = string(r[:len(r)-1])
			}
		case "enter":
			z, err := explore.ParseSize(m.typing.fault.Kind, strings.TrimSpace(m.input))
			if err != nil {
				m.err = err.Error()
				break
			}
			f := m.typing.fault
			f.Dur, f.Mag = z.Dur, z.Mag
			return m.choose(f)
		default:
			if t := msg.Key().Text; t != "" {
				m.input += t
			}
		}
		return nil
	}
	switch msg.String() {
	case "up", "k":
		m.cursor = max(m.cursor-1, 0)
	case "down", "j":
		m.cursor = min(m.cursor+1, len(m.items)-1)
	case "esc", "i":
		return func() tea.Msg { return whatIfMsg{} }
	case "enter":
		it := m.items[m.cursor]
		if it.typed {
			m.typing, m.input, m.err = &m.items[m.cursor], "", ""
			return nil
		}
		return m.choose(it.fault)
	}
	return nil
}

// choose is the lines of fault f, as the scenario language writes them.
func (m *WhatIfMenu) choose(f fault.Fault) tea.Cmd {
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(fault.Schedule{f}.Text(m.cast, false)), "\n") {
		lines = append(lines, strings.TrimSpace(l))
	}
	return func() tea.Msg { return whatIfMsg{lines: lines} }
}

// View draws the menu over the screen.
func (m *WhatIfMenu) View() string {
	if tooSmall(m.w, m.h) {
		return tooSmallView(m.w, m.h)
	}
	s := m.com.Styles
	lines := []string{s.Header.Render(fmt.Sprintf(" What if, just after %s (at %s), %s ...", fault.When(m.row), fault.When(m.at), m.proc)), ""}
	rows := m.h - 5
	top := max(0, min(m.cursor-rows/2, len(m.items)-rows))
	for i := top; i < len(m.items) && i < top+rows; i++ {
		l := "   " + m.items[i].label
		if i == m.cursor {
			l = s.Cursor.Render(" ▸ " + m.items[i].label)
		}
		lines = append(lines, l)
	}
	for len(lines) < m.h-2 {
		lines = append(lines, "")
	}
	foot := " ↑↓ choose  enter run it again with this fault, beside the original  esc cancel"
	if m.typing != nil {
		foot = fmt.Sprintf(" %s: %s▏  (%s)  enter run  esc back", m.typing.label, m.input, kindHint(m.typing.fault.Kind))
		if m.err != "" {
			foot = s.Violation.Render(" " + m.err)
		}
	}
	return box(append(lines, s.Dim.Render(" the original side does not change: a run is a function of its seed"), foot), m.w, m.h)
}

// kindHint says how a kind's size is written.
func kindHint(k fault.Kind) string {
	for _, ln := range strings.Split(explore.MenuHelp, "\n") {
		if strings.Contains(ln, string(k)) {
			return strings.TrimSpace(ln)
		}
	}
	return ""
}

// runFork runs the original with the lines added, as a command: a re-run of a
// big scenario takes a moment, and the screen stays live meanwhile.
func runFork(orig *scenarios.Scenario, seed uint64, lines []string) tea.Cmd {
	return func() tea.Msg {
		s, err := orig.With(lines)
		if err != nil {
			return whatIfRunMsg{err: err}
		}
		return whatIfRunMsg{fork: scenarios.Run(s, scenarios.RunOptions{Seed: &seed, Snapshots: true})}
	}
}

// writeFork writes the forked scenario to a new file in the working
// directory, named after the original, and says where.
func writeFork(orig *scenarios.Scenario, lines []string) string {
	name := orig.ID + "-what-if" + scenarios.Ext
	for n := 2; ; n++ {
		if _, err := os.Stat(name); err != nil {
			break
		}
		name = fmt.Sprintf("%s-what-if-%d%s", orig.ID, n, scenarios.Ext)
	}
	if err := os.WriteFile(name, []byte(orig.Fork(lines)), 0o644); err != nil {
		return "could not write " + name + ": " + err.Error()
	}
	return "wrote " + name
}

// Selection is the selected process's name and the cursor's true time: where
// a what-if puts its fault.
func (m Scenario) Selection() (string, sim.Time) {
	tl := m.tl.Layout()
	if tl.Len() == 0 {
		return "", 0
	}
	at := tl.RowTime(m.tl.Cursor())
	if p := m.tl.Selected(); p >= 0 {
		return tl.Trace().Name(p), at
	}
	return "", at
}

// Selection is the selected process's name and the cursor's true time.
func (m Compare) Selection() (string, sim.Time) {
	if m.c.Len() == 0 {
		return "", 0
	}
	return m.selected(), m.c.Time(m.cursor)
}

// toFirstDifference puts the cursor on the first line that differs.
func (m *Compare) toFirstDifference() {
	if d := m.c.Differences(); len(d) > 0 {
		m.setCursor(d[0])
		m.relayout() // the strip under the lines shows the cursor's rows, as after a key
	}
}

// whatIfKey handles i, u and W on a run or a what-if's compare; with the menu
// open, every key is the menu's. done: the key was taken.
func (a *App) whatIfKey(msg tea.KeyPressMsg) (tea.Cmd, bool) {
	if a.wi != nil && a.wi.menu != nil {
		return a.wi.menu.Update(msg), true
	}
	if a.chk != nil || (a.run == nil && a.cmp == nil) || (a.run != nil && a.run.help.IsOpen()) || (a.cmp != nil && a.cmp.help.IsOpen()) {
		return nil, false
	}
	k := a.com.Keys
	switch {
	case msg.String() == k.Inject.Keys()[0]:
		var proc string
		var at sim.Time
		var base *scenarios.Result
		switch {
		case a.run != nil:
			proc, at = a.run.Selection()
			base = a.run.res
			back := *a.run
			a.wi = &whatIf{orig: base, back: &back}
		case a.wi != nil:
			proc, at = a.cmp.Selection()
			base = a.wi.orig
		default:
			return nil, false // a compare of two scenarios: no what-if on it
		}
		if proc == "" {
			a.wi.status = "select a process first (←/→ or c), then i"
			return nil, true
		}
		var added []string
		if a.wi != nil {
			added = a.wi.lines()
		}
		menu, err := newWhatIfMenu(a.com, base.Scenario, proc, at, added)
		if err != nil {
			a.wi.status = err.Error()
			return nil, true
		}
		a.wi.menu = menu
		a.resize()
		return nil, true
	case a.wi != nil && a.cmp != nil && msg.String() == "u":
		a.wi.added = a.wi.added[:len(a.wi.added)-1]
		if len(a.wi.added) == 0 {
			a.run, a.cmp, a.wi = a.wi.back, nil, nil
			a.resize()
			return nil, true
		}
		a.wi.running = true
		return runFork(a.wi.orig.Scenario, a.wi.orig.Seed, a.wi.lines()), true
	case a.wi != nil && a.cmp != nil && msg.String() == "W":
		a.wi.status = writeFork(a.wi.orig.Scenario, a.wi.lines())
		return nil, true
	}
	return nil, false
}

// whatIfChosen closes the menu and, for a choice, runs the fork with it.
func (a *App) whatIfChosen(msg whatIfMsg) tea.Cmd {
	if a.wi == nil {
		return nil
	}
	a.wi.menu = nil
	if msg.lines == nil {
		if len(a.wi.added) == 0 {
			a.wi = nil // nothing injected: the run stays as it was
		}
		return nil
	}
	a.wi.added = append(a.wi.added, msg.lines)
	a.wi.running, a.wi.status = true, ""
	return runFork(a.wi.orig.Scenario, a.wi.orig.Seed, a.wi.lines())
}

// whatIfRan opens the fork beside the original, on the first difference.
func (a *App) whatIfRan(msg whatIfRunMsg) {
	if a.wi == nil {
		return
	}
	a.wi.running = false
	if msg.err != nil {
		a.wi.added = a.wi.added[:len(a.wi.added)-1]
		a.wi.status = msg.err.Error()
		return
	}
	a.open(a.wi.orig, msg.fork, ScenarioOptions{})
	a.cmp.toFirstDifference()
	a.wi.grade = nil
	if ex := a.wi.orig.Scenario; ex.IsExercise() {
		g := scenarios.Judge(ex, &scenarios.Answer{Faults: a.wi.lines()}, msg.fork)
		a.wi.grade = &g
		if g.Passed && g.At >= 0 { // the violation that proves it, on screen
			for _, v := range a.cmp.lines("viol") {
				if a.cmp.c.Time(v) >= g.At {
					a.cmp.setCursor(v)
					a.cmp.relayout()
					break
				}
			}
		}
	}
}

// whatIfFooter puts the what-if's keys (and what W wrote) in the last line of
// a what-if's compare.
func (a *App) whatIfFooter(content string) string {
	lines := strings.Split(content, "\n")
	foot := fmt.Sprintf(" what if: %d added  i inject  u undo  W write the fork  d next difference  ? help  q quit", len(a.wi.lines()))
	if g := a.wi.grade; g != nil && a.wi.status == "" { // what W wrote, or why i offers nothing, comes first
		st := a.com.Styles.BadgeBad
		if g.Passed {
			st = a.com.Styles.Badge
		}
		word := map[bool]string{true: " PASSED ", false: " NOT YET "}[g.Passed]
		text := strings.TrimPrefix(strings.TrimPrefix(g.Sentence, "Passed: "), "Not passed: ")
		if g.Violation != "" {
			text += " " + g.Violation
		}
		lines[len(lines)-1] = fit(st.Render(word)+a.com.Styles.Footer.Render(" "+text+"  (u undo, i inject, q quit)"), a.w)
		return strings.Join(lines, "\n")
	}
	if a.wi.status != "" {
		foot = " " + a.wi.status + "  (u undo, W write, q quit)"
	}
	lines[len(lines)-1] = fit(a.com.Styles.Footer.Render(foot), a.w)
	return strings.Join(lines, "\n")
}
