//go:build browser

package export_test

// The exports opened in a real browser: Debian's headless chromium, driven over
// the DevTools protocol. Run with
//
//	go test -tags browser ./tui/export -run Browser -v
//
// (needs `apt-get install chromium`; the Mermaid test also needs Mermaid from the
// npm registry: `npm install --prefix ~/.cache/locksim/npm mermaid@11`, or
// LOCKSIM_MERMAID_JS=path/to/mermaid.min.js). LOCKSIM_SCREENSHOTS=DIR keeps the
// screenshots. .ci/run installs both and runs these tests.

import (
	"fmt"
	"image"
	"image/color"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/tui/export"
)

// write renders res with w into a file of the test's temporary directory.
func write(t testing.TB, w writer, res *scenarios.Result, opt export.Options, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := w(f, res, opt); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return path
}

// screenshotAs takes a screenshot of the 1600x1000 page, checks its size, and
// keeps it as name where LOCKSIM_SCREENSHOTS says.
func (p *page) screenshotAs(t *testing.T, name string) image.Image {
	t.Helper()
	img, png := p.screenshot()
	if dir := os.Getenv("LOCKSIM_SCREENSHOTS"); dir != "" {
		if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
			t.Error(err)
		}
	}
	if s := img.Bounds().Size(); s.X != 1600 || s.Y != 1000 {
		t.Errorf("the screenshot is %v, want 1600x1000", s)
	}
	return img
}

// near checks the pixel at (x, y) against a colour, within tol per channel.
func near(t *testing.T, img image.Image, what string, x, y float64, want color.RGBA, tol int) {
	t.Helper()
	r, g, b, _ := img.At(int(x), int(y)).RGBA()
	got := [3]int{int(r >> 8), int(g >> 8), int(b >> 8)}
	for i, w := range [3]int{int(want.R), int(want.G), int(want.B)} {
		if d := got[i] - w; d > tol || d < -tol {
			t.Errorf("%s: the pixel at (%.0f, %.0f) is rgb%v, want about rgb(%d, %d, %d)", what, x, y, got, want.R, want.G, want.B)
			return
		}
	}
}

func rgb(hex string) color.RGBA {
	var c color.RGBA
	fmt.Sscanf(hex, "#%02x%02x%02x", &c.R, &c.G, &c.B)
	c.A = 255
	return c
}

// over is colour c at opacity a over white.
func over(c color.RGBA, a float64) color.RGBA {
	mix := func(v uint8) uint8 { return uint8(float64(v)*a + 255*(1-a) + 0.5) }
	return color.RGBA{mix(c.R), mix(c.G), mix(c.B), 255}
}

type rect struct{ X, Y, W, H float64 }

func (p *page) rect(selector string) rect {
	var r rect
	p.eval(fmt.Sprintf(`(() => { const r = document.querySelector(%q).getBoundingClientRect(); return {X: r.x, Y: r.y, W: r.width, H: r.height}; })()`, selector), &r)
	return r
}

func (p *page) text(id string) string {
	var s string
	p.eval(fmt.Sprintf(`document.getElementById(%q).textContent`, id), &s)
	return s
}

func noProblems(t *testing.T, p *page) {
	t.Helper()
	for _, pr := range p.Problems() {
		t.Error(pr)
	}
}

