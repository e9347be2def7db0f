package export

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"strings"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim/check"
)

// The viewer's style and script, written by hand: no framework, nothing fetched.
var (
	//go:embed viewer/viewer.css
	viewerCSS string
	//go:embed viewer/viewer.js
	viewerJS string
)

// viewerData is what the viewer's script reads: where each row is drawn, the
// drawing in chunks of rows, the events for the detail panel, the narration and
// the violations.
type viewerData struct {
	Top      []float64      `json:"top"`      // each row's top
	Height   []float64      `json:"height"`   // and height
	Event    []int          `json:"event"`    // the trace event of each row, or -1 for a violation
	Line     []int          `json:"line"`     // the scenario line behind each row, or 0
	Fault    []int          `json:"fault"`    // rows that are faults
	Chunks   []string       `json:"chunks"`   // the drawing of rows [k*chunkRows, (k+1)*chunkRows)
	ChunkTop []float64      `json:"chunkTop"` // each chunk's top, and the end
	Events   [][]any        `json:"events"`   // per event: true time, its clock (wall, mono; null for none), its text, then what its step reported
	Narr     []narration    `json:"narr"`     // where each narrated step starts
	Viol     []violationRow `json:"viol"`     // the violation rows, in order
	Names    []string       `json:"names"`    // the invariants, in report order
}

type narration struct {
	Row  int    `json:"row"`
	Text string `json:"text"`
}

type violationRow struct {
	Row       int     `json:"row"`
	Invariant string  `json:"invariant"`
	Detail    string  `json:"detail"`
	AtMs      float64 `json:"at_ms"`
}

