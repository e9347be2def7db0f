package export

import (
	"bufio"
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"slices"
	"strings"

	"github.com/locksim/locksim/scenarios"
)

// The viewer's style and script, written by hand: no framework, nothing fetched.
var (
	//go:embed viewer/viewer.css
	viewerCSS string
	//go:embed viewer/viewer.js
	viewerJS string
)

// viewerData is what the viewer's script reads: each run's events and
// invariants, and one or two views of the drawing (every row; the quiet view,
// when quiet folds anything), each with where its lines are drawn, the drawing
// in chunks of lines, and each run's rows, narration and violations.
type viewerData struct {
	Runs  []viewerRun  `json:"runs"`
	Views []viewerView `json:"views"`
	Start int          `json:"start"` // the view shown first
	Walk  bool         `json:"walk"`  // open in the walk (Options.Walk)
	Width float64      `json:"width"` // the drawing's
	HeadH float64      `json:"headH"` // the column headers'
}

type viewerRun struct {
	Events  [][]any  `json:"events"`  // per event: true time, its clock (wall, mono; null for none), its text, then what its step reported
	Names   []string `json:"names"`   // the invariants, in report order
	Summary string   `json:"summary"` // shown before the story starts
}

type viewerView struct {
	Name     string       `json:"name"`     // "all" or "quiet"
	Top      []float64    `json:"top"`      // each line's top
	Height   []float64    `json:"height"`   // and height
	Total    float64      `json:"total"`    // the drawing's height
	Life     string       `json:"life"`     // the lifelines
	Chunks   []string     `json:"chunks"`   // the drawing of lines [k*chunkRows, (k+1)*chunkRows)
	ChunkTop []float64    `json:"chunkTop"` // each chunk's top, and the end
	Lanes    []viewerLane `json:"lanes"`    // per run
	Viol     []int        `json:"viol"`     // the lines with a violation
	Fault    []int        `json:"fault"`    // with a fault
	Stops    []int        `json:"stops"`    // the stops of the story: narrated steps, notes, faults, violations
	Diff     []int        `json:"diff"`     // a comparison: the first line of each run of differences
}

// viewerLane is one run's rows in a view.
type viewerLane struct {
	At    []int          `json:"at,omitempty"` // a comparison: the run's row at or before each line (-1: none yet); alone, a line is a row
	Event []int          `json:"event"`        // each row's trace event, or -1 for a violation
	Src   []int          `json:"src"`          // the scenario line behind each row, or 0
	Viol  []violationRow `json:"viol"`         // the violation rows, in order
	Narr  []narration    `json:"narr"`         // where the narration in force changes (text "": none)
	First int            `json:"first"`        // the first stop's row (-1: none): before it the summary is shown
	Beats []viewerBeat   `json:"beats"`        // the walk's beats (one run only; a comparison has no walk)
}

// viewerBeat is one beat of the walk (layout.Beats), as the viewer walks it:
// the question at the stop first, then the rows down to the end and the
// narration; text is what the stop is, said when nothing narrates it.
type viewerBeat struct {
	Stop      int    `json:"stop"`
	End       int    `json:"end"`
	Question  string `json:"q,omitempty"`
	Narration string `json:"narr,omitempty"`
	Text      string `json:"text"`
}

type narration struct {
	Row  int    `json:"row"`
	Text string `json:"text"`
}

type violationRow struct {
	Row       int     `json:"row"`
	Line      int     `json:"line"`
	Key       int64   `json:"key"` // its place across views (layout's Key)
	Invariant string  `json:"invariant"`
	Detail    string  `json:"detail"`
	AtMs      float64 `json:"at_ms"`
}

// WriteHTML writes one self-contained HTML file that steps through the run: the
// SVG timeline (every row; only the rows in view are drawn, so long runs open at
// once), a cursor moved by keys and buttons as in the terminal UI, the narration
// and the detail of the selected event beside it, the invariants with their
// violations (a click jumps to one), a legend and the scenario's source. When
// the run has background traffic, b switches to the quiet view (Options.Quiet
// starts there). It loads nothing: inline CSS, inline JavaScript, generic fonts.
func WriteHTML(w io.Writer, res *scenarios.Result, opt Options) error {
	opt.Full = true
	all := drawRun(res, timeline(res, false, opt.Window), opt)
	var quiet *drawing
	if q := timeline(res, true, opt.Window); q.Len() < all.lanes[0].tl.Len() {
		quiet = drawRun(res, q, opt)
	}
	return writeHTML(w, opt, all, quiet)
}

