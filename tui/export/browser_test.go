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
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/scenarios"
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
	p.eval(`JSON.parse(document.getElementById("data").textContent).top.length`, &rows)
	p.eval(`JSON.parse(document.getElementById("data").textContent).viol[0].row`, &firstViol)
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
	if d := p.text("detail"); !strings.Contains(d, "VIOLATION of quorum-backed") {
		t.Errorf("the detail at the first violation says %q", d)
	}
	p.click("#next")
	step("the next button", fmt.Sprintf("row %d of %d", firstViol+2, rows))
	if d := p.text("detail"); !strings.Contains(d, "its own clock") {
		t.Errorf("an event's detail lacks the process's clock: %q", d)
	}
	p.eval(`+document.querySelector("li.st-violated a.jump").dataset.row`, &mutexRow)
	p.click("li.st-violated a.jump")
	step("a click on mutex-belief's violation", fmt.Sprintf("row %d of %d", mutexRow+1, rows))
	if d := p.text("detail"); !strings.Contains(d, "mutex-belief") {
		t.Errorf("after the click the detail says %q", d)
	}
	if s := p.text("so-far"); !strings.Contains(s, "quorum-backed") || !strings.Contains(s, "mutex-belief") {
		t.Errorf("the header's badge says %q at the mutex-belief violation", s)
	}
	if n := p.text("narration"); !strings.Contains(n, "c2") {
		t.Errorf("the narration at c2's acquisition says %q", n)
	}
	var drawn int
	p.eval(`document.querySelectorAll("#chunks text").length`, &drawn)
	if drawn == 0 {
		t.Error("no row of the timeline is drawn")
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
// library in the browser, and looks at Kleppmann's clock jump.
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
	cat, err := scenarios.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range cat {
		text := render(t, export.WriteMermaid, scenarios.Run(s, scenarios.RunOptions{}), export.Options{})
		var r struct {
			OK    bool
			Error string
			SVG   string
		}
		p.eval(fmt.Sprintf(`mermaid.render("m%d", %q).then(r => ({OK: true, SVG: r.svg}), e => ({OK: false, Error: String(e && e.message || e)}))`, i, text), &r)
		switch {
		case !r.OK:
			t.Errorf("%s: Mermaid refuses the diagram: %s", s.ID, r.Error)
		case !strings.Contains(r.SVG, "Verdict: "+string(scenarios.Run(s, scenarios.RunOptions{}).Report.Verdict)):
			t.Errorf("%s: the rendered diagram has no verdict", s.ID)
		}
		if s.ID != "redlock-clock-jump" || !r.OK {
			continue
		}
		p.eval(fmt.Sprintf(`(() => { document.getElementById("out").innerHTML = %q; return true; })()`, r.SVG), nil)
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
			Rows: String(JSON.parse(document.getElementById("data").textContent).top.length)})))`, &where)
		t.Logf("html: G drew the last row after %v: %s", time.Since(start), where.Where)
		if !strings.HasPrefix(where.Where, "row "+where.Rows+" of "+where.Rows) {
			t.Errorf("G left the cursor at %q, not on the last of %s rows", where.Where, where.Rows)
		}
	}
	noProblems(t, p)
}
