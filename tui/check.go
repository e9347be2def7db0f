package tui

import (
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/scenarios/explore"
	"github.com/locksim/locksim/sim/fault"
)

// CheckView is an exhaustive check of a catalogue scenario, started from the
// browser (locksim check with the scenario as its template, every schedule
// of one fault): its progress while it runs, in steps of a few dozen
// milliseconds so that the screen stays live and esc or q always work; then
// the shortest counterexample opens as a run, or the screen says none exists.
type CheckView struct {
	com   *Common
	id    string
	state checkState // what the last step reported; the stepper itself is the command chain's
	stop  bool       // esc: do not ask for another step
	w, h  int
}

// checkState is a check's progress as the screen shows it.
type checkState struct {
	level, done, of  int  // the level under way, its jobs done of how many
	total, schedules int  // its schedules (estimated beyond level 1), and all run so far
	exact            bool // whether total is exact
	elapsed          time.Duration
	finished         bool
	err              error
	verdict          string // at the end: what was found
}

// checkMsg asks the root to start a check of a scenario.
type checkMsg struct{ s *scenarios.Scenario }

// checkStepMsg is a step's report; next runs the following step.
type checkStepMsg struct {
	view  *CheckView // the check it belongs to: a step of one the user left is dropped
	state checkState
	next  tea.Cmd
	found *scenarios.Result // the shortest counterexample, run, once done
}

// checkFaults is the bound a check started from the browser has: every
// schedule of one fault runs in seconds on every catalogue scenario.
const checkFaults = 1

// startCheck prepares a check of s and returns the screen and its first step.
func startCheck(com *Common, s *scenarios.Scenario) (*CheckView, tea.Cmd, error) {
	tpl, err := explore.FromSourceIn(s.Registry(), s.ID, s.Source)
	if err != nil {
		return nil, nil, err
	}
	cfg := &explore.Config{Template: tpl, Space: fault.Space{Menu: fault.Kinds}}
	cfg.Space.Menu = cfg.Usable()
	e, err := cfg.Exhaustive(1, explore.Bound{MaxFaults: checkFaults}, 1, 1)
	if err != nil {
		return nil, nil, err
	}
	v := &CheckView{com: com, id: s.ID}
	st := e.Stepper(cfg.Worker())
	start := time.Now()
	var step tea.Cmd
	step = func() tea.Msg {
		deadline := time.Now().Add(50 * time.Millisecond)
		for !st.Done() && time.Now().Before(deadline) {
			if err := st.Step(); err != nil {
				return checkStepMsg{view: v, state: checkState{err: err, finished: true}}
			}
		}
		done, of := st.JobsDone()
		n, exact := e.Estimate(st.Level())
		cs := checkState{level: st.Level(), done: done, of: of, total: n, exact: exact,
			schedules: st.Result.Schedules(), elapsed: time.Since(start), finished: st.Done()}
		if !st.Done() {
			return checkStepMsg{view: v, state: cs, next: step}
		}
		o, count := st.Result.Shortest()
		if o == nil {
			cs.verdict = fmt.Sprintf("no counterexample within %d fault: every one of %d schedules keeps the invariants that decide the verdict", checkFaults, cs.schedules)
			return checkStepMsg{view: v, state: cs}
		}
		small, _, err := cfg.ShrinkSizes(*o, 200)
		if err != nil {
			cs.err = err
			return checkStepMsg{view: v, state: cs}
		}
		src := cfg.Scenario(small, explore.Found{Command: "locksim check " + s.ID + " --max-faults 1", Checked: []string{
			fmt.Sprintf("Found from the catalogue's browser by an exhaustive check of every schedule of up to %d fault:", checkFaults),
			fmt.Sprintf("the first of %d counterexample(s) with %d fault(s), among %d schedules.", count, len(o.Schedule), cs.schedules)}},
			"check-"+s.ID+scenarios.Ext)
		found, err := s.Registry().Parse("check-"+s.ID+scenarios.Ext, src)
		if err != nil {
			cs.err = err
			return checkStepMsg{view: v, state: cs}
		}
		cs.verdict = fmt.Sprintf("%s breaks %s", small.Schedule, strings.Join(small.Broken, ", "))
		return checkStepMsg{view: v, state: cs, found: scenarios.Run(found, scenarios.RunOptions{Snapshots: true})}
	}
	return v, step, nil
}

// SetSize sets the screen's size.
func (v *CheckView) SetSize(w, h int) { v.w, v.h = w, h }

// Update takes a step's report (and asks for the next), and the keys: esc
// stops the check and goes back, q quits.
func (v *CheckView) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case checkStepMsg:
		v.state = msg.state
		if v.stop {
			return nil
		}
		return msg.next
	case tea.KeyPressMsg:
		switch {
		case msg.String() == "q" || msg.String() == "ctrl+c":
			return tea.Quit
		case msg.String() == "esc" || msg.String() == "backspace" || v.state.finished:
			v.stop = true
			return func() tea.Msg { return backMsg{} }
		}
	}
	return nil
}

// Running reports whether the check is still under way.
func (v *CheckView) Running() bool { return !v.state.finished && !v.stop }

// View draws the progress, or the result.
func (v *CheckView) View() string {
	if tooSmall(v.w, v.h) {
		return tooSmallView(v.w, v.h)
	}
	s := v.com.Styles
	st := v.state
	lines := []string{s.Header.Render(" locksim check " + v.id), ""}
	lines = append(lines, wrapLines(fmt.Sprintf(" Every fault schedule of up to %d fault, each fault in every gap between the steps of the process it hits, shortest and earliest first: the first counterexample found is the shortest.", checkFaults), v.w-2, " ")...)
	lines = append(lines, "")
	of := fmt.Sprintf("%d", st.total)
	if !st.exact {
		of = "about " + of
	}
	rate := 0.0
	if st.elapsed > 0 {
		rate = float64(st.schedules) / st.elapsed.Seconds()
	}
	eta := "?"
	if rate > 0 && st.of > 0 && st.done < st.of {
		eta = (time.Duration(float64(st.of-st.done) / float64(st.of) * float64(st.total) / rate * float64(time.Second))).Round(time.Second).String()
	}
	switch {
	case st.err != nil:
		lines = append(lines, s.Violation.Render(" the check failed: "+st.err.Error()))
	case st.finished:
		lines = append(lines, fmt.Sprintf(" done: %d schedules in %s (%.0f/s)", st.schedules, st.elapsed.Round(time.Millisecond), rate))
		lines = append(lines, wrapLines(" "+st.verdict, v.w-2, "   ")...)
	default:
		lines = append(lines, fmt.Sprintf(" level %d: %d of %d jobs, %d schedules run of %s, %.0f/s, about %s left", st.level, st.done, st.of, st.schedules, of, rate, eta))
	}
	for len(lines) < v.h-1 {
		lines = append(lines, "")
	}
	foot := " esc back  q quit"
	if st.finished {
		foot = " any key: back to the catalogue  q quit"
	}
	return box(append(lines, s.Dim.Render(foot)), v.w, v.h)
}
