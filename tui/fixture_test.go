package tui

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	"charm.land/bubbles/v2/list"
	tea "charm.land/bubbletea/v2"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/tui/internal/fixture"
)

// The package's tests share one parse of the catalogue and one run of each
// scenario they open (tui/internal/fixture, shared with tui/export's tests).

// catalogue is the embedded catalogue, parsed once; each caller gets its own slice.
func catalogue(t testing.TB) []*scenarios.Scenario { return fixture.Catalogue(t) }

// result is the run of a catalogue scenario (or an exercise) with snapshots,
// made once for the package.
func result(t testing.TB, id string) *scenarios.Result { return fixture.Run(t, id, true) }

// catalogueRuns is every catalogue scenario with its run (with snapshots), in
// the catalogue's order; under -short, a sample that covers every protocol.
func catalogueRuns(t testing.TB) ([]*scenarios.Scenario, []*scenarios.Result) {
	return fixture.Sweep(t, true)
}

// long reports whether the long forms of the sweeps run (-tags long), and
// logs which form this test runs.
func long(t *testing.T, short, full string) bool { t.Helper(); return fixture.Long(t, short, full) }

// drive sends messages to an app, and the messages its commands answer with
// (opening a scenario, its run finished, going back, a filter's matches), as a
// program would, synchronously: a command is a plain function, and drive calls
// it on the test's goroutine. A timer (a play tick, a spinner's next frame, a
// cursor's blink) is never started: drive tells one by its function, without
// calling it, and returns how many it left pending. Tests step play with
// tickMsg themselves.
func drive(a *App, msgs ...tea.Msg) (timers int) {
	for _, msg := range msgs {
		_, cmd := a.Update(msg)
		timers += follow(a, cmd, 0)
	}
	return timers
}

func follow(a *App, cmd tea.Cmd, depth int) (timers int) {
	if cmd == nil || depth > 10 {
		return 0
	}
	if isTimer(cmd) {
		return 1
	}
	switch m := cmd().(type) {
	case tea.BatchMsg:
		for _, c := range m {
			timers += follow(a, c, depth+1)
		}
	case openMsg, loadedMsg, backMsg, list.FilterMatchesMsg:
		_, next := a.Update(m)
		timers += follow(a, next, depth+1)
	}
	return timers
}

// timerFuncs are the functions whose commands wait on a timer: Bubble Tea's
// Tick and Every (the play tick, the spinner's frames), the text cursor's
// blink and a list's status message.
var timerFuncs = []string{
	"charm.land/bubbletea/v2.Tick.",
	"charm.land/bubbletea/v2.Every.",
	"charm.land/bubbles/v2/cursor.(*Model).Blink.",
	"charm.land/bubbles/v2/list.(*Model).NewStatusMessage.",
}

// isTimer reports whether cmd is a command that waits on a timer: it names the
// closure's function, which Go keeps per function literal.
func isTimer(cmd tea.Cmd) bool {
	f := runtime.FuncForPC(reflect.ValueOf(cmd).Pointer())
	if f == nil {
		return false
	}
	name := f.Name()
	for _, p := range timerFuncs {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
