package export_test

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"html"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/tui/export"
	"github.com/locksim/locksim/tui/layout"
)

// Issue 28's export items: the service's promise drawn as a bar of its own, an
// export cut to a stretch of true time, the walk as slides, Mermaid's notes
// wrapped and its glyphs the terminal UI's, and the HTML viewer's walk. The
// browser's view of the same is in browser_test.go.

const promiseSentence = "the service's promise: from a grant"

// promiseRects lists the x of every promise bar of an SVG, and the x of every
// lifeline, in order.
func promiseRects(svg string) (bars []float64, lifelines []float64) {
	for _, m := range regexp.MustCompile(`<rect class="promise" x="([0-9.]+)"`).FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		bars = append(bars, x)
	}
	for _, m := range regexp.MustCompile(`<line class="life" x1="([0-9.]+)"`).FindAllStringSubmatch(svg, -1) {
		x, _ := strconv.ParseFloat(m[1], 64)
		lifelines = append(lifelines, x)
	}
	return bars, lifelines
}

// The service's promise is a bar of its own in the service's column, beside
// (not instead of) the client's belief bar, in the SVG and the HTML, alone and
// side by side, and the legends say what it is.
func TestPromiseBarsInSVGAndHTML(t *testing.T) {
	res := run(t, "redlock-clock-jump")
	svg := render(t, export.WriteSVG, res, export.Options{})
	classes := svgClasses(t, "redlock-clock-jump", svg)
	if classes["promise"] < 5 || classes["bar c5"] == 0 || classes["bar c0"] == 0 {
		t.Fatalf("promise bars %d (want one per node that granted, A to E, and the clients' own), belief bars of c1 %d and c2 %d (c2 is the 7th process: colour 0)",
			classes["promise"], classes["bar c5"], classes["bar c0"])
	}
	bars, lifes := promiseRects(svg)
	// Every node's column has one: the bar sits just left of its lifeline.
	for c, name := range []string{"A", "B", "C", "D", "E"} {
		found := false
		for _, x := range bars {
			found = found || (x < lifes[c] && x > lifes[c]-20)
		}
		if !found {
			t.Errorf("no promise bar beside %s's lifeline at x=%v (bars at %v)", name, lifes[c], bars)
		}
	}
	if !strings.Contains(svg, promiseSentence) {
		t.Error("the SVG's legend does not say what the promise bar is")
	}
	if fencing := render(t, export.WriteSVG, run(t, "3pc-partition"), export.Options{}); strings.Contains(fencing, `class="promise" x=`) || strings.Contains(fencing, promiseSentence) {
		t.Error("3pc-partition grants no lock, yet its SVG draws a promise or explains one")
	}

	cmp := renderCompare(t, export.WriteCompareSVG, res, run(t, "redlock-no-clock-jump"), export.Options{})
	if n := svgClasses(t, "compare", cmp)["promise"]; n < 10 || !strings.Contains(cmp, promiseSentence) {
		t.Errorf("side by side: %d promise bars (want both runs'), legend says it: %v", n, strings.Contains(cmp, promiseSentence))
	}

	page := render(t, export.WriteHTML, res, export.Options{})
	d := readViewer(t, "html", page)
	if !strings.Contains(strings.Join(d.Views[0].Chunks, ""), `class="promise"`) || !strings.Contains(page, html.EscapeString(promiseSentence)) {
		t.Error("the HTML viewer draws no promise bar, or its legend does not say what it is")
	}
	cpage := renderCompare(t, export.WriteCompareHTML, res, run(t, "redlock-no-clock-jump"), export.Options{})
	if d := readViewer(t, "compare html", cpage); !strings.Contains(strings.Join(d.Views[0].Chunks, ""), `class="promise"`) {
		t.Error("the compare viewer draws no promise bar")
	}
}

// svgTimes lists the times written left of an SVG's rows.
func svgTimes(t *testing.T, svg string) []sim.Time {
	t.Helper()
	var out []sim.Time
	for _, m := range regexp.MustCompile(`<text class="time" x="98" y="[0-9.]+">([0-9.]+s)</text>`).FindAllStringSubmatch(svg, -1) {
		d, err := time.ParseDuration(m[1])
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, sim.Time(d))
	}
	return out
}