// TestBrowserHTML opens Kleppmann's clock jump as the HTML viewer and steps
// through it as a teacher would: keys, buttons, a click on a violation.
func TestBrowserHTML(t *testing.T) {
	res := run(t, "redlock-clock-jump")
	path := write(t, export.WriteHTML, res, export.Options{}, "redlock-clock-jump.html")
	b := newBrowser(t)
	p := b.newPage(1600, 1000)
	took := p.open(path)
	t.Logf("redlock-clock-jump.html: rendered in %v", took)

	var rows, firstViol, mutexRow int
	p.eval(`JSON.parse(document.getElementById("data").textContent).views[0].top.length`, &rows)
	p.eval(`JSON.parse(document.getElementById("data").textContent).views[0].viol[0]`, &firstViol)
	where := func() string { return strings.SplitN(p.text("where"), " · ", 2)[0] }
	cursorY := func() float64 {
		var y float64
		p.eval(`+document.getElementById("cursor").getAttribute("y")`, &y)
		return y
	}
	step := func(what, want string) {
		t.Helper()
		if got := where(); got != want {
			t.Errorf("after %s the cursor is at %q, want %q", what, got, want)
		}
	}
	step("opening", fmt.Sprintf("row 1 of %d", rows))
	y0 := cursorY()
	p.key("ArrowDown", "ArrowDown", 40)
	step("↓", fmt.Sprintf("row 2 of %d", rows))
	if y1 := cursorY(); y1 <= y0 {
		t.Errorf("↓ did not move the cursor down: y %v then %v", y0, y1)
	}
	p.key("j", "KeyJ", 74)
	p.key("k", "KeyK", 75)
	step("j, k", fmt.Sprintf("row 2 of %d", rows))
	p.key("n", "KeyN", 78)
	step("n", fmt.Sprintf("row %d of %d", firstViol+1, rows))
	if d := p.text("detail-0"); !strings.Contains(d, "VIOLATION of quorum-backed") {
		t.Errorf("the detail at the first violation says %q", d)
	}
	p.click("#next")
	step("the next button", fmt.Sprintf("row %d of %d", firstViol+2, rows))
	if d := p.text("detail-0"); !strings.Contains(d, "its own clock") {
		t.Errorf("an event's detail lacks the process's clock: %q", d)
	}
	p.eval(`(() => { const a = document.querySelector("li.st-violated a.jump");
		return JSON.parse(document.getElementById("data").textContent).views[0].lanes[0].viol[+a.dataset.viol].line; })()`, &mutexRow)
	p.click("li.st-violated a.jump")
	step("a click on mutex-belief's violation", fmt.Sprintf("row %d of %d", mutexRow+1, rows))
	if d := p.text("detail-0"); !strings.Contains(d, "mutex-belief") {
		t.Errorf("after the click the detail says %q", d)
	}
	if s := p.text("so-far-0"); !strings.Contains(s, "quorum-backed") || !strings.Contains(s, "mutex-belief") {
		t.Errorf("the header's badge says %q at the mutex-belief violation", s)
	}
	if n := p.text("narration-0"); !strings.Contains(n, "c2") {
		t.Errorf("the narration at c2's acquisition says %q", n)
	}
	var drawn int
	p.eval(`document.querySelectorAll("#chunks text").length`, &drawn)
	if drawn == 0 {
		t.Error("no row of the timeline is drawn")
	}
	var quietOff bool
	p.eval(`document.getElementById("quiet").disabled`, &quietOff)
	if !quietOff {
		t.Error("the quiet button is on offer, but a Redlock run has no background traffic")
	}

	img := p.screenshotAs(t, "redlock-clock-jump-html.png")
	badge := p.rect(".verdict")
	near(t, img, "the UNSAFE badge", badge.X+3, badge.Y+badge.H/2, rgb("#c00000"), 24)
	cur := p.rect("#cursor")
	near(t, img, "the cursor", cur.X+4, cur.Y+cur.H/2, over(rgb("#ffd84d"), 0.4), 24)
	near(t, img, "the page", 1598, 4, color.RGBA{255, 255, 255, 255}, 8)

	p.key("G", "KeyG", 71)
	step("G", fmt.Sprintf("row %d of %d", rows, rows))
	p.key("g", "KeyG", 71)
	step("g", fmt.Sprintf("row 1 of %d", rows))
	noProblems(t, p)
}

