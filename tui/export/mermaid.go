package export

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/tui/layout"
)

// WriteMermaid writes the run as a Mermaid sequence diagram: the processes as
// participants in the timeline's order, each message as an arrow when it is
// delivered (a lost one ends in a cross), faults and the other marks as notes
// over their process, a client's belief that it holds the lock as an activation,
// violations as notes over the processes they name, and the verdict last. A long
// run is cut where `locksim run` cuts it (Options.Full keeps every row), and a
// note says so.
func WriteMermaid(w io.Writer, res *scenarios.Result, opt Options) error {
	tl := layout.New(res.Trace, &res.Report)
	t := res.Trace
	cols := tl.Columns()
	span := func(cs []int) string { return over(cs, len(cols)) }
	bw := bufio.NewWriter(w)
	p := func(format string, a ...any) { fmt.Fprintf(bw, format+"\n", a...) }
	p("sequenceDiagram")
	p("    %%%% %s", mermaidText("locksim "+strings.TrimPrefix(res.ReproduceCommand(), "locksim ")+" --format mermaid"))
	p("    title %s", mermaidText(fmt.Sprintf("%s · seed %d · %s", res.Scenario.ID, res.Seed, res.Report.Verdict)))
	for c, col := range cols {
		p("    participant %s as %s", id(c), col.Name)
	}
	active := make([]bool, len(cols))
	for _, it := range shownRows(tl, opt.Full) {
		if it.row < 0 {
			p("    Note over %s: %s", span(nil), mermaidText(fmt.Sprintf("⋯ %d rows left out (--full keeps them) ⋯", it.skipped)))
			continue
		}
		row := tl.Row(it.row)
		// A belief's activation ends before the row after its end, and starts
		// after the row that starts it (the arrow that brought the OK).
		for c, cell := range row.Cells {
			if active[c] && cell.Spans&layout.SpanBelief == 0 {
				active[c] = false
				p("    deactivate %s", id(c))
			}
		}
		writeMermaidRow(p, t, row, span)
		for c, cell := range row.Cells {
			if !active[c] && cell.Spans&layout.SpanBelief != 0 {
				active[c] = true
				p("    activate %s", id(c))
			}
		}
	}
	for c, on := range active {
		if on {
			p("    deactivate %s", id(c))
		}
	}
	verdict := "Verdict: " + string(res.Report.Verdict)
	if v := violated(res); len(v) > 0 {
		verdict += " (violated: " + strings.Join(v, ", ") + ")"
	}
	p("    Note over %s: %s", span(nil), mermaidText(verdict))
	return bw.Flush()
}

// writeMermaidRow writes one timeline row's statements: a violation's note, a
// message's arrow, a fault's or a mark's note.
func writeMermaidRow(p func(string, ...any), t *sim.Trace, row layout.Row, span func([]int) string) {
	if row.Kind == layout.RowViolation {
		p("    Note over %s: %s", span(marked(row.Cells, layout.CellViolation)),
			mermaidText("◆ "+strings.TrimPrefix(row.Text, "VIOLATION ")))
		return
	}
	e := t.Event(row.Event)
	switch e.Kind {
	case sim.EvSend, sim.EvStart, sim.EvTimer:
		// A message is drawn when it arrives; a timer by what it causes.
	case sim.EvDeliver:
		p("    %s->>%s: %s", id(int(e.Peer)), id(int(e.Proc)), mermaidText(t.Msg(e).String()))
	case sim.EvDrop:
		p("    %s-x%s: %s", id(int(e.Peer)), id(int(e.Proc)), mermaidText(t.Msg(e).String()+" (lost: "+t.Note(e)+")"))
	case sim.EvCommand:
		cmd := "● " + t.Msg(e).String()
		if n := t.Note(e); n != "" {
			cmd += ": " + n // "queued: c1 is paused"
		}
		p("    Note over %s: %s", id(int(e.Proc)), mermaidText(cmd))
	case sim.EvPartition, sim.EvHeal, sim.EvLink:
		p("    Note over %s: %s", span(marked(row.Cells, layout.CellCut)), mermaidText("╳ "+t.EventText(row.Event)))
		return
	case sim.EvEnd:
		return
	default:
		if e.Kind.IsFault() {
			p("    Note over %s: %s", id(int(e.Proc)), mermaidText(faultGlyph(row.Cells, int(e.Proc))+t.EventText(row.Event)))
		}
	}
	for c, cell := range row.Cells {
		switch cell.Kind {
		case layout.CellGrant, layout.CellGrantEnd, layout.CellAccept, layout.CellReject, layout.CellNote:
			p("    Note over %s: %s", id(c), mermaidText(glyph(cell.Kind)+" "+cell.Label))
		}
	}
}

// id is column c's participant: an alias, so that no process name can clash
// with Mermaid's keywords (end, loop, opt...).
func id(c int) string { return fmt.Sprintf("p%d", c) }

// over is the participants a note spans: from the first to the last of cs, or
// all n when cs is empty.
func over(cs []int, n int) string {
	if len(cs) == 0 {
		cs = []int{0, n - 1}
	}
	if cs[0] == cs[len(cs)-1] {
		return id(cs[0])
	}
	return id(cs[0]) + "," + id(cs[len(cs)-1])
}

// faultGlyph is the mark of the fault in column c, with a blank after it.
func faultGlyph(cells []layout.Cell, c int) string {
	if c >= 0 && c < len(cells) && glyph(cells[c].Kind) != "" {
		return glyph(cells[c].Kind) + " "
	}
	return ""
}

// marked lists the columns whose cell is of kind k.
func marked(cells []layout.Cell, k layout.CellKind) []int {
	var out []int
	for c, cell := range cells {
		if cell.Kind == k {
			out = append(out, c)
		}
	}
	return out
}

// mermaidEscaper keeps a text on its line and out of Mermaid's syntax: # starts
// an entity, ; ends a statement, < and > would be read as HTML.
var mermaidEscaper = strings.NewReplacer("#", "#35;", ";", "#59;", "<", "#lt;", ">", "#gt;", "\n", " ")

func mermaidText(s string) string { return mermaidEscaper.Replace(s) }