// --from 2s --to 3s: the exports keep only the rows of that stretch of true
// time, the spans that began before it (c1's belief, the nodes' promises)
// running down from its first row, and say so.
func TestWindowCutsTheExports(t *testing.T) {
	res := run(t, "redlock-clock-jump")
	w := &export.Window{From: sim.Time(2 * time.Second), To: sim.Time(3 * time.Second)}
	opt := export.Options{Window: w}
	whole, cut := render(t, export.WriteSVG, res, export.Options{}), render(t, export.WriteSVG, res, opt)
	if len(cut) >= len(whole) {
		t.Errorf("the cut SVG is %d bytes, the whole %d", len(cut), len(whole))
	}
	times := svgTimes(t, cut)
	if len(times) == 0 || slices.ContainsFunc(times, func(at sim.Time) bool { return at < w.From || at > w.To }) {
		t.Errorf("the cut SVG's rows are at %v, want only times in [2s, 3s]", times)
	}
	classes := svgClasses(t, "cut", cut)
	if classes["band"] != 2 || classes["bar c5"] == 0 || classes["promise"] < 5 {
		t.Errorf("cut: %d violation bands (want mutex-belief and grant-exclusive, not quorum-backed at 1s), c1's bar %d, promises %d",
			classes["band"], classes["bar c5"], classes["promise"])
	}
	if !strings.Contains(cut, "only the rows from 2.000s to 3.000s") {
		t.Error("the cut SVG does not say it is cut")
	}

	mmd := render(t, export.WriteMermaid, res, opt)
	if strings.Contains(mmd, "⤴ clock-jump C") || strings.Contains(mmd, "quorum-backed:") || !strings.Contains(mmd, "mutex-belief:") ||
		!strings.Contains(mmd, "--from 2.000s --to 3.000s") {
		t.Errorf("the cut diagram:\n%s", mmd)
	}

	d := readViewer(t, "cut html", render(t, export.WriteHTML, res, opt))
	tl := layout.New(res.Trace, &res.Report).Window(w.From, w.To)
	if got := len(d.Views[0].Top); got != tl.Len() || got == 0 {
		t.Errorf("the cut HTML has %d rows, the window %d", got, tl.Len())
	}
	for _, ev := range d.Views[0].Lanes[0].Event {
		if ev >= 0 {
			if at := res.Trace.Event(ev).At; at < w.From || at > w.To {
				t.Errorf("the cut HTML has a row at %s", at)
			}
		}
	}

	b := run(t, "redlock-no-clock-jump")
	cs := renderCompare(t, export.WriteCompareSVG, res, b, opt)
	if ct := svgTimes(t, cs); len(ct) == 0 || slices.ContainsFunc(ct, func(at sim.Time) bool { return at < w.From || at > w.To }) {
		t.Errorf("the cut comparison's lines are at %v", ct)
	}
	cm := renderCompare(t, export.WriteCompareMermaid, res, b, opt)
	if strings.Contains(cm, "⤴ clock-jump C") || !strings.Contains(cm, "Verdict A") {
		t.Errorf("the cut compare diagram:\n%s", cm)
	}
	cd := readViewer(t, "cut compare html", renderCompare(t, export.WriteCompareHTML, res, b, opt))
	if n := len(cd.Views[0].Top); n == 0 || n >= len(readViewer(t, "compare html", renderCompare(t, export.WriteCompareHTML, res, b, export.Options{})).Views[0].Top) {
		t.Errorf("the cut compare viewer has %d lines", n)
	}
}

// A window keeps what the whole timeline knew: a span that began before it is
// on from its first row, and its rows keep their keys.
func TestWindowKeepsTheSpans(t *testing.T) {
	res := run(t, "redlock-clock-jump")
	tl := layout.New(res.Trace, &res.Report)
	w := tl.Window(sim.Time(2*time.Second), sim.Time(3*time.Second))
	first := tl.RowAt(w.Key(0))
	if w.Len() == 0 || tl.RowTime(first) != w.RowTime(0) {
		t.Fatalf("the window's first row is at %s", w.RowTime(0))
	}
	for r := range w.Len() {
		if got, want := w.Row(r).Cells, tl.Row(first+r).Cells; !slices.Equal(got, want) {
			t.Fatalf("row %d of the window differs from row %d of the whole:\n%v\n%v", r, first+r, got, want)
		}
	}
	if n := tl.Window(sim.Time(20*time.Second), sim.Never).Len(); n != 0 {
		t.Errorf("a window after the run has %d rows", n)
	}
}

