package export

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/tui/layout"
)

// A walk as slides (`locksim run ID --format svg --stops DIR`): one SVG per
// stop of the story, as the terminal UI's walk shows it (layout.Beats). A stop
// with a question gives two: the question, with the rows down to the stop and
// nothing below; then the answer, with the rows down to the end of its beat
// and the beat's narration. Each is a 16:9 slide, 1920 by 1080 units with text
// of 14 units and more, so that shown on a 1920-pixel projector its smallest
// text is 14 pixels; a slide shows the latest rows that fit, the earlier ones
// summed up in a band at its top. The verdict is on the last slide only.

// The slide's measures, in SVG user units.
const (
	slideW       = 1920
	slideH       = 1080 // slideW * 9 / 16
	slideTitle   = 28
	captionFont  = 28
	captionLineH = 38
	slideFooter  = 36
	minSlideColW = 30 // a column of a run with many processes; its labels shorten
)

// colourQuestion is a question's colour, the terminal UI's (Styles.Question).
const colourQuestion = "#8700af"

// slide is one SVG of the walk: the rows down to last, and its caption.
type slide struct {
	name     string
	from     int    // the stop's row: a slide too short for its rows starts here
	last     int    // the last row drawn
	question string // the question asked (the caption), or ""
	caption  string // the narration, when no question is asked
	stop     int    // which stop, from 1; the slide after the last stop is past them
	final    bool   // the last slide: it gives the verdict
}

// WriteStops writes a run's walk as slides, one SVG file per slide, in order,
// through file: it names the file (stop-01.svg, stop-02-question.svg,
// stop-02.svg...) and gives what writes it. Options.Quiet walks the quiet view
// and Options.Window the stretch of the run it cuts. After the last stop, the
// rows down to the end of the run, when there are more, are one more slide.
func WriteStops(res *scenarios.Result, opt Options, file func(name string, write func(io.Writer) error) error) error {
	tl := timeline(res, opt.Quiet, opt.Window)
	for _, s := range slides(tl, res) {
		if err := file(s.name, func(w io.Writer) error { return writeSlide(w, res, tl, s, opt) }); err != nil {
			return err
		}
	}
	return nil
}

// slides lists the walk's slides.
func slides(tl *layout.Timeline, res *scenarios.Result) []slide {
	beats := tl.Beats()
	n := len(beats)
	last := -1
	if n > 0 {
		last = beats[n-1].End
	}
	more := tl.Len() > 0 && last < tl.Len()-1
	count := n
	if more {
		count++
	}
	digits := max(2, len(fmt.Sprint(count)))
	name := func(i int, suffix string) string { return fmt.Sprintf("stop-%0*d%s.svg", digits, i, suffix) }
	var out []slide
	for i, b := range beats {
		if b.Question != "" {
			out = append(out, slide{name: name(i+1, "-question"), from: b.Stop, last: b.Stop, question: b.Question, stop: i + 1})
		}
		out = append(out, slide{name: name(i+1, ""), from: b.Stop, last: b.End, caption: beatCaption(tl, b), stop: i + 1})
	}
	if more {
		text, _ := tl.Narration(tl.Len() - 1)
		if text == "" {
			text = fmt.Sprintf("The run ends at %s.", res.Trace.End)
		}
		out = append(out, slide{name: name(count, ""), from: last + 1, last: tl.Len() - 1, caption: text, stop: count})
	}
	if len(out) > 0 {
		out[len(out)-1].final = true
	}
	return out
}

// beatCaption is what the walk says once a beat's rows are drawn, as the
// terminal UI says it: the stop's narration; for a fault or a violation the
// scenario does not narrate, the narration still in force, or else what the
// stop is.
func beatCaption(tl *layout.Timeline, b layout.Beat) string {
	if b.Narration != "" {
		return b.Narration
	}
	if text, at := tl.Narration(b.End); at >= 0 && text != "" {
		return text
	}
	return tl.Row(b.Stop).Text
}