// TestBrowserCompareHTML opens Kleppmann's clock jump side by side with the same
// run without the jump, as `locksim run A --vs B --format html` writes it: one
// cursor moves both runs, d jumps from difference to difference, each side's
// detail, narration and badge follow, and b switches to the quiet view.
func TestBrowserCompareHTML(t *testing.T) {
	a, b := run(t, "redlock-clock-jump"), run(t, "redlock-no-clock-jump")
	path := filepath.Join(t.TempDir(), "compare.html")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := export.WriteCompareHTML(f, a, b, export.Options{}); err != nil {
		t.Fatal(err)
	}
	f.Close()
	br := newBrowser(t)
	p := br.newPage(1600, 1000)
	t.Logf("compare.html: rendered in %v", p.open(path))

	var data struct {
		Lines, Diffs int
		First        int
	}
	p.eval(`(() => { const v = JSON.parse(document.getElementById("data").textContent).views[0];
		return {Lines: v.top.length, Diffs: v.diff.length, First: v.diff[0]}; })()`, &data)
	where := func() string { return p.text("where") }
	var verdicts []string
	p.eval(`[...document.querySelectorAll("h1 .verdict")].map(e => e.textContent)`, &verdicts)
	if strings.Join(verdicts, " ") != "UNSAFE SAFE" {
		t.Errorf("the header's verdicts are %q, want UNSAFE for A and SAFE for B", verdicts)
	}
	if w := where(); !strings.HasPrefix(w, fmt.Sprintf("line 1 of %d", data.Lines)) {
		t.Errorf("opening: %q", w)
	}
	// One cursor, both runs: ↓ moves both sides' rows, as the comparison lines them up.
	p.key("ArrowDown", "ArrowDown", 40)
	p.key("ArrowDown", "ArrowDown", 40)
	for l := range 2 {
		var want string
		p.eval(fmt.Sprintf(`(() => { const D = JSON.parse(document.getElementById("data").textContent), L = D.views[0].lanes[%d];
			return D.runs[%d].events[L.event[L.at[2]]][3]; })()`, l, l), &want)
		if d := p.text(fmt.Sprintf("detail-%d", l)); !strings.Contains(d, want) {
			t.Errorf("line 3: side %c shows %q, want its row %q", "AB"[l], d, want)
		}
	}
	// d: the first difference is the jump on C, which only A has; B shows its
	// row before it (c1's timer, the moment it concluded it holds the lock).
	p.key("d", "KeyD", 68)
	if w := where(); !strings.HasPrefix(w, fmt.Sprintf("line %d of %d", data.First+1, data.Lines)) || !strings.Contains(w, fmt.Sprintf("difference 1 of %d", data.Diffs)) {
		t.Errorf("after d: %q, want line %d and difference 1 of %d", w, data.First+1, data.Diffs)
	}
	if d := p.text("detail-0"); !strings.Contains(d, "clock-jump C wall +15.000s") {
		t.Errorf("A at the first difference: %q", d)
	}
	if d := p.text("detail-1"); strings.Contains(d, "clock-jump") || !strings.Contains(d, "timer c1") {
		t.Errorf("B at the first difference: %q", d)
	}
	if n := p.text("narration-0"); !strings.Contains(n, "C's wall clock jumps") {
		t.Errorf("A's narration at the jump: %q", n)
	}
	img := p.screenshotAs(t, "compare-html.png")
	// The screenshot, at the first difference: the header's verdicts, the
	// cursor over A's tinted row, and B's side of the same line untinted.
	for i, want := range []string{"#c00000", "#006400"} {
		var r rect
		p.eval(fmt.Sprintf(`(() => { const r = document.querySelectorAll("h1 .verdict")[%d].getBoundingClientRect(); return {X: r.x, Y: r.y, W: r.width, H: r.height}; })()`, i), &r)
		near(t, img, "the verdict badge of "+string("AB"[i]), r.X+3, r.Y+r.H/2, rgb(want), 24)
	}
	// Each side is probed right of D's lifeline, where that line draws
	// nothing but the tint (a node's promise bar sits just left of its
	// lifeline; the narration's ✎ left of the lane).
	var geo struct{ X, Y, Scale, A, B float64 }
	p.eval(`(() => { const D = JSON.parse(document.getElementById("data").textContent), v = D.views[0];
		const body = document.getElementById("body").getBoundingClientRect(), s = body.width / D.width;
		return {X: body.x, Y: body.y + (v.top[v.diff[0]] + v.height[v.diff[0]] / 2) * s, Scale: s, A: 110 + 442, B: D.width - 24 - 7 * 124 + 442}; })()`, &geo)
	if geo.Scale < 0.7 || geo.Scale > 1 {
		t.Errorf("the two runs are drawn at %.2f of their size", geo.Scale)
	}
	cursor := rgb("#ffd84d")
	mix := func(under color.RGBA) color.RGBA { // the cursor, 40% opaque, over a colour
		m := func(c, u uint8) uint8 { return uint8(0.4*float64(c) + 0.6*float64(u) + 0.5) }
		return color.RGBA{m(cursor.R, under.R), m(cursor.G, under.G), m(cursor.B, under.B), 255}
	}
	near(t, img, "A's tinted row under the cursor", geo.X+geo.A*geo.Scale, geo.Y, mix(rgb("#f8e6f8")), 10)
	near(t, img, "B's untinted side of that line", geo.X+geo.B*geo.Scale, geo.Y, mix(rgb("#ffffff")), 10)

	p.key("d", "KeyD", 68)
	if w := where(); !strings.Contains(w, fmt.Sprintf("difference 2 of %d", data.Diffs)) {
		t.Errorf("after d d: %q", w)
	}
	p.key("D", "KeyD", 68)
	if w := where(); !strings.Contains(w, fmt.Sprintf("difference 1 of %d", data.Diffs)) {
		t.Errorf("after d d D: %q", w)
	}
	p.click("#nextDiff")
	if w := where(); !strings.Contains(w, fmt.Sprintf("difference 2 of %d", data.Diffs)) {
		t.Errorf("after the ≠ next button: %q", w)
	}
	// n to the mutex-belief violation: A's badge has it, B's has nothing.
	for range 3 {
		if strings.Contains(p.text("so-far-0"), "mutex-belief") {
			break
		}
		p.key("n", "KeyN", 78)
	}
	if a, b := p.text("so-far-0"), p.text("so-far-1"); !strings.Contains(a, "mutex-belief") || b != "" {
		t.Errorf("at mutex-belief the badges say A %q, B %q", a, b)
	}

	// b: no background traffic in Redlock, so the quiet button is off and b does nothing.
	p.key("b", "KeyB", 66)
	var views int
	p.eval(`JSON.parse(document.getElementById("data").textContent).views.length`, &views)
	if views != 1 {
		t.Errorf("%d views of a comparison without background traffic", views)
	}
	noProblems(t, p)
}

// TestBrowserQuietToggle opens ZooKeeper's leader failover as HTML and folds its
// pings with b: fewer lines, the cursor stays at the same moment.
func TestBrowserQuietToggle(t *testing.T) {
	path := write(t, export.WriteHTML, run(t, "zk-leader-failover"), export.Options{}, "zk.html")
	p := newBrowser(t).newPage(1600, 1000)
	p.open(path)
	rows := func() string { return strings.SplitN(p.text("where"), " · ", 2)[0] }
	p.key("f", "KeyF", 70) // the leader's crash
	before, detail := rows(), p.text("detail-0")
	p.key("b", "KeyB", 66)
	after := rows()
	var on bool
	p.eval(`document.getElementById("quiet").classList.contains("on")`, &on)
	if before == after || !on || p.text("detail-0") != detail {
		t.Errorf("b: %q then %q (quiet on: %v); the detail %q then %q", before, after, on, detail, p.text("detail-0"))
	}
	p.key("b", "KeyB", 66)
	if rows() != before || p.text("detail-0") != detail {
		t.Errorf("b b: back at %q, want %q", rows(), before)
	}
	noProblems(t, p)
}