// slideFiles writes a run's walk as slides into memory, in order.
func slideFiles(t *testing.T, res *scenarios.Result, opt export.Options) (names []string, files map[string]string) {
	t.Helper()
	files = map[string]string{}
	err := export.WriteStops(res, opt, func(name string, write func(io.Writer) error) error {
		var b strings.Builder
		if err := write(&b); err != nil {
			return err
		}
		names = append(names, name)
		files[name] = b.String()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return names, files
}

// slideText is every text of a slide, unescaped, one per line.
func slideText(t *testing.T, name, svg string) string {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	var out []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s is not XML: %v", name, err)
		}
		if cd, ok := tok.(xml.CharData); ok && strings.TrimSpace(string(cd)) != "" {
			out = append(out, string(cd))
		}
	}
	return strings.Join(out, "\n")
}

// slideSize checks a slide's size: 16:9, at least 1920 wide, and no font
// under 14 units, so that shown 1920 pixels wide its text is 14 px or more.
func slideSize(t *testing.T, name, svg string) {
	t.Helper()
	m := regexp.MustCompile(`^<svg xmlns="http://www.w3.org/2000/svg" width="([0-9.]+)" height="([0-9.]+)" viewBox="0 0 ([0-9.]+) ([0-9.]+)"`).FindStringSubmatch(svg)
	if m == nil {
		t.Fatalf("%s: no size: %.120s", name, svg)
	}
	w, _ := strconv.ParseFloat(m[3], 64)
	h, _ := strconv.ParseFloat(m[4], 64)
	if w < 1920 || w*9 != h*16 || m[1] != m[3] || m[2] != m[4] {
		t.Errorf("%s: %s by %s, viewBox %s by %s: want 16:9, 1920 wide", name, m[1], m[2], m[3], m[4])
	}
	for _, f := range regexp.MustCompile(`font-size(?:="|:)([0-9.]+)`).FindAllStringSubmatch(svg, -1) {
		if px, _ := strconv.ParseFloat(f[1], 64); px < 14 {
			t.Errorf("%s: a font of %s units", name, f[1])
		}
	}
}

// --stops: one slide per stop of the walk, a question first where the stop
// asks one (rows down to the stop only), then its answer (rows down to the
// end of the beat, and the narration); 16:9 and readable; the verdict only on
// the last.
func TestStopsAreTheWalkAsSlides(t *testing.T) {
	res := run(t, "zset-time-bucket-overlap")
	tl := layout.New(res.Trace, &res.Report)
	beats := tl.Beats()
	names, files := slideFiles(t, res, export.Options{})
	var want []string
	asked := -1
	for i, b := range beats {
		if b.Question != "" {
			want = append(want, fmt.Sprintf("stop-%02d-question.svg", i+1))
			asked = i
		}
		want = append(want, fmt.Sprintf("stop-%02d.svg", i+1))
	}
	if beats[len(beats)-1].End < tl.Len()-1 {
		want = append(want, fmt.Sprintf("stop-%02d.svg", len(beats)+1))
	}
	if !slices.Equal(names, want) || asked < 0 {
		t.Fatalf("slides %q, want %q (a question at beat %d)", names, want, asked+1)
	}
	verdict := "Verdict: " + string(res.Report.Verdict)
	for i, name := range names {
		slideSize(t, name, files[name])
		text := slideText(t, name, files[name])
		if strings.Contains(text, verdict) != (i == len(names)-1) {
			t.Errorf("%s: the verdict is on it: %v (only the last slide gives it)", name, strings.Contains(text, verdict))
		}
	}
	b := beats[asked]
	q := slideText(t, "question", files[want[0]])
	for _, name := range names {
		if strings.HasSuffix(name, "-question.svg") {
			q = slideText(t, name, files[name])
		}
	}
	if !strings.Contains(q, "? Hour 2 begins") {
		t.Errorf("the question slide does not ask the question:\n%s", q)
	}
	stopAt := tl.RowTime(b.Stop).String()
	for _, at := range svgTimes(t, files[fmt.Sprintf("stop-%02d-question.svg", asked+1)]) {
		if at > tl.RowTime(b.Stop) {
			t.Errorf("the question slide draws a row at %s, below the stop at %s", at, stopAt)
		}
	}
	answer := slideText(t, "answer", files[fmt.Sprintf("stop-%02d.svg", asked+1)])
	if !strings.Contains(answer, strings.Fields(b.Narration)[0]) || strings.Contains(answer, "? Hour 2") || !strings.Contains(answer, "mutex-belief") {
		t.Errorf("the answer slide lacks the narration or the violation it answers with, or still asks:\n%s", answer)
	}

	// A long run: every slide fits, and says how many earlier rows it leaves out.
	names, files = slideFiles(t, run(t, "etcd-pause"), export.Options{})
	if len(names) < 4 || !strings.Contains(strings.Join(slices.Collect(func(yield func(string) bool) {
		for _, f := range files {
			if !yield(f) {
				return
			}
		}
	}), ""), "earlier rows") {
		t.Errorf("etcd-pause: %d slides, none says it leaves earlier rows out", len(names))
	}
	for _, name := range names {
		slideSize(t, "etcd-pause "+name, files[name])
	}
}