// WriteHTML writes one self-contained HTML file that steps through the run: the
// SVG timeline (every row; only the rows in view are drawn, so long runs open at
// once), a cursor moved by keys and buttons as in the terminal UI, the narration
// and the detail of the selected event beside it, the invariants with their
// violations (a click jumps to one), a legend and the scenario's source. It loads
// nothing: inline CSS, inline JavaScript, generic fonts.
func WriteHTML(w io.Writer, res *scenarios.Result, opt Options) error {
	opt.Full = true
	d := newDrawing(res, opt)
	tl, t := d.tl, res.Trace
	data := viewerData{Narr: []narration{}, Viol: []violationRow{}, Fault: tl.FaultRows()}
	// The detail panel reads the events as --events writes them, in short: the
	// message and the violations are in the text and the rows already.
	scenarios.EachEvent(t, &res.Report, func(je *scenarios.JSONEvent) error {
		e := []any{je.AtMs, nil, nil, je.Text}
		if je.Clock != nil {
			e[1], e[2] = je.Clock.WallMs, je.Clock.MonoMs
		}
		for _, o := range je.Observations {
			e = append(e, o.Text)
		}
		data.Events = append(data.Events, e)
		return nil
	})
	lastNarr := -1
	for i, it := range d.items {
		data.Top = append(data.Top, round1(it.top))
		data.Height = append(data.Height, round1(it.h))
		ev := tl.RowEvent(it.row)
		data.Event = append(data.Event, ev)
		line := 0
		if ev >= 0 {
			if a := t.Event(ev).Action; a >= 0 && int(a) < len(t.Actions) {
				line = t.Actions[a].Line
			}
		} else {
			row := tl.Row(it.row)
			data.Viol = append(data.Viol, violationRow{Row: i, Invariant: row.Invariant, AtMs: row.At.Ms(),
				Detail: strings.TrimPrefix(row.Text, "VIOLATION "+row.Invariant+": ")})
		}
		data.Line = append(data.Line, line)
		if text, at := tl.Narration(it.row); at == it.row && at != lastNarr {
			data.Narr = append(data.Narr, narration{Row: i, Text: text})
			lastNarr = at
		}
	}
	var chunk strings.Builder
	ci := d.index(false)
	for k := range d.chunks() {
		chunk.Reset()
		d.writeChunk(&chunk, k, ci, false)
		data.Chunks = append(data.Chunks, chunk.String())
		data.ChunkTop = append(data.ChunkTop, round1(d.items[k*chunkRows].top))
	}
	data.ChunkTop = append(data.ChunkTop, round1(d.height))
	for _, r := range res.Report.Results {
		data.Names = append(data.Names, r.Name)
	}
	js, err := scriptJSON(data)
	if err != nil {
		return err
	}

	bw := bufio.NewWriter(w)
	p := func(s ...string) {
		for _, x := range s {
			bw.WriteString(x)
		}
	}
	e := html.EscapeString
	s := res.Scenario
	verdict := string(res.Report.Verdict)
	p("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
		"<link rel=\"icon\" href=\"data:,\">\n",
		"<title>", e(fmt.Sprintf("%s · %s · locksim", s.ID, verdict)), "</title>\n<style>\n", viewerCSS, "</style>\n</head>\n<body>\n")
	p("<header>\n<h1>", e(s.ID), " <span class=\"verdict v-", e(verdict), "\">", e(verdict), "</span>",
		" <span class=\"so-far\" id=\"so-far\"></span></h1>\n")
	p("<p class=\"summary\">", e(s.Summary), "</p>\n<p class=\"meta\">seed ", fmt.Sprint(res.Seed), " · ", fmt.Sprint(t.Len()), " events · ended at ",
		e(t.End.String()), " (", e(t.EndReason.String()), ") · reproduce: <code>", e(res.ReproduceCommand()), "</code></p>\n</header>\n")
	p("<main>\n<section class=\"timeline\">\n<nav id=\"controls\" aria-label=\"step control\">",
		button("first", "⇤", "first row (g, Home)"), button("prev", "◀", "previous row (↑, k)"),
		button("play", "▶ play", "play or pause (space)"), button("next", "▶", "next row (↓, j)"), button("last", "⇥", "last row (G, End)"),
		button("prevViol", "◆ prev", "previous violation (N)"), button("nextViol", "◆ next", "next violation (n)"),
		button("prevFault", "✗ prev", "previous fault (F)"), button("nextFault", "✗ next", "next fault (f)"),
		button("prevStep", "¶ prev", "previous narrated step (S)"), button("nextStep", "¶ next", "next narrated step (s)"),
		`<label>speed <select id="speed"><option value="1">1 row/s</option><option value="4" selected>4 rows/s</option><option value="16">16 rows/s</option><option value="64">64 rows/s</option></select></label>`,
		"<span id=\"where\"></span></nav>\n")
	var cols strings.Builder
	d.writeColumns(&cols, 0)
	p(fmt.Sprintf("<div id=\"cols\"><svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%d\" font-family=\"monospace\">", num(d.width), columnsHeight),
		defs(), cols.String(), "</svg></div>\n")
	var life strings.Builder
	d.writeLifelines(&life)
	p(fmt.Sprintf("<div id=\"scroll\" tabindex=\"0\"><svg id=\"body\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" font-family=\"monospace\">", num(d.width), num(d.height)),
		defs(), life.String(), `<g id="chunks"></g><rect id="cursor" x="0" y="0" width="`, num(d.width), `" height="0"/></svg></div>`, "\n</section>\n")
	p("<aside>\n<section><h2>Narration</h2><div id=\"narration\" class=\"narration\"></div></section>\n",
		"<section><h2>Selected row</h2><pre id=\"detail\" class=\"detail\"></pre></section>\n",
		"<section><h2>Invariants</h2>", d.invariantsHTML(), "</section>\n",
		"<section><h2>Legend</h2>", d.legendHTML(), "</section>\n",
		"<section><h2>Scenario <span class=\"file\">", e(s.File), "</span></h2><pre id=\"source\" class=\"source\">", sourceHTML(s.Source), "</pre></section>\n",
		"</aside>\n</main>\n")
	p("<script type=\"application/json\" id=\"data\">", js, "</script>\n<script>\n", viewerJS, "</script>\n</body>\n</html>\n")
	return bw.Flush()
}

