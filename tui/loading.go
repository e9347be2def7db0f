package tui

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/tui/layout"
)

// Loading is the screen while a scenario chosen in the browser runs. The
// simulation and the layout of its timeline run in a command (runScenario),
// never on the UI's event loop, so a run of millions of events leaves the
// screen live: a spinner turns with the time taken so far, q quits and esc
// goes back to the browser at once (the run's result, when it comes, is
// dropped).
type Loading struct {
	com     *Common
	keys    KeyMap
	what    string // what runs: an id, or two compared
	gen     int    // the run this screen waits for
	spin    spinner.Model
	started time.Time
	now     time.Time // the last tick's time
	w, h    int
}

// loadedMsg is a run (or two) finished by runScenario, laid out, ready to open.
type loadedMsg struct {
	gen  int
	res  [2]*scenarios.Result // the run, and the one it is compared with (nil: none)
	base [2]*layout.Timeline  // their timelines, laid out
	cmp  *layout.Comparison   // the two lined up, when compared
	opt  ScenarioOptions
	err  error
}

// NewLoading makes the screen of run gen, started at now.
func NewLoading(com *Common, what string, gen int, now time.Time) Loading {
	l := Loading{com: com, keys: com.Keys, what: what, gen: gen, started: now, now: now,
		spin: spinner.New(spinner.WithSpinner(spinner.MiniDot), spinner.WithStyle(com.Styles.Marker))}
	l.keys.Back.SetEnabled(true)
	return l
}

// Awaits reports whether this screen waits for run gen (the root drops a
// result it no longer waits for).
func (l Loading) Awaits(gen int) bool { return l.gen == gen }

// Init starts the spinner.
func (l Loading) Init() tea.Cmd { return l.spin.Tick }

// SetSize sets the screen's size.
func (l *Loading) SetSize(w, h int) { l.w, l.h = w, h }

// Update turns the spinner; q quits and esc goes back.
func (l Loading) Update(msg tea.Msg) (Loading, tea.Cmd) {
	switch msg := msg.(type) {
	case spinner.TickMsg:
		var cmd tea.Cmd
		l.spin, cmd = l.spin.Update(msg)
		if msg.ID == l.spin.ID() && msg.Time.After(l.now) {
			l.now = msg.Time
		}
		return l, cmd
	case tea.KeyPressMsg:
		switch {
		case key.Matches(msg, l.keys.Quit):
			return l, tea.Quit
		case key.Matches(msg, l.keys.Back):
			return l, func() tea.Msg { return backMsg{} }
		}
	}
	return l, nil
}

// View draws the spinner, what runs and for how long.
func (l Loading) View() string {
	if tooSmall(l.w, l.h) {
		return tooSmallView(l.w, l.h)
	}
	s := l.com.Styles
	took := l.now.Sub(l.started).Truncate(100 * time.Millisecond)
	lines := []string{
		s.Header.Render(" locksim"), "",
		fmt.Sprintf(" %s running %s  %s", l.spin.View(), s.Title.Render(l.what), s.Dim.Render(fmt.Sprintf("%.1fs", took.Seconds()))),
		"",
		s.Dim.Render(" The simulation runs first, then the timeline opens on the finished run."),
	}
	for len(lines) < l.h-1 {
		lines = append(lines, "")
	}
	return box(append(lines, s.Footer.Render(" esc back  q quit")), l.w, l.h)
}

// runScenario is the command that runs what msg asks for, off the UI's event
// loop, and lays it out: the whole cost of opening a scenario.
func runScenario(msg openMsg, gen int) tea.Cmd {
	return func() tea.Msg {
		out := loadedMsg{gen: gen, opt: ScenarioOptions{Walk: msg.walk}}
		run := func(i int, s *scenarios.Scenario) {
			out.res[i] = scenarios.Run(s, scenarios.RunOptions{Snapshots: true})
			out.base[i] = layout.New(out.res[i].Trace, &out.res[i].Report)
		}
		if msg.compare {
			pair, err := msg.s.Control()
			if err != nil {
				out.err = err
				return out
			}
			run(1, pair)
		}
		run(0, msg.s)
		if msg.compare {
			out.cmp = layout.Compare(out.base[0], out.base[1])
		}
		return out
	}
}
