package tui

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/tui/layout"
)

// On a line only one run has, the other run's marks that run on across it are
// drawn: a promise, a pause, a downtime, a belief, each until the row of the
// event that ends it. redis-del-after-expiry beside its what-if where c1
// crashes just after it holds L: the what-if's own lines between c1's pause at
// 1 s and the key's expiry at 10.001 s are blank on the original's side but for
// what runs on there: r1's promise to c1 (Redis, "Distributed Locks with
// Redis": the key is c1's until its TTL ends) and c1's belief, paused.
func TestCompareDrawsWhatRunsOnAcrossTheOtherRunsLines(t *testing.T) {
	orig, err := scenarios.Load("redis-del-after-expiry")
	if err != nil {
		t.Fatal(err)
	}
	w, err := orig.With([]string{"at 2.001ms crash c1", "at 1.002001s restart c1"})
	if err != nil {
		t.Fatal(err)
	}
	a, b := scenarios.Run(orig, scenarios.RunOptions{}), scenarios.Run(w, scenarios.RunOptions{})
	c := layout.Compare(layout.New(a.Trace, &a.Report), layout.New(b.Trace, &b.Report))
	col := func(name string) int {
		for j, cl := range c.A.Columns() {
			if cl.Name == name {
				return j
			}
		}
		t.Fatalf("no column %s", name)
		return -1
	}
	r1, c1 := col("r1"), col("c1")
	seen := 0
	for i := range c.Len() {
		ra, _ := c.Own(i)
		at := c.Time(i)
		if ra >= 0 || at <= sim.Time(time.Second) || at >= sim.Time(10*time.Second) {
			continue // a line the original has, or outside the pause
		}
		seen++
		cells := c.Cells(false, i)
		if cells[r1].Spans&layout.SpanPromise == 0 {
			t.Errorf("line %d (%s, the what-if's own): r1's promise to c1 is not drawn on the original's side", i, at)
		}
		if want := layout.SpanBelief | layout.SpanPaused; cells[c1].Spans&want != want {
			t.Errorf("line %d (%s, the what-if's own): c1's paused belief is not drawn on the original's side", i, at)
		}
	}
	if seen == 0 {
		t.Fatal("the what-if has no line of its own during c1's pause: the test tests nothing")
	}
}

// Stacked, a run's row keeps its processes in the run's own order, with its
// arrows whole. redlock-gc-pause-fenced has a process, T (the token service),
// that redlock-gc-pause has not, between the Redis nodes and the clients: c2's
// EVAL to the nodes runs across T's column in both runs. Before, T went to the
// end of the columns, so B's arrows left a stray wire there and every such
// line was drawn twice, A's and B's.
func TestStackedCompareKeepsEachRunsOrder(t *testing.T) {
	a := compareApp(t, "redlock-gc-pause", "redlock-gc-pause-fenced")()
	s := screen(a, 120, 40, "G")
	evals, split := 0, 0
	for _, line := range strings.Split(s, "\n") {
		if !strings.Contains(line, "EVAL") {
			continue
		}
		evals++
		if strings.HasPrefix(strings.TrimLeft(line, " ≠"), "A") || strings.HasPrefix(strings.TrimLeft(line, " ≠"), "B") {
			split++
			t.Errorf("c2's EVAL, the same in both runs, is drawn for each run: %q", line)
		}
		if tail := line[strings.Index(line, "EVAL")+len("EVAL"):]; strings.Contains(tail, "─") {
			t.Errorf("a wire right of c2's EVAL, past the columns the arrow joins: %q", line)
		}
	}
	if evals == 0 {
		t.Fatalf("no EVAL line on screen, the test tests nothing:\n%s", s)
	}
}