// Every catalogue scenario's walk makes slides, each of them XML, 16:9 and
// readable, the verdict on the last alone. A question's slide does not give
// its answer (a note that asks is its own answer: its text waits for the next
// slide); an answer's slide draws the end of its beat, where a violation the
// stop leads to is, however long the beat (a slide once drew the beat's first
// rows and summed up its last, the violations among them).
func TestEveryWalkMakesSlides(t *testing.T) {
	t.Parallel()
	cat, runs := catalogueRuns(t)
	for i, s := range cat {
		res := runs[i]
		names, files := slideFiles(t, res, export.Options{Quiet: true})
		if len(names) < 3 {
			t.Errorf("%s: %d slides", s.ID, len(names))
		}
		for i, name := range names {
			svgClasses(t, s.ID+" "+name, files[name])
			slideSize(t, s.ID+" "+name, files[name])
			if strings.Contains(files[name], "Verdict: ") != (i == len(names)-1) {
				t.Errorf("%s %s: a verdict before the end, or none at it", s.ID, name)
			}
		}
		tl := layout.New(res.Trace, &res.Report).Filter(layout.Filter{Quiet: true})
		for i, b := range tl.Beats() {
			name := fmt.Sprintf("stop-%02d", i+1)
			if b.Question != "" {
				q := strings.Join(strings.Fields(slideText(t, name, files[name+"-question.svg"])), " ")
				answers := []string{b.Narration}
				if ev := tl.RowEvent(b.Stop); ev >= 0 {
					answers = append(answers, scenarios.NoteText(res.Trace, res.Trace.Event(ev)))
				}
				for _, answer := range answers {
					if w := strings.Fields(answer); len(w) >= 4 && strings.Contains(q, strings.Join(w[:4], " ")) {
						t.Errorf("%s %s-question.svg gives its answer: %q", s.ID, name, strings.Join(w[:4], " "))
					}
				}
			}
			times := svgTimes(t, files[name+".svg"])
			if end := tl.RowTime(b.End); len(times) == 0 || times[len(times)-1] != end {
				t.Errorf("%s %s.svg does not draw the end of its beat, at %s (its last time: %v)", s.ID, name, end, times[max(len(times)-1, 0):])
			}
		}
	}
}

// Mermaid wraps every long note as it wraps the scenario's (a violation's ran
// past the diagram's edge), and writes the terminal UI's marks (⏸, not ‖).
func TestMermaidWrapsNotesAndUsesTheTUIsGlyphs(t *testing.T) {
	t.Parallel()
	cat, runs := catalogueRuns(t)
	note := regexp.MustCompile(`(?m)^    Note over [^:]+: (.*)$`)
	for i, s := range cat {
		res := runs[i]
		for _, m := range note.FindAllStringSubmatch(render(t, export.WriteMermaid, res, export.Options{}), -1) {
			for _, l := range strings.Split(m[1], "<br>") {
				if n := len([]rune(strings.NewReplacer("#35;", "#", "#59;", ";", "#lt;", "<", "#gt;", ">").Replace(l))); n > 64 {
					t.Errorf("%s: a note line of %d characters: %q", s.ID, n, l)
				}
			}
		}
	}
	res := run(t, "redlock-clock-jump")
	mmd := render(t, export.WriteMermaid, res, export.Options{})
	// Over two participants a note is as wide as they are apart: short lines.
	ge := regexp.MustCompile(`(?m)^    Note over p5,p6: (◆ grant-exclusive: .*)$`).FindStringSubmatch(mmd)
	if ge == nil || !strings.Contains(ge[1], "<br>") {
		t.Fatalf("the grant-exclusive note over c1 and c2 is not broken into lines:\n%s", mmd)
	}
	for _, l := range strings.Split(ge[1], "<br>") {
		if len([]rune(l)) > 30 {
			t.Errorf("a line of %d characters in the grant-exclusive note over c1 and c2: %q", len([]rune(l)), l)
		}
	}
	del := render(t, export.WriteMermaid, run(t, "redis-del-after-expiry"), export.Options{})
	if !strings.Contains(del, "Note over p1: ⏸ pause c1") || strings.Contains(del, "‖") {
		t.Errorf("the pause is not written with the terminal UI's ⏸:\n%s", del)
	}
}

