package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/locksim/locksim/scenarios"
)

// bigScenario is a scenario that takes seconds to run and lay out: a thousand
// clients contending for one Redis lock, each retrying every 100-200 ms while
// it waits, for an hour of simulated time (about 1.5 million events).
func bigScenario(t testing.TB) *scenarios.Scenario {
	const n = 1000
	var b strings.Builder
	fmt.Fprintf(&b, "# A thousand clients contend for one lock.\n\nprotocol redis\nseed 1\nbound 1h\n\nnode r1 redis\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "client c%d redis-lock server=r1 ttl=10s hold=100ms retry=100ms jitter=100ms\n", i)
	}
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "at %dms c%d acquire L\n", 10*i, i)
	}
	b.WriteString("run until=1h\n")
	s, err := scenarios.Parse("big-contention.scn", b.String())
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// Opening a scenario from the browser runs it in a command, never inside
// Update: before, the openMsg case ran the whole simulation on the event loop,
// and the terminal froze until it was done. Now Update returns at once with a
// spinner on screen and the run as a command; the spinner turns, and q quits,
// while the run is under way.
func TestOpeningRunsOffTheEventLoop(t *testing.T) {
	big := bigScenario(t)
	a := NewApp(Options{Catalogue: []*scenarios.Scenario{big}, Dark: true, Width: 120, Height: 40})
	_, cmd := a.Update(keyMsg("enter"))
	if cmd == nil {
		t.Fatal("enter did not ask to open the scenario")
	}
	_, cmd = a.Update(cmd()) // the catalogue's openMsg
	if a.run != nil || a.cmp != nil {
		t.Fatal("opening ran the simulation inside Update")
	}
	s := ansi.Strip(a.View().Content)
	if !strings.Contains(s, "running big-contention") || !strings.Contains(s, "q quit") {
		t.Fatalf("while the run is under way the screen does not say so:\n%s", s)
	}
	if cmd == nil {
		t.Fatal("opening returned no command to run the scenario")
	}
	batch, ok := cmd().(tea.BatchMsg) // the spinner's first tick, and the run (not run here)
	if !ok || len(batch) != 2 {
		t.Fatalf("opening returned %T, want the spinner and the run", cmd())
	}
	_, next := a.Update(batch[0]())
	if next == nil || ansi.Strip(a.View().Content) == s {
		t.Error("the spinner does not turn while the run is under way")
	}
	_, cmd = a.Update(keyMsg("q"))
	if cmd == nil {
		t.Fatal("q does nothing while the run is under way")
	}
	if _, ok := cmd().(tea.QuitMsg); !ok {
		t.Error("q does not quit while the run is under way")
	}
}

// The run's result arrives as a message and opens the screen; after esc (back
// to the browser) or a newer choice, a late result is dropped.
func TestOpenedRunArrivesAsAMessage(t *testing.T) {
	cat := catalogue(t)
	for _, compare := range []bool{false, true} {
		a := NewApp(Options{Catalogue: cat, Dark: true, Width: 120, Height: 40})
		var s *scenarios.Scenario
		for _, sc := range cat {
			if sc.ID == "redis-del-after-expiry" {
				s = sc
			}
		}
		_, cmd := a.Update(openMsg{s: s, compare: compare})
		loaded := cmd().(tea.BatchMsg)[1]()
		if a.run != nil || a.cmp != nil {
			t.Fatal("the screen opened before its run finished")
		}
		a.Update(loaded)
		if compare && a.cmp == nil || !compare && a.run == nil {
			t.Fatalf("compare %v: the finished run did not open", compare)
		}
		if v := ansi.Strip(a.View().Content); !strings.Contains(v, "redis-del-after-expiry") {
			t.Errorf("compare %v: the opened screen:\n%s", compare, v)
		}

		drive(a, keyMsg("esc"))
		_, cmd = a.Update(openMsg{s: s, compare: compare})
		loaded = cmd().(tea.BatchMsg)[1]()
		drive(a, keyMsg("esc")) // back to the browser before the run is done
		a.Update(loaded)
		if a.run != nil || a.cmp != nil {
			t.Errorf("compare %v: a run the user left opened anyway", compare)
		}
	}
}

// In a real program (teatest): while a scenario runs, its spinner is on
// screen and q quits. The probe keeps the finished run from the App, so the
// run is still under way, as far as the App knows, however fast it ended:
// the test depends on no timing (before, it ran a thousand clients for
// seconds and hoped q came first). Had Update run the simulation itself (the
// bug), the scenario would open on the openMsg, before any spinner.
func TestQuitWhileARunIsUnderWay(t *testing.T) {
	seen := make(chan tea.Msg, 4)
	s := catalogue(t)[0]
	tm := teatest.NewTestModel(t, probe{App: NewApp(Options{Catalogue: []*scenarios.Scenario{s}, Dark: true}), seen: seen, hold: true},
		teatest.WithInitialTermSize(120, 40))
	look := looker(t, tm)
	tm.Send(keyMsg("enter"))
	await[openMsg](t, tm, seen)
	if scr, _, _ := look(); !strings.Contains(scr, "running "+s.ID) || strings.Contains(scr, "row ") {
		t.Fatalf("the run's spinner is not on screen once the scenario is chosen: the run held the event loop:\n%s", scr)
	}
	tm.Send(keyMsg("q"))
	tm.WaitFinished(t)
	if a := tm.FinalModel(t).(probe); a.run != nil || a.load == nil {
		t.Error("q did not quit while the run was under way")
	}
}
