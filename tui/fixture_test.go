package tui

import (
	"os"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"

	"charm.land/bubbles/v2/list"
	tea "charm.land/bubbletea/v2"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim/simtest"
)

// The package's tests share one parse of the catalogue and one run of each
// scenario they open (issue 32: each test used to parse all 109 files for
// every scenario it ran, and several re-ran the whole catalogue). A run is
// deterministic and the UI only reads it (a what-if forks a new run), so a
// shared run is the same run each test used to make for itself; tests that
// share runs may therefore run in parallel.
var (
	catOnce sync.Once
	catList []*scenarios.Scenario
	catErr  error

	runsMu sync.Mutex
	runs   = map[string]*sharedRun{}

	catRunsOnce sync.Once
)

type sharedRun struct {
	once sync.Once
	res  *scenarios.Result
	err  error
}

// catalogue is the embedded catalogue, parsed once; each caller gets its own
// slice (the scenarios themselves are shared and read-only).
func catalogue(t testing.TB) []*scenarios.Scenario {
	t.Helper()
	catOnce.Do(func() { catList, catErr = scenarios.Catalogue() })
	if catErr != nil {
		t.Fatal(catErr)
	}
	return slices.Clone(catList)
}

// result is the run of a catalogue scenario (or an exercise) with snapshots,
// made once for the package.
func result(t testing.TB, id string) *scenarios.Result {
	t.Helper()
	res, err := sharedResult(id)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func sharedResult(id string) (*scenarios.Result, error) {
	runsMu.Lock()
	r := runs[id]
	if r == nil {
		r = &sharedRun{}
		runs[id] = r
	}
	runsMu.Unlock()
	r.once.Do(func() {
		catOnce.Do(func() { catList, catErr = scenarios.Catalogue() })
		var s *scenarios.Scenario
		for _, sc := range catList {
			if sc.ID == id {
				s = sc
			}
		}
		if s == nil {
			if s, r.err = scenarios.Load(id); r.err != nil {
				return
			}
		}
		r.res = scenarios.Run(s, scenarios.RunOptions{Snapshots: true})
	})
	return r.res, r.err
}

// catalogueRuns is every catalogue scenario with its run, in the catalogue's
// order. The runs are made on every core once, the first time a test asks.
//
// Under -short (the race run) it is a sample that covers every protocol
// (simtest.Sample).
func catalogueRuns(t testing.TB) ([]*scenarios.Scenario, []*scenarios.Result) {
	t.Helper()
	cat := simtest.Sample(catalogue(t), func(s *scenarios.Scenario) string { return s.Protocol })
	catRunsOnce.Do(func() {
		var wg sync.WaitGroup
		work := make(chan string)
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for id := range work {
					sharedResult(id) // an error is reported below, on the test's goroutine
				}
			})
		}
		for _, s := range cat {
			work <- s.ID
		}
		close(work)
		wg.Wait()
	})
	res := make([]*scenarios.Result, len(cat))
	for i, s := range cat {
		res[i] = result(t, s.ID)
	}
	return cat, res
}

// long reports whether the long forms of the sweeps run (LOCKSIM_LONG=1), and
// logs which form this test runs.
func long(t *testing.T, short, full string) bool {
	t.Helper()
	if os.Getenv("LOCKSIM_LONG") == "" {
		t.Logf("short form: %s (LOCKSIM_LONG=1 runs %s)", short, full)
		return false
	}
	t.Logf("long form (LOCKSIM_LONG=1): %s", full)
	return true
}

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
