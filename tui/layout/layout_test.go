package layout_test

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/tui/layout"
)

// The layout is tested on a small hand-made run: who is in which column, where the
// belief bars run, and that violations become rows of their own.

type believer struct{ env sim.Env }

func (b *believer) Step(_ sim.LocalTime, in sim.Input, out *sim.Outputs) {
	if in.Kind != sim.InCommand {
		return
	}
	kind := sim.ObsBeliefStart
	if in.Msg.Op == "stop" {
		kind = sim.ObsBeliefEnd
	}
	if in.Msg.Op == "send" {
		out.Send(0, sim.Message{Op: "HELLO"})
		return
	}
	out.Observe(sim.Observation{Kind: kind, Client: b.env.ID, By: sim.NoProc, Lock: "L", Grant: b.env.Name})
}
func (b *believer) Describe() string { return "" }

func timeline(t *testing.T) *layout.Timeline {
	w := sim.NewWorld(sim.Config{})
	for _, n := range []string{"c1", "c2"} {
		w.AddProcess(n, "client", sim.Clock{}, func(e sim.Env) sim.Process { return &believer{e} })
	}
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	at := func(s int, p sim.ProcID, op string) {
		w.Schedule(sim.Time(time.Duration(s)*time.Second), sim.Action{Kind: sim.ActCommand, Proc: p, Msg: sim.Message{Op: op}})
	}
	at(1, 0, "start")
	at(2, 1, "start")
	at(3, 1, "send")
	at(4, 0, "stop")
	tr := w.Run()
	rep := check.Check(tr, check.Options{})
	return layout.New(tr, &rep)
}

func TestBeliefBarsAndViolationRows(t *testing.T) {
	tl := timeline(t)
	if cols := tl.Columns(); len(cols) != 2 || cols[0].Name != "c1" || cols[1].Role != "client" {
		t.Fatalf("columns %+v", cols)
	}
	var kinds []string
	bars := ""
	for r := range tl.Len() {
		row := tl.Row(r)
		if row.Kind == layout.RowViolation {
			kinds = append(kinds, "violation "+row.Invariant)
		} else {
			kinds = append(kinds, tl.Trace().Event(row.Event).Kind.String())
		}
		for _, c := range row.Cells {
			if c.Spans&layout.SpanBelief != 0 {
				bars += "|"
			} else {
				bars += "."
			}
		}
		bars += " "
	}
	want := "command command violation mutex-belief command send deliver command end"
	if got := strings.Join(kinds, " "); got != want {
		t.Errorf("rows:\n got %s\nwant %s", got, want)
	}
	// c1 believes from its command to its stop; c2 from its command to the end.
	if wantBars := "|. || || || || || || .| "; bars != wantBars {
		t.Errorf("belief bars per row:\n got %q\nwant %q", bars, wantBars)
	}
}

func TestPlainTextIsAlignedAndComplete(t *testing.T) {
	text := timeline(t).String()
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if !strings.HasPrefix(lines[0], "true time   c1") {
		t.Errorf("header %q", lines[0])
	}
	for _, want := range []string{"◆", "VIOLATION mutex-belief", "HELLO", "◁", "┃"} {
		if !strings.Contains(text, want) {
			t.Errorf("timeline lacks %q:\n%s", want, text)
		}
	}
	// Every row is the time (10 runes and a blank), one ColumnWidth cell per
	// process, then two blanks and the sentence: the sentences line up.
	start := 11 + 2*layout.ColumnWidth
	for _, l := range lines[1:] {
		r := []rune(l)
		if len(r) < start+3 || string(r[start:start+2]) != "  " || r[start+2] == ' ' {
			t.Errorf("row not aligned at rune %d: %q", start, l)
		}
	}
}