// writeSlide writes one slide: its heading, the columns, the rows that fit
// down to the slide's last, its caption, and a footer.
func writeSlide(w io.Writer, res *scenarios.Result, tl *layout.Timeline, s slide, opt Options) error {
	// The drawing keeps its measures and is zoomed to the slide's width, up
	// to half as large again: a run of few processes reads from the back of
	// the room. A run of many narrows its columns to fit instead; past what
	// that can do, the slide is wider, still 16:9, and its text smaller.
	// A run whose times need nanoseconds has times wider than the gutter:
	// the drawing moves right by what they lack, so that none is cut.
	shift := max(0, float64(tl.TimeWidth())*charW*smallFont/fontSize-(gutter-12-margin/2))
	n := max(len(tl.Columns()), 1)
	cw := min(colW, max(minSlideColW, (slideW-gutter-margin-shift)/float64(n)))
	natural := shift + gutter + max(float64(n)*cw, minText) + margin
	zoom := min(1.5, max(math.Floor(slideW/natural*100)/100, 1))
	width := max(slideW, math.Ceil(natural/16)*16) // a multiple of 16: the height is whole
	height := width * 9 / 16

	text, colour, prefix := s.caption, "#202020", ""
	if s.question != "" {
		text, colour, prefix = s.question, colourQuestion, "? "
	}
	caption := wrap(prefix+text, int((width-2*margin-24)/(captionFont*0.6)))
	captionH := float64(len(caption))*captionLineH + 22
	top := 58 + (columnsHeight+8)*zoom
	budget := (height - top - captionH - slideFooter - 16) / zoom

	d := &drawing{budget: budget}
	ln := d.addLane(res, tl, "", cw)
	if s.question != "" {
		ln.asked = s.last // a note at the stop is the answer: not said before it is asked
	}
	first, head, tail := fitRows(ln, s.from, s.last, budget)
	var list []shownLine
	if first > 0 {
		list = append(list, shownLine{0, first})
	}
	for r := first; r <= head; r++ {
		list = append(list, shownLine{r, 0})
	}
	if head+1 < tail {
		list = append(list, shownLine{head + 1, tail - head - 1})
	}
	for r := max(tail, head+1); r <= s.last; r++ {
		list = append(list, shownLine{r, 0})
	}
	d.addRows(list)
	if first > 0 {
		d.lines[0].says = fmt.Sprintf("%d earlier %s", first, plural(first, "row", "rows"))
		ln.items[0].spans = tl.Between(first - 1) // what runs on into the first row shown
	}
	if n := tail - head - 1; n > 0 {
		k := head - first + 1
		if first > 0 {
			k++
		}
		d.lines[k].says = fmt.Sprintf("%d more %s of this stop, %s to %s", n, plural(n, "row", "rows"), tl.RowTime(head+1), tl.RowTime(tail-1))
		ln.items[k].spans = tl.Between(head)
	}
	d.finish(opt.ByRow)
	d.width = width/zoom - shift

	bw := bufio.NewWriter(w)
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%s" height="%s" viewBox="0 0 %s %s" font-family="monospace">`,
		num(width), num(height), num(width), num(height))
	heading := fmt.Sprintf("%s  ·  seed %d  ·  stop %d of %d", res.Scenario.ID, res.Seed, s.stop, len(tl.Beats()))
	if s.stop > len(tl.Beats()) {
		heading = fmt.Sprintf("%s  ·  seed %d  ·  the end", res.Scenario.ID, res.Seed)
	}
	b.WriteString("\n<title>" + esc(heading) + "</title>\n" + defs() + "\n")
	b.WriteString(`<rect width="100%" height="100%" fill="#ffffff"/>` + "\n")
	fmt.Fprintf(&b, `<text x="%d" y="40" font-size="%d" font-weight="bold" fill="#303030">%s</text>`+"\n", margin, slideTitle, esc(heading))
	if tl.Len() > 0 && s.last >= 0 {
		fmt.Fprintf(&b, `<text x="%s" y="40" font-size="%d" fill="%s" text-anchor="end">t = %s</text>`+"\n",
			num(width-margin), slideTitle-4, colourTime, esc(tl.RowTime(min(s.last, tl.Len()-1)).String()))
	}
	fmt.Fprintf(&b, `<g transform="scale(%s) translate(%s 0)">`, num2(zoom), num(shift))
	d.writeColumns(&b, 58/zoom)
	fmt.Fprintf(&b, "</g>\n"+`<g transform="translate(0 %s) scale(%s) translate(%s 0)">`+"\n", num(top), num2(zoom), num(shift))
	d.writeLifelines(&b)
	ci := d.index(true)
	for k := range d.chunks() {
		b.WriteString("\n<g>")
		d.writeChunk(&b, k, ci, true)
		b.WriteString("</g>")
	}
	b.WriteString("\n</g>\n")

	cy := height - slideFooter - captionH - 4
	band := colourNoteBand
	if s.question != "" {
		band = "#f3e6fa"
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%s" width="%s" height="%s" rx="6" fill="%s"/>`+"\n", margin, num(cy), num(width-2*margin), num(captionH), band)
	weight := ""
	if s.question != "" {
		weight = ` font-weight="bold"`
	}
	for i, l := range caption {
		fmt.Fprintf(&b, `<text x="%d" y="%s" font-size="%d" fill="%s"%s>%s</text>`+"\n", margin+12, num(cy+11+captionFont+float64(i)*captionLineH),
			captionFont, colour, weight, esc(l))
	}
	fy := height - 12
	reproduce := res.ReproduceCommand()
	if s.final {
		v := verdictNote("", res)
		fmt.Fprintf(&b, `<text x="%d" y="%s" font-size="%d" font-weight="bold" fill="%s">%s</text>`, margin, num(fy), fontSize+3,
			verdictColour(string(res.Report.Verdict)), esc(v))
		fmt.Fprintf(&b, `<text x="%s" y="%s" font-size="%d" fill="%s" text-anchor="end">%s</text>`+"\n", num(width-margin), num(fy), smallFont+2,
			colourTime, esc("reproduce: "+reproduce))
	} else {
		fmt.Fprintf(&b, `<text x="%s" y="%s" font-size="%d" fill="%s" text-anchor="end">%s</text>`+"\n", num(width-margin), num(fy), smallFont+2,
			colourTime, esc(reproduce))
	}
	b.WriteString("</svg>\n")
	bw.WriteString(b.String())
	return bw.Flush()
}

