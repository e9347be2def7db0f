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
// over their process, the scenario's notes with their text, a client's belief
// that it holds the lock as an activation, violations as notes over the
// processes they name, and the verdict last. A long run is cut where `locksim
// run` cuts it (Options.Full keeps every row), and a note says so.
func WriteMermaid(w io.Writer, res *scenarios.Result, opt Options) error {
	tl := timeline(res, opt.Quiet, opt.Window)
	m := newMermaid(w, res.ReproduceCommand(), fmt.Sprintf("%s · seed %d · %s", res.Scenario.ID, res.Seed, res.Report.Verdict), opt)
	ln := m.lane(res, tl, "p")
	ln.participants()
	for _, s := range shown(tl.Len(), opt.Full, func(r int) bool { return tl.RowEvent(r) < 0 }) {
		if s.skipped > 0 {
			m.p("    Note over %s: %s", m.all(), mermaidText(fmt.Sprintf("⋯ %d rows left out (--full keeps them) ⋯", s.skipped)))
			continue
		}
		ln.row(s.i)
	}
	ln.deactivate()
	m.p("    Note over %s: %s", m.all(), noteText(verdictNote("", res), len(tl.Columns())))
	return m.bw.Flush()
}

// WriteCompareMermaid writes two runs as one sequence diagram on one time axis,
// lined up as `locksim run A --vs B` lines them up (layout.Compare): each run's
// processes in a box of their own (A's left, B's right), a line both runs share
// written for each, the lines only one run has highlighted, and both verdicts
// last. A long comparison keeps its first and last lines, its violations and
// its differences (compareKeep).
func WriteCompareMermaid(w io.Writer, a, b *scenarios.Result, opt Options) error {
	c := compare(a, b, opt.Quiet, opt.Window)
	m := newMermaid(w, scenarios.CompareCommand(a, b), fmt.Sprintf("%s vs %s · %s / %s", a.Scenario.ID, b.Scenario.ID, a.Report.Verdict, b.Report.Verdict), opt)
	lanes := []*mermaidLane{m.lane(a, c.A, "a"), m.lane(b, c.B, "b")}
	for i, ln := range lanes {
		m.p("    box %s %s", []string{"rgb(243, 246, 255)", "rgb(255, 246, 236)"}[i],
			mermaidText(fmt.Sprintf("%s · %s · %s", "AB"[i:i+1], ln.res.Scenario.ID, ln.res.Report.Verdict)))
		ln.participants()
		m.p("    end")
	}
	if len(c.Differences()) > 0 {
		m.p("    Note over %s: %s", m.all(), noteText(differences(c), len(c.A.Columns())+len(c.B.Columns())))
	}
	// A run of differing lines is highlighted; the block opens with the first
	// statement written in it (Mermaid cannot draw an empty one).
	inDiff := false
	diff := func(on bool) {
		switch {
		case on && !inDiff:
			m.pending = "    rect rgb(248, 230, 248)"
		case !on && inDiff && m.pending != "":
			m.pending = ""
		case !on && inDiff:
			m.p("    end")
		}
		inDiff = on
	}
	for _, s := range shown(c.Len(), opt.Full, compareKeep(c)) {
		if s.skipped > 0 {
			diff(false)
			m.p("    Note over %s: %s", m.all(), mermaidText(fmt.Sprintf("⋯ %d lines left out (--full keeps them) ⋯", s.skipped)))
			continue
		}
		diff(c.Differs(s.i))
		ra, rb := c.Own(s.i)
		for k, r := range []int{ra, rb} {
			if r >= 0 {
				lanes[k].row(r)
			}
		}
	}
	diff(false)
	for _, ln := range lanes {
		ln.deactivate()
	}
	for i, ln := range lanes {
		ln.note(nil, verdictNote("AB"[i:i+1], ln.res))
	}
	return m.bw.Flush()
}