func button(id, label, title string) string {
	return fmt.Sprintf(`<button type="button" id="%s" title="%s">%s</button>`, id, html.EscapeString(title), html.EscapeString(label))
}

// invariantsHTML lists every invariant with its status, and each violation as
// a link to its row.
func (d *drawing) invariantsHTML() string {
	var b strings.Builder
	b.WriteString(`<ul class="invariants">`)
	rows := map[string][]int{} // each invariant's violation rows, in order
	for _, r := range d.tl.ViolationRows() {
		inv := d.tl.Row(r).Invariant
		rows[inv] = append(rows[inv], r)
	}
	for _, r := range d.res.Report.Results {
		status := r.Status()
		fmt.Fprintf(&b, `<li class="st-%s"><span class="status">%s</span> <b>%s</b> <span class="kind">%s</span>`,
			strings.ReplaceAll(status, "/", ""), html.EscapeString(status), html.EscapeString(r.Name), r.Kind)
		if r.Note != "" {
			fmt.Fprintf(&b, `<div class="note">%s</div>`, html.EscapeString(r.Note))
		}
		if len(r.Violations) > 0 {
			b.WriteString(`<ol>`)
			for _, v := range r.Violations {
				fmt.Fprintf(&b, `<li><a href="#" class="jump" data-row="%d">at %s</a> %s</li>`, d.violationRow(rows[r.Name], v),
					v.At, html.EscapeString(v.Detail))
			}
			b.WriteString(`</ol>`)
		}
		b.WriteString(`</li>`)
	}
	b.WriteString(`</ul>`)
	return b.String()
}

// violationRow is the row, among an invariant's violation rows, that shows v.
func (d *drawing) violationRow(rows []int, v check.Violation) int {
	for _, r := range rows {
		if row := d.tl.Row(r); row.At == v.At && strings.HasSuffix(row.Text, v.Detail) {
			return r
		}
	}
	return -1
}

// legendHTML is the drawing's legend as a list.
func (d *drawing) legendHTML() string {
	var b strings.Builder
	b.WriteString(`<ul class="legend">`)
	for _, e := range d.legend() {
		sample := fmt.Sprintf(`<span class="glyph" style="color:%s">%s</span>`, e.colour, html.EscapeString(e.glyph))
		switch e.kind {
		case "arrow":
			sample = `<span class="glyph arrow">⟶</span>`
		case "lost":
			sample = `<span class="glyph lost">⇢</span>`
		case "bar":
			sample = fmt.Sprintf(`<span class="glyph"><span class="barsample" style="background:%s"></span></span>`, e.colour)
		}
		fmt.Fprintf(&b, `<li>%s %s</li>`, sample, html.EscapeString(e.meaning))
	}
	b.WriteString(`</ul>`)
	return b.String()
}

// sourceHTML is the scenario's text with one element per line, so that the
// viewer can mark the line behind the selected row.
func sourceHTML(src string) string {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimRight(src, "\n"), "\n") {
		fmt.Fprintf(&b, `<span id="L%d"><i>%3d</i> %s</span>`, i+1, i+1, html.EscapeString(l))
	}
	return b.String()
}

// scriptJSON encodes v to sit inside a <script> element: nothing in it can end
// the element or open a comment.
func scriptJSON(v any) (string, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // the drawing's markup stays small; only "</" and "<!" need care
	if err := enc.Encode(v); err != nil {
		return "", err
	}
	s := strings.ReplaceAll(buf.String(), "</", `<\/`)
	return strings.ReplaceAll(s, "<!", `\u003c!`), nil
}

func round1(f float64) float64 { return float64(int64(f*10+0.5)) / 10 }
