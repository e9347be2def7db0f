package export

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/tui/layout"
)

// WriteSVG writes the run's timeline as one standalone SVG image: the title and
// verdict, one column per process with true time downwards, the messages as
// arrows, belief bars, grants, faults, violations and the scenario's notes, and
// a legend. It uses generic font families and references nothing outside itself.
func WriteSVG(w io.Writer, res *scenarios.Result, opt Options) error {
	return writeSVG(w, newDrawing(res, opt))
}

// WriteCompareSVG writes two runs side by side on one true-time axis, lined up
// as `locksim run A --vs B` lines them up (layout.Compare): a line that only one
// run has is tinted on that run's side and marked ≠ between the two; both
// verdicts are in the title and the footer.
func WriteCompareSVG(w io.Writer, a, b *scenarios.Result, opt Options) error {
	return writeSVG(w, newCompareDrawing(a, b, opt))
}

func writeSVG(w io.Writer, d *drawing) error {
	bw := bufio.NewWriter(w)
	var b strings.Builder
	title := d.titleLines()
	y := 34.0
	for _, l := range title[1:] {
		y += float64(l.size) + 7
	}
	top := y + 18 + d.headHeight()
	leg, legendH := d.placeLegend(legend(d))
	height := top + d.height + 56 + legendH
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="monospace">`,
		num(d.width), num(height), num(d.width), num(height))
	b.WriteString("\n<title>" + esc(d.name()) + "</title>\n" + defs() + "\n")
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#ffffff"/>`+"\n")
	ly := 34.0
	for i, l := range title {
		if i > 0 {
			ly += float64(l.size) + 7
		}
		weight := ""
		if l.bold {
			weight = ` font-weight="bold"`
		}
		fmt.Fprintf(&b, `<text x="%d" y="%s" font-size="%d" fill="%s"%s>%s</text>`+"\n", margin, num(ly), l.size, l.colour, weight, esc(l.text))
	}
	d.writeColumns(&b, y+8)
	fmt.Fprintf(&b, "\n"+`<g transform="translate(0 %s)">`+"\n", num(top))
	d.writeLifelines(&b)
	bw.WriteString(b.String())
	ci := d.index(true)
	for k := range d.chunks() {
		b.Reset()
		b.WriteString("\n<g>")
		d.writeChunk(&b, k, ci, true)
		b.WriteString("</g>")
		bw.WriteString(b.String())
	}
	b.Reset()
	b.WriteString("\n</g>\n")
	d.writeFooter(&b, top+d.height+10, leg)
	b.WriteString("</svg>\n")
	bw.WriteString(b.String())
	return bw.Flush()
}

// name is the drawing's title: the run and its verdict, or both.
func (d *drawing) name() string {
	var ids, verdicts []string
	for _, ln := range d.lanes {
		ids = append(ids, ln.res.Scenario.ID)
		verdicts = append(verdicts, string(ln.res.Report.Verdict))
	}
	return strings.Join(ids, " vs ") + ": " + strings.Join(verdicts, " / ")
}

// titleLine is one line of the image's heading.
type titleLine struct {
	text, colour string
	size         int
	bold         bool
}

// titleLines are the image's heading: the run and its verdict, the lesson's
// first line, and what was violated; for a comparison, each run with its
// verdict, and where they differ.
func (d *drawing) titleLines() []titleLine {
	chars := int((d.width - 2*margin) / charW)
	var out []titleLine
	add := func(text, colour string, size int, bold bool) {
		lines := []string{text}
		if n := chars * fontSize / size; len([]rune(text)) > n {
			lines = wrap(text, n)
		}
		for _, l := range lines {
			out = append(out, titleLine{l, colour, size, bold})
		}
	}
	if d.cmp == nil {
		r := d.lanes[0].res
		add(fmt.Sprintf("%s  ·  seed %d  ·  %s", r.Scenario.ID, r.Seed, r.Report.Verdict), verdictColour(string(r.Report.Verdict)), 22, true)
		if r.Scenario.Summary != "" {
			add(r.Scenario.Summary, "#303030", fontSize, false)
		}
		if v := violated(r); len(v) > 0 {
			add("violated: "+strings.Join(v, ", "), "#303030", fontSize, false)
		}
		if d.window != nil {
			add(d.window.says(), colourTime, fontSize, false)
		}
		return out
	}
	for _, ln := range d.lanes {
		r := ln.res
		text := fmt.Sprintf("%s  %s  ·  seed %d  ·  %s", ln.name, r.Scenario.ID, r.Seed, r.Report.Verdict)
		if v := violated(r); len(v) > 0 {
			text += "  (violated: " + strings.Join(v, ", ") + ")"
		}
		add(text, verdictColour(string(r.Report.Verdict)), 20, true)
	}
	add(differences(d.cmp), colourDiffers, fontSize, false)
	if d.window != nil {
		add(d.window.says(), colourTime, fontSize, false)
	}
	return out
}