// mermaid writes one diagram.
type mermaid struct {
	bw      *bufio.Writer
	lanes   []*mermaidLane
	pending string // a line to write before the next one
}

func newMermaid(w io.Writer, command, title string, opt Options) *mermaid {
	m := &mermaid{bw: bufio.NewWriter(w)}
	if opt.Quiet {
		command += " --quiet"
	}
	if opt.Window != nil {
		command += " " + opt.Window.String()
	}
	m.p("sequenceDiagram")
	m.p("    %%%% %s", mermaidText(command+" --format mermaid"))
	m.p("    title %s", mermaidText(title))
	return m
}

func (m *mermaid) p(format string, a ...any) {
	if m.pending != "" {
		m.bw.WriteString(m.pending + "\n")
		m.pending = ""
	}
	fmt.Fprintf(m.bw, format+"\n", a...)
}

// all is every participant, for a note across the diagram.
func (m *mermaid) all() string {
	first, last := m.lanes[0].id(0), m.lanes[len(m.lanes)-1]
	if to := last.id(len(last.tl.Columns()) - 1); to != first {
		return first + "," + to
	}
	return first
}

// verdictNote is a run's closing note.
func verdictNote(name string, res *scenarios.Result) string {
	v := strings.TrimSpace("Verdict " + name)
	v += ": " + string(res.Report.Verdict)
	if broken := violated(res); len(broken) > 0 {
		v += " (violated: " + strings.Join(broken, ", ") + ")"
	}
	return v
}

// mermaidLane is one run's participants and their activations.
type mermaidLane struct {
	m      *mermaid
	res    *scenarios.Result
	tl     *layout.Timeline
	prefix string
	active []bool
}

func (m *mermaid) lane(res *scenarios.Result, tl *layout.Timeline, prefix string) *mermaidLane {
	ln := &mermaidLane{m: m, res: res, tl: tl, prefix: prefix, active: make([]bool, len(tl.Columns()))}
	m.lanes = append(m.lanes, ln)
	return ln
}

// id is column c's participant: an alias, so that no process name can clash
// with Mermaid's keywords (end, loop, opt...), and two runs' processes of the
// same name stay apart.
func (ln *mermaidLane) id(c int) string { return fmt.Sprintf("%s%d", ln.prefix, c) }

// over is the participants a note spans: from the first to the last of cs, or
// all of the lane's when cs is empty.
func (ln *mermaidLane) over(cs []int) string {
	if len(cs) == 0 {
		cs = []int{0, len(ln.tl.Columns()) - 1}
	}
	if cs[0] == cs[len(cs)-1] {
		return ln.id(cs[0])
	}
	return ln.id(cs[0]) + "," + ln.id(cs[len(cs)-1])
}

func (ln *mermaidLane) participants() {
	for c, col := range ln.tl.Columns() {
		ln.m.p("    participant %s as %s", ln.id(c), col.Name)
	}
}

// row writes row r: a belief's activation ends before the row after its end,
// and starts after the row that starts it (the arrow that brought the OK).
func (ln *mermaidLane) row(r int) {
	row := ln.tl.Row(r)
	for c, cell := range row.Cells {
		if ln.active[c] && cell.Spans&layout.SpanBelief == 0 {
			ln.active[c] = false
			ln.m.p("    deactivate %s", ln.id(c))
		}
	}
	ln.statements(row)
	for c, cell := range row.Cells {
		if !ln.active[c] && cell.Spans&layout.SpanBelief != 0 {
			ln.active[c] = true
			ln.m.p("    activate %s", ln.id(c))
		}
	}
}

// deactivate ends the activations still on at the end.
func (ln *mermaidLane) deactivate() {
	for c, on := range ln.active {
		if on {
			ln.m.p("    deactivate %s", ln.id(c))
		}
	}
}

