package layout_test

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/tui/layout"
)

// The views of issue 16: short labels, quiet, hidden columns, the walk's stops
// and narration, and two runs compared, each on a small hand-made run.

// A cell abbreviates by meaning before it cuts: the blank after the glyph goes
// first, then the cell's Short word; an ellipsis only when nothing shorter is left.
func TestCellTextPrefersShortWordsToEllipses(t *testing.T) {
	for _, tc := range []struct {
		cell  layout.Cell
		width int
		want  string
	}{
		{layout.Cell{Kind: layout.CellTimer, Label: "node timeout", Short: "timeout"}, 15, " ⏲ node timeout"},
		{layout.Cell{Kind: layout.CellTimer, Label: "node timeout", Short: "timeout"}, 14, " ⏲node timeout"},
		{layout.Cell{Kind: layout.CellTimer, Label: "node timeout", Short: "timeout"}, 10, " ⏲ timeout"},
		{layout.Cell{Kind: layout.CellTimer, Label: "node timeout", Short: "timeout"}, 9, " ⏲timeout"},
		{layout.Cell{Kind: layout.CellTimer, Label: "node timeout", Short: "timeout"}, 6, " ⏲tim…"},
		{layout.Cell{Kind: layout.CellDecide, Label: "COMMIT"}, 8, " ⚑COMMIT"},
		{layout.Cell{Kind: layout.CellClock, Label: "+15s"}, 7, " ⤴ +15s"},
		{layout.Cell{Kind: layout.CellGrant, Label: "L→c1", Short: "→c1"}, 5, " ★→c1"},
		{layout.Cell{Kind: layout.CellSend, Label: "EVAL compare-and-delete", Short: "EVAL"}, 8, " EVAL ──"},
		{layout.Cell{Spans: layout.SpanFolded}, 4, " ∙  "},
	} {
		got := layout.CellText(tc.cell, tc.width)
		if got != tc.want || len([]rune(got)) != tc.width {
			t.Errorf("CellText(%+v, %d) = %q, want %q", tc.cell, tc.width, got, tc.want)
		}
	}
}

// heart sends a background ping to its peer every second (once commanded to
// tick) and answers one with a background ack; on another command it sends a
// real REQ, which its peer reports.
type heart struct{ env sim.Env }

func (h *heart) Step(_ sim.LocalTime, in sim.Input, out *sim.Outputs) {
	peer := 1 - h.env.ID
	switch in.Kind {
	case sim.InTimer:
		out.Send(peer, sim.Message{Op: "PING"}.InBackground())
		out.SetTimer(1, time.Second)
	case sim.InMessage:
		if in.Msg.Op == "PING" {
			out.Send(peer, sim.Message{Op: "PINGACK"}.InBackground())
		}
	case sim.InCommand:
		if in.Msg.Op == "tick" {
			out.SetTimer(1, time.Second) // a's heartbeat starts
		} else {
			out.Send(peer, sim.Message{Op: "REQ"})
		}
	case sim.InRestart:
	}
	if in.Kind == sim.InMessage && in.Msg.Op == "REQ" {
		out.Observe(sim.Note(h.env.ID, "%s got a request", h.env.Name))
	}
}
func (h *heart) Describe() string                 { return "" }
func (h *heart) BackgroundTimer(sim.TimerID) bool { return true }