// differences says how many runs of lines only one run has, and where the
// first is.
func differences(c *layout.Comparison) string {
	diffs := c.Differences()
	if len(diffs) == 0 {
		return "The runs do not differ."
	}
	return fmt.Sprintf("≠ %d differences (lines only one run has, tinted on its side), the first at %s", len(diffs), c.Time(diffs[0]))
}

// violated lists the invariants the run broke, in the checker's order.
func violated(r *scenarios.Result) []string {
	var out []string
	for _, res := range r.Report.Results {
		if len(res.Violations) > 0 {
			out = append(out, res.Name)
		}
	}
	return out
}

func verdictColour(v string) string {
	switch v {
	case "UNSAFE":
		return colourViolation
	case "STUCK":
		return "#af8700"
	}
	return "#006400"
}

// legendEntry is a sample and its meaning.
type legendEntry struct {
	glyph   string
	colours []string
	meaning string
	kind    string // "mark", "bar", "promise", "arrow", "lost", "band"
}

// legend lists what the drawings draw: every mark, span and arrow they use,
// in the words of the layout's own table (layout.Legend, which the terminal
// UI's legend is generated from too), so that the two legends cannot drift.
func legend(ds ...*drawing) []legendEntry {
	used := map[layout.CellKind]bool{}
	var clients []string // the belief bars' colours, in the order first seen
	paused, down, promised, folded, narrated, compared := false, false, false, false, false, false
	for _, d := range ds {
		for k := range d.used {
			used[k] = true
		}
		folded, narrated, compared = folded || d.folded, narrated || d.narrated, compared || d.cmp != nil
		for _, ln := range d.lanes {
			for c, bars := range ln.bars {
				for _, br := range bars {
					switch br.span {
					case layout.SpanBelief:
						if col := barColour(ln.tl, c); !slices.Contains(clients, col) {
							clients = append(clients, col)
						}
					case layout.SpanPromise:
						promised = true
					case layout.SpanPaused:
						paused = true
					case layout.SpanDown:
						down = true
					}
				}
			}
		}
	}
	out := []legendEntry{{"", []string{colourMessage}, "a message, drawn from its send to its delivery", "arrow"}}
	if used[layout.CellDrop] {
		out = append(out, legendEntry{glyph(layout.CellDrop), []string{colourViolation}, layout.CellDrop.Meaning(), "lost"})
	}
	for _, e := range layout.Legend() {
		k := e.Cell.Kind
		switch {
		case k == layout.CellDrop:
		case k != layout.CellEmpty:
			if used[k] {
				out = append(out, legendEntry{glyph(k), []string{kindColour(k)}, k.Meaning(), "mark"})
			}
		case e.Cell.Spans == layout.SpanBelief && len(clients) > 0:
			out = append(out, legendEntry{"", clients, e.Meaning, "bar"})
		case e.Cell.Spans == layout.SpanPromise && promised:
			out = append(out, legendEntry{"", []string{colourPromise}, e.Meaning, "promise"})
		case e.Cell.Spans == layout.SpanPaused && paused:
			out = append(out, legendEntry{"", []string{colourPaused}, e.Meaning, "bar"})
		case e.Cell.Spans == layout.SpanDown && down:
			out = append(out, legendEntry{"", []string{colourDown}, e.Meaning, "bar"})
		case e.Cell.Spans == layout.SpanFolded && folded:
			out = append(out, legendEntry{"∙", []string{colourFolded}, e.Meaning, "mark"})
		}
	}
	if narrated {
		out = append(out, legendEntry{layout.CellNote.Glyph(), []string{colourNote}, "left of a row: a narrated step or a note starts here", "mark"})
	}
	if compared {
		out = append(out, legendEntry{"≠", []string{colourDiffers}, "a line only one of the two runs has (its side tinted)", "band"})
	}
	return out
}

