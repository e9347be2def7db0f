package export

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/tui/layout"
)

// WriteSVG writes the run's timeline as one standalone SVG image: the title and
// verdict, one column per process with true time downwards, the messages as
// arrows, belief bars, grants, faults and violations, and a legend. It uses
// generic font families and references nothing outside itself.
func WriteSVG(w io.Writer, res *scenarios.Result, opt Options) error {
	d := newDrawing(res, opt)
	bw := bufio.NewWriter(w)
	var b strings.Builder
	title := d.titleLines()
	y := 34.0 + float64(len(title)-1)*22
	top := y + 18 + columnsHeight
	legend := d.legend()
	legendH := float64((len(legend)+1)/2)*24 + 16
	height := top + d.height + 56 + legendH
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="monospace">`,
		num(d.width), num(height), num(d.width), num(height))
	b.WriteString("\n<title>" + esc(res.Scenario.ID+": "+string(res.Report.Verdict)) + "</title>\n" + defs() + "\n")
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#ffffff"/>`+"\n")
	for i, l := range title {
		size, weight, fill := fontSize, "", "#303030"
		if i == 0 {
			size, weight, fill = 22, ` font-weight="bold"`, verdictColour(string(res.Report.Verdict))
		}
		fmt.Fprintf(&b, `<text x="%d" y="%s" font-size="%d" fill="%s"%s>%s</text>`+"\n", margin, num(34+float64(i)*22), size, fill, weight, esc(l))
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
	d.writeFooter(&b, top+d.height+10, legend)
	b.WriteString("</svg>\n")
	bw.WriteString(b.String())
	return bw.Flush()
}

// titleLines are the image's heading: the run and its verdict, the lesson's
// first line, and what was violated.
func (d *drawing) titleLines() []string {
	r := d.res
	lines := []string{fmt.Sprintf("%s  ·  seed %d  ·  %s", r.Scenario.ID, r.Seed, r.Report.Verdict)}
	chars := int((d.width - 2*margin) / charW)
	if r.Scenario.Summary != "" {
		lines = append(lines, wrap(r.Scenario.Summary, chars)...)
	}
	if v := violated(r); len(v) > 0 {
		lines = append(lines, wrap("violated: "+strings.Join(v, ", "), chars)...)
	}
	return lines
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

// legendEntry is a sample mark and its meaning.
type legendEntry struct {
	glyph, colour, meaning string
	kind                   string // "mark", "bar", "arrow", "lost"
}

// legend lists what this image draws: the marks it uses, each client's bar, and
// the arrows.
func (d *drawing) legend() []legendEntry {
	out := []legendEntry{{"", colourMessage, "a message, from its send to its delivery", "arrow"},
		{"", colourViolation, "a lost message (partition, loss, a process down)", "lost"}}
	has := func(bars []bar, s layout.Span) bool {
		return slices.ContainsFunc(bars, func(b bar) bool { return b.span == s })
	}
	paused, down := false, false
	for c, bars := range d.bars {
		if has(bars, layout.SpanBelief) {
			out = append(out, legendEntry{"", barColour(c), d.tl.Columns()[c].Name + " believes it holds the lock", "bar"})
		}
		paused, down = paused || has(bars, layout.SpanPaused), down || has(bars, layout.SpanDown)
	}
	if paused {
		out = append(out, legendEntry{"", colourPaused, "the process is paused (its inputs wait)", "bar"})
	}
	if down {
		out = append(out, legendEntry{"", colourDown, "the process is down", "bar"})
	}
	kinds := slices.Sorted(maps.Keys(d.used))
	for _, k := range kinds {
		out = append(out, legendEntry{glyph(k), kindColour(k), meanings[k], "mark"})
	}
	return out
}

func (d *drawing) writeFooter(b *strings.Builder, y float64, legend []legendEntry) {
	r := d.res
	fmt.Fprintf(b, `<text x="%d" y="%s" font-size="%d" font-weight="bold" fill="%s">Verdict: %s</text>`+"\n", margin, num(y+18), fontSize+2,
		verdictColour(string(r.Report.Verdict)), esc(string(r.Report.Verdict)))
	fmt.Fprintf(b, `<text x="%d" y="%s" font-size="%d" fill="%s">%s</text>`+"\n", margin+150, num(y+18), smallFont, colourTime,
		esc("reproduce: "+r.ReproduceCommand()))
	colWidth := (d.width - 2*margin) / 2
	for i, e := range legend {
		x := margin + float64(i%2)*colWidth
		ly := y + 48 + float64(i/2)*24
		switch e.kind {
		case "arrow":
			fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="1.5" marker-end="url(#head)"/>`, num(x), num(ly-5), num(x+30), num(ly-5), e.colour)
		case "lost":
			fmt.Fprintf(b, `<line x1="%s" y1="%s" x2="%s" y2="%s" stroke="%s" stroke-width="1.5" stroke-dasharray="6 4"/>`, num(x), num(ly-5), num(x+30), num(ly-5), e.colour)
		case "bar":
			fmt.Fprintf(b, `<rect x="%s" y="%s" width="10" height="20" fill="%s"/>`, num(x+10), num(ly-17), e.colour)
		default:
			fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%d" fill="%s" text-anchor="middle">%s</text>`, num(x+15), num(ly), fontSize+2, e.colour, esc(e.glyph))
		}
		fmt.Fprintf(b, `<text x="%s" y="%s" font-size="%d" fill="#303030">%s</text>`+"\n", num(x+44), num(ly), smallFont,
			esc(cut(e.meaning, int((colWidth-50)/(charW*smallFont/fontSize)))))
	}
}