// num2 writes a factor with at most two decimals.
func num2(f float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", f), "0"), ".")
}

// fitRows chooses the rows of a slide of the stop at row from, down to last:
// the rows first..head, then a band, then tail..last. When they all fit, the
// latest that fit, down from last (and from earlier stops: first < from),
// with no band in the middle (tail = head+1). When the stop's own rows
// overflow, its first rows (the stop, what it starts) and its last ones (what
// it comes to: a violation is at the end of its beat) with the rows between
// summed up in a band: a slide never leaves out the end of its beat.
func fitRows(ln *lane, from, last int, height float64) (first, head, tail int) {
	h := func(r int) float64 {
		if said := ln.item(r).said; said != nil {
			return rowGap + float64(len(said))*lineH + 4
		}
		return rowGap
	}
	const band = rowGap * 1.5
	used := 0.0
	for r := last; r >= 0; r-- {
		top := 0.0
		if r > 0 {
			top = band
		}
		if r < last && used+h(r)+top > height {
			if r+1 <= from {
				return r + 1, last, last + 1
			}
			break
		}
		used += h(r)
		if r == 0 {
			return 0, last, last + 1
		}
	}
	// The stop's rows overflow: a third of the room for its first rows, the
	// rest for its last, a band between.
	room := height - band
	if from > 0 {
		room -= band
	}
	head, used = from, h(from)
	for head+1 < last && used+h(head+1) <= room/3 {
		head++
		used += h(head)
	}
	tail = last + 1
	for tail-1 > head+1 && used+h(tail-1) <= room {
		tail--
		used += h(tail)
	}
	return from, head, tail
}

// plural is one or many, as n says.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