// placedEntry is a legend entry where the footer writes it: the height of its
// first line, and its meaning wrapped.
type placedEntry struct {
	legendEntry
	x, y  float64
	lines []string
}

// placeLegend lays the legend out in two columns when the image is wide enough
// for its meanings, else in one, each meaning wrapped whole; it returns the
// entries placed below 0 and the height they take.
func (d *drawing) placeLegend(entries []legendEntry) ([]placedEntry, float64) {
	cols := 1
	if (d.width-2*margin)/2 >= 600 {
		cols = 2
	}
	colWidth := (d.width - 2*margin) / float64(cols)
	chars := int((colWidth - 60) / (charW * smallFont / fontSize))
	var out []placedEntry
	y := 0.0
	for i := 0; i < len(entries); i += cols {
		rowLines := 1
		for j := i; j < min(i+cols, len(entries)); j++ {
			lines := wrap(entries[j].meaning, chars)
			rowLines = max(rowLines, len(lines))
			out = append(out, placedEntry{entries[j], margin + float64(j-i)*colWidth, y, lines})
		}
		y += float64(rowLines-1)*18 + 24
	}
	return out, y + 16
}

func (d *drawing) writeFooter(b *strings.Builder, y float64, legend []placedEntry) {
	var verdicts []string
	for _, ln := range d.lanes {
		verdicts = append(verdicts, strings.TrimSpace(ln.name+" "+string(ln.res.Report.Verdict)))
	}
	text, colour, reproduce := "Verdict: "+verdicts[0], verdictColour(string(d.lanes[0].res.Report.Verdict)), d.lanes[0].res.ReproduceCommand()
	if d.cmp != nil {
		text, colour, reproduce = "Verdicts: "+strings.Join(verdicts, "  ·  "), "#303030", scenarios.CompareCommand(d.lanes[0].res, d.lanes[1].res)
	}
	fmt.Fprintf(b, `<text x="%d" y="%s" font-size="%d" font-weight="bold" fill="%s">%s</text>`+"\n", margin, num(y+18), fontSize+2, colour, esc(text))
	fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%d" fill="%s">%s</text>`+"\n", num(margin+float64(len([]rune(text))+3)*10.2), num(y+18), smallFont,
		colourTime, esc("reproduce: "+reproduce))
	for _, e := range legend {
		x, ly := e.x, y+48+e.y
		switch e.kind {
		case "arrow":
			fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="1.5" marker-end="url(#head)"/>`, num(x), num(ly-5), num(x+30), num(ly-5), e.colours[0])
		case "lost":
			fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="1.5" stroke-dasharray="6 4"/>`, num(x-6), num(ly-5), num(x+22), num(ly-5), e.colours[0])
			fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%d" fill="%s" text-anchor="middle" font-weight="bold">%s</text>`, num(x+30), num(ly), fontSize+2, e.colours[0], esc(e.glyph))
		case "bar":
			for j, c := range e.colours {
				fmt.Fprintf(b, `<rect x="%s" y="%s" width="6" height="20" fill="%s"/>`, num(x+float64(j)*8), num(ly-17), c)
			}
		case "promise":
			fmt.Fprintf(b, `<rect class="promise" x="%s" y="%s" width="%d" height="20"/>`, num(x), num(ly-17), promiseW)
		case "band":
			fmt.Fprintf(b, `<rect x="%s" y="%s" width="34" height="22" fill="%s"/>`, num(x-2), num(ly-17), colourDiffBand)
			fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%d" fill="%s" text-anchor="middle" font-weight="bold">%s</text>`, num(x+15), num(ly), fontSize+2, e.colours[0], esc(e.glyph))
		default:
			fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%d" fill="%s" text-anchor="middle" font-weight="bold">%s</text>`, num(x+15), num(ly), fontSize+2, e.colours[0], esc(e.glyph))
		}
		for j, l := range e.lines {
			fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%d" fill="#303030">%s</text>`+"\n", num(x+max(44, float64(len(e.colours))*8+8)), num(ly+float64(j)*18), smallFont, esc(l))
		}
	}
}