// TestBrowserSVG opens the standalone SVG: it draws, its violation bands and
// belief bars are where and what colour the file says.
func TestBrowserSVG(t *testing.T) {
	res := run(t, "redlock-clock-jump")
	path := write(t, export.WriteSVG, res, export.Options{}, "redlock-clock-jump.svg")
	b := newBrowser(t)
	p := b.newPage(1600, 1000)
	t.Logf("redlock-clock-jump.svg: rendered in %v", p.open(path))
	var bands int
	p.eval(`document.querySelectorAll("rect.band").length`, &bands)
	if bands != 3 {
		t.Errorf("%d violation bands, want 3 (quorum-backed, mutex-belief, grant-exclusive)", bands)
	}
	img := p.screenshotAs(t, "redlock-clock-jump-svg.png")
	band := p.rect("rect.band")
	near(t, img, "a violation band", band.X+2, band.Y+2, rgb("#ffe3e3"), 12)
	bar := p.rect("rect.bar")
	var fill string
	p.eval(`getComputedStyle(document.querySelector("rect.bar")).fill`, &fill)
	var c color.RGBA
	fmt.Sscanf(fill, "rgb(%d, %d, %d)", &c.R, &c.G, &c.B)
	near(t, img, "c1's belief bar", bar.X+bar.W/2, bar.Y+min(bar.H, 1000-bar.Y)/2, c, 24)
	near(t, img, "the background", 2, 2, color.RGBA{255, 255, 255, 255}, 8)
	var fontPx float64
	p.eval(`Math.min(...[...document.querySelectorAll("text")].map(e => parseFloat(getComputedStyle(e).fontSize)))`, &fontPx)
	var width float64
	p.eval(`document.documentElement.width.baseVal.value`, &width)
	if scaled := fontPx * 1920 / width; scaled < 14 {
		t.Errorf("drawn 1920 pixels wide, the smallest text is %.1f px", scaled)
	}
	noProblems(t, p)
}

// TestBrowserCompareSVG opens two runs side by side as one SVG: both runs'
// violations are banded, every difference is marked, and drawn 1920 pixels wide
// for a projector its text is still 14 px.
func TestBrowserCompareSVG(t *testing.T) {
	a, b := run(t, "redlock-clock-jump"), run(t, "redlock-no-clock-jump")
	path := filepath.Join(t.TempDir(), "compare.svg")
	if err := os.WriteFile(path, []byte(renderCompare(t, export.WriteCompareSVG, a, b, export.Options{})), 0o644); err != nil {
		t.Fatal(err)
	}
	p := newBrowser(t).newPage(1600, 1000)
	t.Logf("compare.svg: rendered in %v", p.open(path))
	var bands, differs int
	p.eval(`document.querySelectorAll("rect.band").length`, &bands)
	p.eval(`document.querySelectorAll("text.differs").length`, &differs)
	if bands != 3 || differs < 6 {
		t.Errorf("%d violation bands (want A's 3, B has none), %d lines marked ≠", bands, differs)
	}
	img := p.screenshotAs(t, "compare-svg.png")
	diff := p.rect("rect.diff")
	near(t, img, "a difference's tint", diff.X+3, diff.Y+diff.H/2, rgb("#f8e6f8"), 8)
	var fontPx, width float64
	p.eval(`Math.min(...[...document.querySelectorAll("text")].map(e => parseFloat(getComputedStyle(e).fontSize)))`, &fontPx)
	p.eval(`document.documentElement.width.baseVal.value`, &width)
	if scaled := fontPx * 1920 / width; scaled < 14 {
		t.Errorf("two 7-process runs drawn 1920 pixels wide: the smallest text is %.1f px", scaled)
	}
	noProblems(t, p)
}

// mermaidJS finds Mermaid's own library, installed from the npm registry.
func mermaidJS(t *testing.T) string {
	if p := os.Getenv("LOCKSIM_MERMAID_JS"); p != "" {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("LOCKSIM_MERMAID_JS: %v", err)
		}
		return p
	}
	home, _ := os.UserHomeDir()
	p := filepath.Join(home, ".cache/locksim/npm/node_modules/mermaid/dist/mermaid.min.js")
	if _, err := os.Stat(p); err != nil {
		t.Skipf("SKIPPED: Mermaid is not installed (npm install --prefix ~/.cache/locksim/npm mermaid@11, or set LOCKSIM_MERMAID_JS): %v", err)
	}
	return p
}