// WriteCompareHTML writes the viewer of two runs side by side on one true-time
// axis, lined up as `locksim run A --vs B` lines them up (layout.Compare): one
// cursor on both, each run's row at or before it in its own detail and
// narration, both verdicts and badges in the header, the lines only one run has
// tinted and marked ≠, d and D to jump between differences.
func WriteCompareHTML(w io.Writer, a, b *scenarios.Result, opt Options) error {
	opt.Full = true
	all := drawCompare(a, b, compare(a, b, false, opt.Window), opt)
	var quiet *drawing
	if c := compare(a, b, true, opt.Window); c.A.Len() < all.cmp.A.Len() || c.B.Len() < all.cmp.B.Len() {
		quiet = drawCompare(a, b, c, opt)
	}
	return writeHTML(w, opt, all, quiet)
}

func writeHTML(w io.Writer, opt Options, all, quiet *drawing) error {
	data := viewerData{Width: all.width, HeadH: all.headHeight(), Walk: opt.Walk && all.cmp == nil}
	for _, ln := range all.lanes {
		data.Runs = append(data.Runs, runData(ln.res))
	}
	views := []*drawing{all}
	if quiet != nil {
		views = append(views, quiet)
		if opt.Quiet {
			data.Start = 1
		}
	}
	for i, d := range views {
		d.narrated = true
		data.Views = append(data.Views, viewData(d, []string{"all", "quiet"}[i]))
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
	compared := all.cmp != nil
	class := ""
	if compared {
		class = ` class="compare"`
	}
	p("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n",
		"<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n",
		"<link rel=\"icon\" href=\"data:,\">\n",
		"<title>", e(all.name()+" · locksim"), "</title>\n<style>\n", viewerCSS, "</style>\n</head>\n<body", class, ">\n<header>\n")
	for k, ln := range all.lanes {
		r := ln.res
		tag := ""
		if compared {
			tag = `<span class="lane-tag">` + ln.name + `</span> `
		}
		verdict := e(string(r.Report.Verdict))
		p("<h1>", tag, e(r.Scenario.ID), " <span class=\"verdict v-", verdict, "\">", verdict, "</span><span class=\"verdict-later\">verdict at the end</span>",
			fmt.Sprintf(` <span class="so-far" id="so-far-%d"></span></h1>`, k), "\n")
	}
	if !compared {
		r := all.lanes[0].res
		t := r.Trace
		p("<p class=\"summary spoils\">", e(r.Scenario.Summary), "</p>\n<p class=\"meta\">seed ", fmt.Sprint(r.Seed), " · ", fmt.Sprint(t.Len()), " events · ended at ",
			e(t.End.String()), " (", e(t.EndReason.String()), ") · reproduce: <code>", e(r.ReproduceCommand()), "</code></p>\n</header>\n")
	} else {
		a, b := all.lanes[0].res, all.lanes[1].res
		p(fmt.Sprintf("<p class=\"meta\">A: seed %d, %d events · B: seed %d, %d events · <span class=\"diffs\">", a.Seed, a.Trace.Len(), b.Seed, b.Trace.Len()),
			e(differences(all.cmp)), "</span> · reproduce: <code>", e(scenarios.CompareCommand(a, b)), "</code></p>\n</header>\n")
	}
	p("<main>\n<section class=\"timeline\">\n<nav id=\"controls\" aria-label=\"step control\">",
		button("first", "⇤", "first row (g, Home)"), button("prev", "◀", "previous row (↑, k)"),
		button("play", "▶ play", "play or pause (space)"), button("next", "▶", "next row (↓, j)"), button("last", "⇥", "last row (G, End)"),
		button("prevViol", "◆ prev", "previous violation (N)"), button("nextViol", "◆ next", "next violation (n)"),
		button("prevFault", "✗ prev", "previous fault (F)"), button("nextFault", "✗ next", "next fault (f)"),
		button("prevStep", "¶ prev", "previous stop of the story (S)"), button("nextStep", "¶ next", "next stop of the story: a narrated step, a note, a fault, a violation (s)"))
	if !compared {
		p(button("walk", "⚑ walk", "walk the story: one stop at a time, the question first, then the rows and the narration; no spoiler (w)"))
	}
	p(button("reveal", "▾ reveal", "reveal: hide the rows below the cursor (r)"))
	if compared {
		p(button("prevDiff", "≠ prev", "previous difference (D)"), button("nextDiff", "≠ next", "next difference: a line only one run has (d)"))
	}
	quietTitle := "quiet: fold background traffic (heartbeats, pings, keepalives) into a faint tick (b)"
	if quiet == nil {
		quietTitle = "quiet: this run has no background traffic to fold"
	}
	p(button("quiet", "∙ quiet", quietTitle),
		`<label>speed <select id="speed"><option value="1">1 row/s</option><option value="4" selected>4 rows/s</option><option value="16">16 rows/s</option><option value="64">64 rows/s</option></select></label>`,
		button("help", "?", "help: every key (?)"), "<span id=\"where\"></span></nav>\n")
	var cols strings.Builder
	all.writeColumns(&cols, 0)
	p(fmt.Sprintf("<div id=\"cols\"><svg id=\"colsvg\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" font-family=\"monospace\">", num(all.width), num(all.headHeight())),
		defs(), cols.String(), "</svg></div>\n")
	p(fmt.Sprintf("<div id=\"scroll\" tabindex=\"0\"><svg id=\"body\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%s\" height=\"%s\" font-family=\"monospace\">", num(all.width), num(all.height)),
		defs(), `<clipPath id="revealed"><rect id="veil" x="0" y="0" width="`, num(all.width), `" height="`, num(all.height), `"/></clipPath>`,
		`<g id="life"></g><g id="chunks" clip-path="url(#revealed)"></g><rect id="cursor" x="0" y="0" width="`, num(all.width), `" height="0"/></svg></div>`,
		"\n", helpHTML(compared), "</section>\n<aside>\n")
	for k, ln := range all.lanes {
		head := ""
		if compared {
			head = ln.name + " · "
		}
		p("<section class=\"lanepanel\">",
			fmt.Sprintf(`<h2>%sNarration</h2><div id="narration-%d" class="narration"></div>`, head, k),
			fmt.Sprintf(`<h2>%sSelected row</h2><pre id="detail-%d" class="detail"></pre>`, head, k),
			"<div class=\"spoils\"><h2>", head, "Invariants</h2>", invariantsHTML(k, ln, data.Views[0].Lanes[k].Viol), "</div></section>\n")
	}
	// The legend lists only the marks the run draws: a violation's, a second
	// holder's colour. In a walk it waits for the end with the verdict.
	p("<section class=\"legendpanel spoils\"><h2>Legend</h2>", legendHTML(views...), "</section>\n")
	for k, ln := range all.lanes {
		head := ""
		if compared {
			head = ln.name + " · "
		}
		s := ln.res.Scenario
		p(fmt.Sprintf(`<section class="sourcepanel spoils"><h2>%sScenario <span class="file">%s</span></h2><pre id="source-%d" class="source">`, head, e(scenarios.Shown(s.File)), k),
			sourceHTML(k, s.Source), "</pre></section>\n")
	}
	p("</aside>\n</main>\n")
	p("<script type=\"application/json\" id=\"data\">", js, "</script>\n<script>\n", viewerJS, "</script>\n</body>\n</html>\n")
	return bw.Flush()
}

// runData is what the viewer keeps of a run whatever the view: the detail
// panel reads the events as --events writes them, in short (the message and
// the violations are in the text and the rows already).
func runData(res *scenarios.Result) viewerRun {
	r := viewerRun{Summary: res.Scenario.Summary}
	scenarios.EachEvent(res.Trace, &res.Report, func(je *scenarios.JSONEvent) error {
		e := []any{je.AtMs, nil, nil, je.Text}
		if je.Clock != nil {
			e[1], e[2] = je.Clock.WallMs, je.Clock.MonoMs
		}
		if je.Kind == "note" && je.Note != "" {
			e = append(e, je.Note) // a note's text is its narration
		}
		for _, o := range je.Observations {
			e = append(e, o.Text)
		}
		r.Events = append(r.Events, e)
		return nil
	})
	for _, inv := range res.Report.Results {
		r.Names = append(r.Names, inv.Name)
	}
	return r
}

// viewData is one view of the drawing, as the viewer reads it.
func viewData(d *drawing, name string) viewerView {
	v := viewerView{Name: name, Total: round1(d.height), Viol: []int{}, Fault: []int{}, Stops: []int{}, Diff: []int{}}
	for _, l := range d.lines {
		v.Top = append(v.Top, round1(l.top))
		v.Height = append(v.Height, round1(l.h))
	}
	var b strings.Builder
	ci := d.index(false)
	for k := range d.chunks() {
		b.Reset()
		d.writeChunk(&b, k, ci, false)
		v.Chunks = append(v.Chunks, b.String())
		v.ChunkTop = append(v.ChunkTop, round1(d.lines[k*chunkRows].top))
	}
	v.ChunkTop = append(v.ChunkTop, round1(d.height))
	b.Reset()
	d.writeLifelines(&b)
	v.Life = b.String()
	lineOf := func(k, r int) int {
		if d.cmp == nil {
			return r
		}
		return d.cmp.LineOf(k == 1, r)
	}
	for k, ln := range d.lanes {
		tl, t := ln.tl, ln.res.Trace
		vl := viewerLane{Viol: []violationRow{}, Narr: []narration{}, First: -1}
		if d.cmp != nil {
			for i := range d.lines {
				a, b := d.cmp.At(i)
				vl.At = append(vl.At, []int{a, b}[k])
			}
		}
		narrated := -1
		for r := range tl.Len() {
			ev := tl.RowEvent(r)
			src := 0
			if ev >= 0 {
				if a := t.Event(ev).Action; a >= 0 && int(a) < len(t.Actions) {
					src = t.Actions[a].Line
				}
			}
			vl.Event, vl.Src = append(vl.Event, ev), append(vl.Src, src)
			if text, at := tl.Narration(r); at != narrated {
				vl.Narr = append(vl.Narr, narration{Row: r, Text: text})
				narrated = at
			}
		}
		for _, r := range tl.ViolationRows() {
			row := tl.Row(r)
			vl.Viol = append(vl.Viol, violationRow{Row: r, Line: lineOf(k, r), Key: tl.Key(r), Invariant: row.Invariant, AtMs: row.At.Ms(),
				Detail: strings.TrimPrefix(row.Text, "VIOLATION "+row.Invariant+": ")})
			v.Viol = append(v.Viol, lineOf(k, r))
		}
		for _, r := range tl.FaultRows() {
			v.Fault = append(v.Fault, lineOf(k, r))
		}
		for _, r := range tl.Stops() {
			v.Stops = append(v.Stops, lineOf(k, r))
		}
		if stops := tl.Stops(); len(stops) > 0 {
			vl.First = stops[0]
		}
		if d.cmp == nil {
			vl.Beats = []viewerBeat{}
			for _, b := range tl.Beats() {
				vl.Beats = append(vl.Beats, viewerBeat{Stop: b.Stop, End: b.End, Question: b.Question, Narration: b.Narration, Text: tl.Row(b.Stop).Text})
			}
		}
		v.Lanes = append(v.Lanes, vl)
	}
	for _, s := range []*[]int{&v.Viol, &v.Fault, &v.Stops} {
		slices.Sort(*s)
		*s = slices.Compact(*s)
	}
	if d.cmp != nil {
		v.Diff = d.cmp.Differences()
	}
	return v
}

// helpHTML is the help the ? key opens: every key, as the terminal UI's ?
// screen lists them.
func helpHTML(compared bool) string {
	keys := [][2]string{
		{"↓ j / ↑ k", "step forward / back one row"}, {"PageDown / PageUp", "a page down / up"}, {"g Home / G End", "first / last row"},
		{"space", "play / pause; in the walk: the next stop, or the answer to the question asked"},
		{"s / S", "next / previous stop of the story"}, {"n / N", "next / previous violation"}, {"f / F", "next / previous fault"},
	}
	if compared {
		keys = append(keys, [2]string{"d / D", "next / previous difference"})
	} else {
		keys = append(keys, [2]string{"w", "walk the story on or off (reveal with it): the question first, then the rows and the narration, the verdict at the end"})
	}
	keys = append(keys, [2]string{"r", "reveal: hide the rows below the cursor"}, [2]string{"b", "quiet: fold background traffic"},
		[2]string{"?", "this help (esc closes it)"})
	var b strings.Builder
	b.WriteString(`<div id="helpbox" class="helpbox" hidden><h2>Keys</h2><table>`)
	for _, k := range keys {
		fmt.Fprintf(&b, `<tr><th>%s</th><td>%s</td></tr>`, html.EscapeString(k[0]), html.EscapeString(k[1]))
	}
	b.WriteString(`</table><p>A click on the drawing selects a row; a click on a violation jumps to it.</p></div>`)
	return b.String()
}

func button(id, label, title string) string {
	return fmt.Sprintf(`<button type="button" id="%s" title="%s">%s</button>`, id, html.EscapeString(title), html.EscapeString(label))
}

// invariantsHTML lists every invariant of lane k's run with its status, and
// each violation as a link to its row (an index into the lane's violation rows,
// the same in every view: violations are never folded).
func invariantsHTML(k int, ln *lane, rows []violationRow) string {
	var b strings.Builder
	b.WriteString(`<ul class="invariants">`)
	for _, r := range ln.res.Report.Results {
		status := r.Status()
		fmt.Fprintf(&b, `<li class="st-%s"><span class="status">%s</span> <b>%s</b> <span class="kind">%s</span>`,
			strings.ReplaceAll(status, "/", ""), html.EscapeString(status), html.EscapeString(r.Name), r.Kind)
		if r.Note != "" {
			fmt.Fprintf(&b, `<div class="note">%s</div>`, html.EscapeString(r.Note))
		}
		if len(r.Violations) > 0 {
			b.WriteString(`<ol>`)
			for _, v := range r.Violations {
				i := slices.IndexFunc(rows, func(row violationRow) bool {
					return row.Invariant == r.Name && row.AtMs == v.At.Ms() && row.Detail == v.Detail
				})
				fmt.Fprintf(&b, `<li><a href="#" class="jump" data-lane="%d" data-viol="%d">at %s</a> %s</li>`, k, i, v.At, html.EscapeString(v.Detail))
			}
			b.WriteString(`</ol>`)
		}
		b.WriteString(`</li>`)
	}
	b.WriteString(`</ul>`)
	return b.String()
}

// legendHTML is the drawings' legend as a list.
func legendHTML(ds ...*drawing) string {
	var b strings.Builder
	b.WriteString(`<ul class="legend">`)
	for _, e := range legend(ds...) {
		sample := fmt.Sprintf(`<span class="glyph" style="color:%s">%s</span>`, e.colours[0], html.EscapeString(e.glyph))
		switch e.kind {
		case "arrow":
			sample = `<span class="glyph arrow">⟶</span>`
		case "lost":
			sample = `<span class="glyph lost">⇢✗</span>`
		case "band":
			sample = fmt.Sprintf(`<span class="glyph" style="color:%s;background:%s">%s</span>`, e.colours[0], colourDiffBand, html.EscapeString(e.glyph))
		case "promise":
			sample = fmt.Sprintf(`<span class="glyph"><span class="barsample" style="background:%s;border:1.5px solid %s"></span></span>`, colourPromiseFill, e.colours[0])
		case "bar":
			var bars strings.Builder
			for _, c := range e.colours {
				fmt.Fprintf(&bars, `<span class="barsample" style="background:%s"></span>`, c)
			}
			sample = `<span class="glyph">` + bars.String() + `</span>`
		}
		fmt.Fprintf(&b, `<li>%s %s</li>`, sample, html.EscapeString(e.meaning))
	}
	b.WriteString(`</ul>`)
	return b.String()
}

// sourceHTML is scenario k's text with one element per line, so that the
// viewer can mark the line behind the selected row.
func sourceHTML(k int, src string) string {
	var b strings.Builder
	for i, l := range strings.Split(strings.TrimRight(src, "\n"), "\n") {
		fmt.Fprintf(&b, `<span id="s%dL%d"><i>%3d</i> %s</span>`, k, i+1, i+1, html.EscapeString(l))
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