// statements writes one timeline row's statements: a violation's note, a
// message's arrow, a fault's or a mark's note, a scenario's note.
func (ln *mermaidLane) statements(row layout.Row) {
	p, t, col := ln.m.p, ln.res.Trace, func(p sim.ProcID) string { return ln.id(ln.tl.Column(p)) }
	if row.Kind == layout.RowViolation {
		ln.note(marked(row.Cells, layout.CellViolation), layout.CellViolation.Glyph()+" "+strings.TrimPrefix(row.Text, "VIOLATION "))
		return
	}
	e := t.Event(row.Event)
	switch e.Kind {
	case sim.EvSend, sim.EvStart, sim.EvTimer:
		// A message is drawn when it arrives; a timer by what it causes.
	case sim.EvDeliver:
		p("    %s->>%s: %s", col(e.Peer), col(e.Proc), mermaidText(t.Msg(e).String()))
	case sim.EvDrop:
		p("    %s-x%s: %s", col(e.Peer), col(e.Proc), mermaidText(t.Msg(e).String()+" (lost: "+t.Note(e)+")"))
	case sim.EvCommand:
		cmd := "● " + t.Msg(e).String()
		if n := t.Note(e); n != "" {
			cmd += ": " + n // "queued: c1 is paused"
		}
		ln.note([]int{ln.tl.Column(e.Proc)}, cmd)
	case sim.EvNote:
		var where []int // `note at`: the whole run's
		if e.Proc >= 0 {
			where = []int{ln.tl.Column(e.Proc)}
		}
		ln.note(where, layout.CellNote.Glyph()+" "+scenarios.NoteText(t, e))
		return
	case sim.EvPartition, sim.EvHeal, sim.EvLink:
		ln.note(marked(row.Cells, layout.CellCut), layout.CellCut.Glyph()+" "+t.EventText(row.Event))
		return
	case sim.EvEnd:
		return
	default:
		if e.Kind.IsFault() {
			ln.note([]int{ln.tl.Column(e.Proc)}, faultGlyph(row.Cells, ln.tl.Column(e.Proc))+t.EventText(row.Event))
		}
	}
	for c, cell := range row.Cells {
		switch cell.Kind {
		case layout.CellGrant, layout.CellGrantEnd, layout.CellAccept, layout.CellReject, layout.CellVote, layout.CellDecide:
			ln.note([]int{c}, cell.Kind.Glyph()+" "+cell.Label)
		}
	}
}

// faultGlyph is the mark of the fault in column c, with a blank after it: the
// terminal UI's own (⏸ pause), not the SVG's stand-ins for fonts that lack it
// (glyph): a diagram is drawn by a browser, whose fonts fall back to one that
// has the mark.
func faultGlyph(cells []layout.Cell, c int) string {
	if c >= 0 && c < len(cells) && cells[c].Kind.Glyph() != "" {
		return cells[c].Kind.Glyph() + " "
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

// note writes a note over the columns cs of the lane (from the first to the
// last; all of them when cs is empty), its text broken into lines that fit.
func (ln *mermaidLane) note(cs []int, text string) {
	span := len(ln.tl.Columns())
	if len(cs) > 0 {
		span = cs[len(cs)-1] - cs[0] + 1
	}
	ln.m.p("    Note over %s: %s", ln.over(cs), noteText(text, span))
}

// noteText is a note's text broken into lines (<br>) that fit the note Mermaid
// draws over span participants. Over one, a note is as wide as its longest
// line: about 60 characters keep it narrow. Over several, it is as wide as
// the participants it spans, whatever its text (their centres are 200 pixels
// apart at least, plus a margin of 50; about 7.5 pixels a character), so a
// longer line runs out of its box, and past the diagram's edge at the right.
func noteText(s string, span int) string {
	width := 60
	if span > 1 {
		width = min(60, 28*(span-1)+2)
	}
	lines := sim.Wrap(s, width)
	for i, l := range lines {
		lines[i] = mermaidText(l)
	}
	return strings.Join(lines, "<br>")
}