// TestBrowserMermaid renders every catalogue scenario's Mermaid with Mermaid's own
// library in the browser, every catalogue pair's side by side, and ZooKeeper's
// failover quiet; it looks at Kleppmann's clock jump, and at 3PC's notes.
func TestBrowserMermaid(t *testing.T) {
	js := mermaidJS(t)
	dir := t.TempDir()
	harness := filepath.Join(dir, "mermaid.html")
	page := `<!DOCTYPE html><html><head><meta charset="utf-8"><script src="file://` + js + `"></script></head>` +
		`<body style="margin:0;background:#fff"><div id="out"></div><script>mermaid.initialize({startOnLoad: false});</script></body></html>`
	if err := os.WriteFile(harness, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	b := newBrowser(t)
	p := b.newPage(1600, 1000)
	p.open(harness)
	n := 0
	// draw renders a diagram; it fails the test when Mermaid refuses it or
	// the drawing lacks one of want, and shows it on the page.
	draw := func(name, text string, want ...string) bool {
		t.Helper()
		n++
		var r struct {
			OK    bool
			Error string
			Text  string
		}
		p.eval(fmt.Sprintf(`mermaid.render("m%d", %q).then(r => { document.getElementById("out").innerHTML = r.svg;
			return {OK: true, Text: document.getElementById("out").textContent}; }, e => ({OK: false, Error: String(e && e.message || e)}))`, n, text), &r)
		if !r.OK {
			t.Errorf("%s: Mermaid refuses the diagram: %s", name, r.Error)
			return false
		}
		for _, w := range want {
			if !strings.Contains(r.Text, w) {
				t.Errorf("%s: the rendered diagram lacks %q", name, w)
			}
		}
		// Every note's text lies in its box: a note over several participants
		// is as wide as they are apart, whatever its text, so a long line ran
		// out of it (redlock-clock-jump's grant-exclusive, over c1 and c2, past
		// the diagram's right edge). Mermaid measures text up to about 6 %
		// narrower than this browser's fallback fonts draw it: that is allowed.
		var out []string
		p.eval(`[...document.querySelectorAll("#out rect.note")].flatMap(r => { const b = r.getBoundingClientRect();
			return [...r.parentNode.querySelectorAll("text.noteText")].filter(e => { const t = e.getBoundingClientRect();
				const slack = 0.04 * b.width + 4; return t.width > 0 && (t.left < b.left - slack || t.right > b.right + slack); })
				.map(e => e.textContent + " (" + Math.round(e.getBoundingClientRect().width) + " px in a box of " + Math.round(b.width) + ")"); })`, &out)
		for _, o := range out {
			t.Errorf("%s: a note's text runs out of its box: %q", name, o)
		}
		return true
	}
	cat, err := scenarios.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cat {
		res := scenarios.Run(s, scenarios.RunOptions{})
		if !draw(s.ID, render(t, export.WriteMermaid, res, export.Options{}), "Verdict: "+string(res.Report.Verdict)) || s.ID != "redlock-clock-jump" {
			continue
		}
		box := p.rect("#out svg")
		if box.W < 600 || box.H < 600 {
			t.Errorf("the rendered clock jump is %.0fx%.0f", box.W, box.H)
		}
		var actors int
		p.eval(`new Set([...document.querySelectorAll("#out text.actor")].map(e => e.textContent)).size`, &actors)
		if actors != 7 {
			t.Errorf("%d participants drawn, want 7", actors)
		}
		img := p.screenshotAs(t, "redlock-clock-jump-mermaid.png")
		near(t, img, "the background", 1598, 998, color.RGBA{255, 255, 255, 255}, 8)
		var lines []string
		p.eval(`[...document.querySelectorAll("#out text.noteText")].map(e => e.textContent).filter(s => s.includes("grant-exclusive") || s.includes("while c1's grant"))`, &lines)
		if len(lines) < 2 {
			t.Errorf("the grant-exclusive note is drawn on %d lines: %q", len(lines), lines)
		}
	}
	// The terminal UI's marks, as the rendered diagrams write them: ⏸ for a
	// pause (not the SVG's ‖), ⤴ a clock jump, ╳ a partition, ✗ a crash, ↺ a
	// restart, ★ ☆ a grant given and withdrawn, ● a command, ◆ a violation,
	// ✎ a note, ⚑ a decision.
	for id, marks := range map[string][]string{
		"redis-del-after-expiry":       {"⏸ pause c1", "▶ resume c1", "★ L→c1", "☆ expired", "● acquire", "◆ mutex-belief"},
		"redlock-clock-jump":           {"⤴ clock-jump C", "╳ partition"},
		"redis-restart-no-persistence": {"✗ crash", "↺ restart"},
		"3pc-partition":                {"✎ ", "⚑ COMMIT"},
	} {
		if draw(id+" glyphs", render(t, export.WriteMermaid, run(t, id), export.Options{}), marks...) {
			var text string
			p.eval(`document.getElementById("out").textContent`, &text)
			if strings.Contains(text, "‖") || strings.Contains(text, "◷") {
				t.Errorf("%s: the rendered diagram writes the SVG's stand-in marks ‖ or ◷", id)
			}
		}
	}
	// A note's text is drawn, on lines of its own (3PC's termination protocol).
	threePC := render(t, export.WriteMermaid, run(t, "3pc-partition"), export.Options{})
	draw("3pc-partition", threePC, "termination protocol", "⚑ COMMIT", "⚑ ABORT")
	var lines int
	p.eval(`document.querySelectorAll("#out text.noteText").length`, &lines)
	if notes := strings.Count(threePC, "Note over"); lines < notes+10 {
		t.Errorf("%d lines of notes drawn for %d notes: the long ones are not broken into lines", lines, notes)
	}
	draw("zk-leader-failover --quiet", render(t, export.WriteMermaid, run(t, "zk-leader-failover"), export.Options{Quiet: true}), "Verdict: SAFE")
	for _, pair := range pairs(t) {
		a, b := pair[0], pair[1]
		name := a.Scenario.ID + " --vs " + b.Scenario.ID
		if !draw(name, renderCompare(t, export.WriteCompareMermaid, a, b, export.Options{}), "Verdict A: "+string(a.Report.Verdict),
			"Verdict B: "+string(b.Report.Verdict), "A · "+a.Scenario.ID, "B · "+b.Scenario.ID) || a.Scenario.ID != "redlock-clock-jump" {
			continue
		}
		var boxes, rects int
		p.eval(`document.querySelectorAll("#out rect.rect").length`, &rects)
		p.eval(`new Set([...document.querySelectorAll("#out text.actor")].map(e => e.textContent)).size`, &boxes)
		if rects == 0 || boxes != 7 {
			t.Errorf("%s: %d highlighted differences, %d process names", name, rects, boxes)
		}
		p.screenshotAs(t, "compare-mermaid.png")
	}
	noProblems(t, p)
}

// TestBrowserRenderTimeOfALongRun opens the HTML and SVG of a run of a hundred
// thousand events and reports how long each took to draw (the goal: under 2 s;
// reported, not asserted: speed is measured, never a test's verdict).
func TestBrowserRenderTimeOfALongRun(t *testing.T) {
	res := bigRun(t, 100_000)
	b := newBrowser(t)
	p := b.newPage(1600, 1000)
	for _, c := range []struct {
		name string
		w    writer
		opt  export.Options
	}{{"html", export.WriteHTML, export.Options{}}, {"svg", export.WriteSVG, export.Options{}}, {"svg --full", export.WriteSVG, export.Options{Full: true}}} {
		path := write(t, c.w, res, c.opt, "big."+strings.Fields(c.name)[0])
		st, _ := os.Stat(path)
		start := time.Now()
		took := p.open(path)
		t.Logf("%d events, %s: %.1f MB, first frames after %v (the call took %v)", res.Trace.Len(), c.name, float64(st.Size())/1e6, took, time.Since(start))
		if c.name != "html" {
			continue
		}
		start = time.Now()
		p.key("G", "KeyG", 71)
		var where struct{ Where, Rows string }
		p.eval(`new Promise(r => requestAnimationFrame(() => r({Where: document.getElementById("where").textContent,
			Rows: String(JSON.parse(document.getElementById("data").textContent).views[0].top.length)})))`, &where)
		t.Logf("html: G drew the last row after %v: %s", time.Since(start), where.Where)
		if !strings.HasPrefix(where.Where, "row "+where.Rows+" of "+where.Rows) {
			t.Errorf("G left the cursor at %q, not on the last of %s rows", where.Where, where.Rows)
		}
	}
	noProblems(t, p)
}

// at1920 shows the SVG open in the page 1920 pixels wide, as a projector shows
// a slide, and returns the size its smallest text is drawn at, in pixels, and
// the shape of its viewBox (width over height).
func (p *page) at1920(t *testing.T) (minPx, ratio float64) {
	t.Helper()
	var r struct{ Min, Ratio float64 }
	p.eval(`(() => { const svg = document.documentElement, vb = svg.viewBox.baseVal;
		svg.setAttribute("width", "1920"); svg.removeAttribute("height");
		const scale = svg.getBoundingClientRect().width / vb.width;
		const sizes = [...document.querySelectorAll("text")].filter(e => e.textContent.trim() !== "").map(e => parseFloat(getComputedStyle(e).fontSize) * scale);
		return {Min: Math.min(...sizes), Ratio: vb.width / vb.height}; })()`, &r)
	return r.Min, r.Ratio
}

// TestBrowserStopsSVG opens the walk's slides (--format svg --stops DIR) as a
// projector shows them, 1920 pixels wide: each is 16:9, its smallest text is
// 14 px or more, everything drawn is on the slide, and the question slide asks
// with nothing below the stop while its answer shows the violation.
func TestBrowserStopsSVG(t *testing.T) {
	b := newBrowser(t)
	p := b.newPage(1920, 1080)
	// etcd's times need nanoseconds (7.072666664s): wider than the gutter.
	for _, c := range []struct {
		id    string
		quiet bool
	}{{"zset-time-bucket-overlap", false}, {"redlock-clock-jump", false}, {"etcd-pause", false}, {"etcd-pause", true}} {
		id := c.id
		res := run(t, id)
		dir := t.TempDir()
		var names []string
		err := export.WriteStops(res, export.Options{Quiet: c.quiet}, func(name string, write func(io.Writer) error) error {
			f, err := os.Create(filepath.Join(dir, name))
			if err != nil {
				return err
			}
			defer f.Close()
			names = append(names, name)
			return write(f)
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(names) < 3 {
			t.Fatalf("%s: %d slides", id, len(names))
		}
		for _, name := range names {
			p.open(filepath.Join(dir, name))
			var off []string
			p.eval(`[...document.querySelectorAll("text")].filter(e => { const r = e.getBoundingClientRect();
				return e.textContent.trim() !== "" && (r.left < -1 || r.right > 1921 || r.top < -1 || r.bottom > 1081); }).map(e => e.textContent)`, &off)
			if len(off) > 0 {
				t.Errorf("%s %s: text off the slide: %q", id, name, off)
			}
			if name == "stop-03-question.svg" && id == "zset-time-bucket-overlap" {
				var text string
				p.eval(`document.documentElement.textContent`, &text)
				if !strings.Contains(text, "? Hour 2 begins") || strings.Contains(text, "mutex-belief") || strings.Contains(text, "Verdict") {
					t.Errorf("the question slide: asks %v, shows the violation or the verdict: %v", strings.Contains(text, "? Hour 2"), strings.Contains(text, "mutex-belief"))
				}
				img, png := p.screenshot()
				if dir := os.Getenv("LOCKSIM_SCREENSHOTS"); dir != "" {
					os.WriteFile(filepath.Join(dir, "stop-question.png"), png, 0o644)
				}
				near(t, img, "the question's band", 30, 1080-36-10, rgb("#f3e6fa"), 8)
			}
			if name == "stop-03.svg" && id == "zset-time-bucket-overlap" {
				var text string
				p.eval(`document.documentElement.textContent`, &text)
				if !strings.Contains(text, "mutex-belief") || strings.Contains(text, "? Hour 2") {
					t.Errorf("the answer slide lacks the violation, or still asks")
				}
			}
			px, ratio := p.at1920(t)
			if px < 14 || ratio < 16.0/9-0.001 || ratio > 16.0/9+0.001 {
				t.Errorf("%s %s: drawn 1920 pixels wide its smallest text is %.1f px; its shape %.3f (16:9 is 1.778)", id, name, px, ratio)
			}
		}
	}
	noProblems(t, p)
}

// TestBrowserWindowSVG opens `--from 2s --to 3s` of Kleppmann's clock jump:
// only the rows of that second, and its text 14 px or more at 1920 wide.
func TestBrowserWindowSVG(t *testing.T) {
	res := run(t, "redlock-clock-jump")
	opt := export.Options{Window: &export.Window{From: sim.Time(2 * time.Second), To: sim.Time(3 * time.Second)}}
	path := write(t, export.WriteSVG, res, opt, "window.svg")
	whole := write(t, export.WriteSVG, res, export.Options{}, "whole.svg")
	p := newBrowser(t).newPage(1600, 1000)
	var rows, all int
	p.open(whole)
	p.eval(`document.querySelectorAll("#chunks text.time, g text.time").length`, &all)
	p.open(path)
	var times []string
	p.eval(`[...document.querySelectorAll("g text.time")].map(e => e.textContent)`, &times)
	rows = len(times)
	for _, s := range times {
		d, err := time.ParseDuration(s)
		if err != nil || d < 2*time.Second || d > 3*time.Second {
			t.Errorf("the window draws a row at %q", s)
		}
	}
	if rows == 0 || rows >= all {
		t.Errorf("the window draws %d times, the whole run %d", rows, all)
	}
	var bands int
	p.eval(`document.querySelectorAll("rect.band").length`, &bands)
	if bands != 2 {
		t.Errorf("%d violation bands in [2s, 3s], want mutex-belief's and grant-exclusive's", bands)
	}
	if px, _ := p.at1920(t); px < 14 {
		t.Errorf("drawn 1920 pixels wide, the window's smallest text is %.1f px", px)
	}
	noProblems(t, p)
}

// TestBrowserHTMLWalk walks a story in the HTML viewer opened with --walk, as a
// teacher does with space: the question first with nothing below the stop
// drawn, then the rows and the narration; the verdict only at the end; and the
// keys of the terminal UI's walk (w, r, n, N, ↑, ↓, ?).
func TestBrowserHTMLWalk(t *testing.T) {
	res := run(t, "zset-time-bucket-overlap")
	path := write(t, export.WriteHTML, res, export.Options{Walk: true}, "walk.html")
	p := newBrowser(t).newPage(1600, 1000)
	p.open(path)
	var beats []struct {
		Stop, End int
		Q         string `json:"q"`
		Narr      string `json:"narr"`
	}
	p.eval(`JSON.parse(document.getElementById("data").textContent).views[0].lanes[0].beats`, &beats)
	var rows int
	p.eval(`JSON.parse(document.getElementById("data").textContent).views[0].top.length`, &rows)
	type state struct {
		Row                      int
		Walking, Hiding          bool
		Verdict, Later, Spoilers bool // shown
		Summary                  bool // the scenario's one sentence, which may be the answer
		Hidden                   float64
		CursorEnd, Veil          float64
		Narration, Play, Title   string
	}
	shown := func(sel string) string {
		return fmt.Sprintf(`getComputedStyle(document.querySelector(%q)).display !== "none"`, sel)
	}
	get := func() state {
		var s state
		p.eval(`(() => { const c = document.getElementById("cursor"), v = document.getElementById("veil");
			const veil = +v.getAttribute("height"), chunks = [...document.querySelectorAll("#chunks text")];
			return {Row: +document.getElementById("where").textContent.split(" ")[1] - 1,
				Walking: document.body.classList.contains("walking"), Hiding: document.body.classList.contains("hiding"),
				Verdict: `+shown("h1 .verdict")+`, Later: `+shown("h1 .verdict-later")+`, Summary: `+shown(".summary")+`, Spoilers: [...document.querySelectorAll(".spoils")].some(e => getComputedStyle(e).display !== "none"), // the summary, the invariants...
				Hidden: chunks.filter(e => e.getBBox().y > veil).length,
				CursorEnd: +c.getAttribute("y") + +c.getAttribute("height") - 3, Veil: veil, // the veil stops 3 short of the cursor's end
				Narration: document.getElementById("narration-0").textContent, Play: document.getElementById("play").textContent,
				Title: document.title}; })()`, &s)
		return s
	}
	space := func() { p.key(" ", "Space", 32) }
	// The band of the run's violation, in the page: painted only once revealed.
	bandPainted := func(what string) bool {
		t.Helper()
		var r rect
		p.eval(`(() => { const b = document.querySelector("#chunks rect.band"); if (!b) return {X: -1};
			b.scrollIntoView({block: "center"}); const r = b.getBoundingClientRect(); return {X: r.x, Y: r.y, W: r.width, H: r.height}; })()`, &r)
		if r.X < 0 {
			return false
		}
		img, _ := p.screenshot()
		cr, cg, cb, _ := img.At(int(r.X+r.W*0.75), int(r.Y+r.H/2)).RGBA()
		return cr>>8 > 240 && cg>>8 < 240 && cb>>8 < 240 // the band's pink, not the page's white
	}

	s := get()
	if !s.Walking || !s.Hiding || s.Verdict || !s.Later || s.Spoilers || s.Summary || s.Row != 0 || s.Veil != s.CursorEnd || strings.Contains(s.Title, "UNSAFE") {
		t.Fatalf("--walk opens as %+v: want walking at row 1, the rows below and the verdict hidden", s)
	}
	if s.Hidden == 0 || !strings.HasPrefix(s.Play, "▶ next stop") {
		t.Errorf("opening: %v rows' texts lie below the veil, the play button says %q", s.Hidden, s.Play)
	}
	if bandPainted("opening") {
		t.Error("opening the walk, the violation's band below the cursor is painted")
	}
	asked := false
	for i := 0; i < 3*len(beats)+3 && get().Row < rows-1; i++ {
		space()
		s = get()
		b := beats[0]
		for _, bb := range beats {
			if bb.Stop <= s.Row {
				b = bb
			}
		}
		switch {
		case b.Q != "" && s.Row == b.Stop:
			asked = true
			if !strings.Contains(s.Narration, "? "+b.Q) || !strings.Contains(s.Narration, "space: the answer") || !strings.HasPrefix(s.Play, "▶ the answer") {
				t.Errorf("at the question's stop the narration says %q, the button %q", s.Narration, s.Play)
			}
			if bandPainted("the question") {
				t.Error("while the question is asked, the violation's band (its answer) is painted")
			}
			p.screenshotAs(t, "walk-question-html.png")
			space()
			s = get()
			if s.Row != b.End || s.Narration != b.Narr || strings.Contains(s.Narration, "?") {
				t.Errorf("the answer: row %d, narration %q; want row %d, %q", s.Row+1, s.Narration, b.End+1, b.Narr)
			}
			if !bandPainted("the answer") {
				t.Error("the answer does not paint the violation's band")
			}
		case s.Row == b.End && b.Narr != "" && s.Narration != b.Narr:
			t.Errorf("at the end of the beat from row %d the narration says %q, want %q", b.Stop+1, s.Narration, b.Narr)
		}
		if s.Veil != s.CursorEnd && s.Row < rows-1 {
			t.Errorf("row %d: the veil ends at %v, the cursor at %v", s.Row+1, s.Veil, s.CursorEnd)
		}
		if s.Row < rows-1 && (s.Verdict || !s.Later) {
			t.Errorf("row %d of %d: the verdict is shown before the end", s.Row+1, rows)
		}
	}
	if !asked {
		t.Error("the walk never asked the scenario's question")
	}
	s = get()
	if s.Row != rows-1 || !s.Verdict || s.Later || !s.Spoilers || s.Hiding || !strings.Contains(s.Title, "UNSAFE") {
		t.Errorf("at the end of the walk: %+v; want the last row, the verdict, the invariants", s)
	}

	// The keys: g back to the start (the verdict hides again), n and N to the
	// violation and back, ↓ ↑, w off (everything shown, space plays) and on, r.
	p.key("g", "KeyG", 71)
	if s = get(); s.Row != 0 || s.Verdict {
		t.Errorf("g: row %d, verdict shown %v", s.Row+1, s.Verdict)
	}
	var viol int
	p.eval(`JSON.parse(document.getElementById("data").textContent).views[0].viol[0]`, &viol)
	p.key("n", "KeyN", 78)
	if s = get(); s.Row != viol || s.Veil != s.CursorEnd {
		t.Errorf("n: row %d (want the violation's, %d), veil %v, cursor %v", s.Row+1, viol+1, s.Veil, s.CursorEnd)
	}
	p.key("ArrowDown", "ArrowDown", 40)
	if s = get(); s.Row != viol+1 || s.Veil != s.CursorEnd {
		t.Errorf("↓ after n: row %d, want %d, the veil under it", s.Row+1, viol+2)
	}
	p.key("N", "KeyN", 78)
	if s = get(); s.Row != viol {
		t.Errorf("N: row %d, want the violation's, %d", s.Row+1, viol+1)
	}
	p.key("ArrowUp", "ArrowUp", 38)
	if s = get(); s.Row != viol-1 {
		t.Errorf("↑: row %d, want %d", s.Row+1, viol)
	}
	p.key("w", "KeyW", 87)
	if s = get(); s.Walking || s.Hiding || !s.Verdict || s.Veil == s.CursorEnd || !strings.HasPrefix(s.Play, "▶ play") {
		t.Errorf("w (off): %+v", s)
	}
	p.key("r", "KeyR", 82)
	if s = get(); !s.Hiding || s.Veil != s.CursorEnd || s.Verdict {
		t.Errorf("r (reveal on): %+v", s)
	}
	p.key("r", "KeyR", 82)
	p.key("w", "KeyW", 87)
	if s = get(); !s.Walking || !s.Hiding {
		t.Errorf("w (on): %+v", s)
	}
	p.key("?", "Slash", 191)
	var open bool
	p.eval(`!document.getElementById("helpbox").hidden && document.getElementById("helpbox").textContent.includes("walk the story")`, &open)
	if !open {
		t.Error("? does not open the help with the walk's keys")
	}
	p.key("Escape", "Escape", 27)
	p.eval(`!document.getElementById("helpbox").hidden`, &open)
	if open {
		t.Error("esc does not close the help")
	}
	p.click("#walk")
	if s = get(); s.Walking {
		t.Error("the walk button does not end the walk")
	}
	p.screenshotAs(t, "walk-html.png")
	noProblems(t, p)
}