func hearts(t *testing.T, narrate bool) *layout.Timeline {
	w := sim.NewWorld(sim.Config{Limits: sim.Limits{MaxEvents: 1000, MaxTime: 10 * time.Second, MaxQueue: 100}})
	for _, n := range []string{"a", "b"} {
		w.AddProcess(n, "server", sim.Clock{}, func(e sim.Env) sim.Process { return &heart{e} })
	}
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	say := func(s string) string {
		if narrate {
			return s
		}
		return ""
	}
	w.Schedule(0, sim.Action{Kind: sim.ActCommand, Proc: 0, Msg: sim.Message{Op: "tick"}, Narration: say("a starts")})
	w.Schedule(sim.Time(1500*time.Millisecond), sim.Action{Kind: sim.ActCommand, Proc: 0, Msg: sim.Message{Op: "go"}, Narration: say("a asks b")})
	w.Schedule(sim.Time(2500*time.Millisecond), sim.Action{Kind: sim.ActNote, Proc: sim.NoProc, Narration: "a note"})
	w.Schedule(sim.Time(3*time.Second), sim.Action{Kind: sim.ActCommand, Proc: 1, Msg: sim.Message{Op: "go"}})
	w.Schedule(sim.Time(4*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	tr := w.Run()
	rep := check.Check(tr, check.Options{})
	return layout.New(tr, &rep)
}

// Quiet folds what the protocol declared background (a background timer's step
// that only sent pings, the pings and acks themselves) into a tick on the next
// row shown; a row whose step reported something stays.
func TestQuietFoldsDeclaredBackground(t *testing.T) {
	tl := hearts(t, true)
	q := tl.Filter(layout.Filter{Quiet: true})
	var shown []string
	ticks := 0
	for r := range q.Len() {
		row := q.Row(r)
		shown = append(shown, row.Lines[0])
		for _, c := range row.Cells {
			if c.Spans&layout.SpanFolded != 0 {
				ticks++
			}
		}
	}
	for _, s := range shown {
		if strings.Contains(s, "PING") {
			t.Errorf("quiet still shows %q", s)
		}
	}
	if !strings.Contains(strings.Join(shown, "|"), "deliver a->b REQ") || ticks == 0 {
		t.Errorf("quiet lost the request, or drew no tick (%d):\n%s", ticks, strings.Join(shown, "\n"))
	}
	if tl.Len() <= q.Len() {
		t.Errorf("quiet folded nothing: %d rows of %d", q.Len(), tl.Len())
	}
	// The cursor keeps its place across views.
	r := tl.RowAt(q.Key(q.Len() - 1))
	if tl.Row(r).Lines[0] != q.Row(q.Len() - 1).Lines[0] {
		t.Errorf("RowAt(Key) moved from %q to %q", q.Row(q.Len() - 1).Lines[0], tl.Row(r).Lines[0])
	}
}

// Hiding a process drops its column and the rows of its own steps.
func TestHiddenProcessLosesItsColumnAndSteps(t *testing.T) {
	tl := hearts(t, true)
	h := tl.Filter(layout.Filter{Hidden: []bool{false, true}})
	if cols := h.Columns(); len(cols) != 1 || cols[0].Name != "a" || h.Column(1) != -1 {
		t.Fatalf("columns %+v", cols)
	}
	for r := range h.Len() {
		if ev := h.RowEvent(r); ev >= 0 && h.Trace().Event(ev).Proc == 1 {
			t.Errorf("b's step is still shown: %s", h.Row(r).Text)
		}
		if n := len(h.Row(r).Cells); n != 1 {
			t.Fatalf("row %d has %d cells", r, n)
		}
	}
}

// The walk stops at each narrated step, each note and each fault; a narration
// holds from its row to the next scheduled action, never for the rest of the run.
func TestStopsAndNarrationFollowTheStory(t *testing.T) {
	tl := hearts(t, true)
	var stops []string
	for _, r := range tl.Stops() {
		text, at := tl.Narration(r)
		if at != r {
			t.Errorf("stop %d has narration %q from row %d", r, text, at)
		}
		stops = append(stops, text)
	}
	if got := strings.Join(stops, "|"); got != "a starts|a asks b|a note" {
		t.Errorf("stops: %s", got)
	}
	last := tl.Len() - 1
	if text, _ := tl.Narration(last); text != "" {
		t.Errorf("the last row still shows narration %q", text)
	}
	if !strings.Contains(tl.Row(tl.Stops()[2]).Text, "note: a note") {
		t.Errorf("a note's row does not say its text: %s", tl.Row(tl.Stops()[2]).Text)
	}
}

// Two runs compared: the rows they share pair up, a row only one has is a
// difference, and the runs line up again after it.
func TestCompareLinesUpTwoRuns(t *testing.T) {
	a, b := hearts(t, true), hearts(t, false)
	c := layout.Compare(a, a)
	if len(c.Differences()) != 0 || c.Len() != a.Len() {
		t.Fatalf("a run compared with itself: %d lines, %d differences", c.Len(), len(c.Differences()))
	}
	// The same runs differ only by narration, which is not part of a row.
	if c = layout.Compare(a, b); len(c.Differences()) != 0 {
		t.Errorf("narration made rows differ: %v", c.Differences())
	}
	q := b.Filter(layout.Filter{Quiet: true})
	c = layout.Compare(a, q)
	d := c.Differences()
	if len(d) == 0 {
		t.Fatal("a run and its quiet view do not differ")
	}
	for i := range c.Len() {
		x, y := c.Own(i)
		if (x < 0 || y < 0) != c.Differs(i) {
			t.Fatalf("line %d: own rows %d, %d but differs=%v", i, x, y, c.Differs(i))
		}
		if x >= 0 && y >= 0 && a.Row(x).Text != q.Row(y).Text {
			t.Fatalf("line %d pairs %q with %q", i, a.Row(x).Text, q.Row(y).Text)
		}
	}
	var text strings.Builder
	if err := c.WriteText(&text, [2]string{"loud", "quiet"}, 10, 0, 0); err != nil {
		t.Fatal(err)
	}
	if out := text.String(); !strings.Contains(out, "≠") || !strings.Contains(out, "A: loud") || !strings.Contains(out, "PING") {
		t.Errorf("plain text comparison:\n%s", out)
	}
}

// The legend is generated from the table the cells are drawn with: every kind
// and every span has an entry, with a meaning.
func TestLegendCoversEveryMark(t *testing.T) {
	kinds := map[layout.CellKind]bool{}
	spans := layout.SpanNone
	for _, e := range layout.Legend() {
		if e.Meaning == "" {
			t.Errorf("%+v has no meaning", e.Cell)
		}
		kinds[e.Cell.Kind] = true
		spans |= e.Cell.Spans
	}
	for k := layout.CellCommand; k.Meaning() != ""; k++ {
		if !kinds[k] {
			t.Errorf("the legend lacks %s", k.Glyph())
		}
	}
	if want := layout.SpanBelief | layout.SpanPaused | layout.SpanDown | layout.SpanFolded | layout.SpanPromise; spans != want {
		t.Errorf("the legend's spans %b, want %b", spans, want)
	}
}