// The HTML viewer carries the walk's beats (a stop, the end of its beat, its
// question and narration), and --walk opens it walking; a comparison has none.
func TestHTMLCarriesTheWalk(t *testing.T) {
	res := run(t, "zset-time-bucket-overlap")
	tl := layout.New(res.Trace, &res.Report)
	type beat struct {
		Stop, End int
		Q         string `json:"q"`
		Narr      string `json:"narr"`
	}
	var data struct {
		Walk  bool `json:"walk"`
		Views []struct {
			Lanes []struct {
				Beats []beat `json:"beats"`
			} `json:"lanes"`
		} `json:"views"`
	}
	for _, walk := range []bool{false, true} {
		page := render(t, export.WriteHTML, res, export.Options{Walk: walk})
		readViewer(t, "walk html", page)
		if err := viewerJSON(page, &data); err != nil {
			t.Fatal(err)
		}
		if data.Walk != walk {
			t.Errorf("Walk %v: the viewer opens walking: %v", walk, data.Walk)
		}
		got := data.Views[0].Lanes[0].Beats
		if len(got) != len(tl.Beats()) {
			t.Fatalf("the viewer has %d beats, the walk %d", len(got), len(tl.Beats()))
		}
		for i, b := range tl.Beats() {
			if g := got[i]; g.Stop != b.Stop || g.End != b.End || g.Q != b.Question || g.Narr != b.Narration {
				t.Errorf("beat %d: %+v, want %+v", i, g, b)
			}
		}
		for _, id := range []string{`id="walk"`, `id="reveal"`, `id="help"`, `id="helpbox"`, `class="verdict-later"`, `clip-path="url(#revealed)"`} {
			if !strings.Contains(page, id) {
				t.Errorf("the viewer lacks %s", id)
			}
		}
	}
	cmp := renderCompare(t, export.WriteCompareHTML, res, res, export.Options{Walk: true})
	if err := viewerJSON(cmp, &data); err != nil || data.Walk || strings.Contains(cmp, `id="walk"`) {
		t.Errorf("a comparison walks: %v, has the walk button: %v", data.Walk, strings.Contains(cmp, `id="walk"`))
	}
}

// viewerJSON decodes the viewer's data of an HTML page into v.
func viewerJSON(page string, v any) error {
	const open = `<script type="application/json" id="data">`
	i := strings.Index(page, open)
	if i < 0 {
		return fmt.Errorf("no viewer data")
	}
	rest := page[i+len(open):]
	return json.Unmarshal([]byte(rest[:strings.Index(rest, "</script>")]), v)
}

// Rows follow true time down every timeline (Window finds a stretch's rows by
// binary search on it): every catalogue scenario's, whole and quiet.
func TestRowsFollowTrueTime(t *testing.T) {
	t.Parallel()
	cat, runs := catalogueRuns(t)
	for i, s := range cat {
		res := runs[i]
		whole := layout.New(res.Trace, &res.Report)
		for _, tl := range []*layout.Timeline{whole, whole.Filter(layout.Filter{Quiet: true})} {
			for r := 1; r < tl.Len(); r++ {
				if tl.RowTime(r) < tl.RowTime(r-1) {
					t.Fatalf("%s: row %d at %s comes after row %d at %s", s.ID, r+1, tl.RowTime(r), r, tl.RowTime(r-1))
				}
			}
		}
	}
}
