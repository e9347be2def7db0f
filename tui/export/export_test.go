package export_test

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"flag"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
	"github.com/locksim/locksim/tui/export"
	"github.com/locksim/locksim/tui/internal/fixture"
	"github.com/locksim/locksim/tui/layout"
)

// update rewrites the golden files instead of comparing with them:
//
//	go test ./tui/export -run TestGolden -update
var update = flag.Bool("update", false, "rewrite testdata/export/* from the current output")

const goldenDir = "../../testdata/export"

// goldenScenarios are drawn in full in testdata/export: a clock jump under
// partitions (Kleppmann's Redlock counterexample), a paused holder whose stale
// write a fencing token stops, and 3PC's disagreement under a partition.
var goldenScenarios = []string{"redlock-clock-jump", "fencing-token", "3pc-partition"}

// run is scenario id's run with snapshots, as the UI makes it (shared by the
// package's tests: see fixture_test.go).
func run(t testing.TB, id string) *scenarios.Result {
	t.Helper()
	return fixture.Run(t, id, true)
}

type writer func(io.Writer, *scenarios.Result, export.Options) error

func render(t testing.TB, w writer, res *scenarios.Result, opt export.Options) string {
	t.Helper()
	var b bytes.Buffer
	if err := w(&b, res, opt); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// goldenPairs are drawn side by side in testdata/export: Kleppmann's clock jump
// and the same run without it, DEL and compare-and-delete after an expiry, and
// 3PC under a partition and under the coordinator's crash.
var goldenPairs = [][2]string{
	{"redlock-clock-jump", "redlock-no-clock-jump"},
	{"redis-del-after-expiry", "redis-cad-after-expiry"},
	{"3pc-partition", "3pc-coordinator-crash"},
}

// golden compares got with testdata/export/name, or rewrites it with -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(goldenDir, name)
	if *update {
		if err := os.MkdirAll(goldenDir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (create it with: go test ./tui/export -run TestGolden -update)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs from %s; if the change is intended: go test ./tui/export -run TestGolden -update\n%s",
			name, path, simtest.FirstDiff(string(want), got))
	}
}

// TestGolden keeps the Mermaid and SVG of three catalogue scenarios, and the
// Mermaid, SVG and JSON of three catalogue pairs side by side, as files, so a
// change in a drawing shows up as a diff (and the Mermaid renders on GitHub).
func TestGolden(t *testing.T) {
	for _, id := range goldenScenarios {
		res := run(t, id)
		for ext, w := range map[string]writer{".mmd": export.WriteMermaid, ".svg": export.WriteSVG} {
			t.Run(id+ext, func(t *testing.T) { golden(t, id+ext, render(t, w, res, export.Options{})) })
		}
	}
	for _, pair := range goldenPairs {
		a, b := run(t, pair[0]), run(t, pair[1])
		name := pair[0] + "--vs--" + pair[1]
		for ext, w := range map[string]compareWriter{".mmd": export.WriteCompareMermaid, ".svg": export.WriteCompareSVG, ".json": compareJSON} {
			t.Run(name+ext, func(t *testing.T) { golden(t, name+ext, renderCompare(t, w, a, b, export.Options{})) })
		}
	}
}

type compareWriter func(io.Writer, *scenarios.Result, *scenarios.Result, export.Options) error

func compareJSON(w io.Writer, a, b *scenarios.Result, _ export.Options) error {
	return export.WriteCompareJSON(w, a, b, scenarios.JSONOptions{})
}

func renderCompare(t testing.TB, w compareWriter, a, b *scenarios.Result, opt export.Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := w(&buf, a, b, opt); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// pairs runs every catalogue scenario that names its control (compare-with)
// and its control.
func pairs(t *testing.T) [][2]*scenarios.Result {
	t.Helper()
	cat, _ := catalogueRuns(t)
	var out [][2]*scenarios.Result
	for _, s := range cat {
		if s.CompareWith == "" {
			continue
		}
		// A catalogue scenario's control is the catalogue scenario its
		// compare-with names (Scenario.Control loads it by id).
		out = append(out, [2]*scenarios.Result{catRun(t, s.ID), catRun(t, s.CompareWith)})
	}
	if len(out) < 20 {
		t.Fatalf("only %d catalogue pairs", len(out))
	}
	return out
}

// svgClasses parses an SVG as XML and counts the elements of each class; it
// fails the test when the SVG is not XML or its root is not an SVG.
func svgClasses(t *testing.T, name, svg string) map[string]int {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	root, classes := "", map[string]int{}
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("%s: the SVG is not XML: %v", name, err)
		}
		if el, ok := tok.(xml.StartElement); ok {
			if root == "" {
				root = el.Name.Space + " " + el.Name.Local
			}
			for _, a := range el.Attr {
				if a.Name.Local == "class" {
					classes[a.Value]++
				}
			}
		}
	}
	if root != "http://www.w3.org/2000/svg svg" {
		t.Errorf("%s: the root element is %q, not an SVG", name, root)
	}
	return classes
}

// violations counts a run's violations and the processes they name.
func violations(res *scenarios.Result) (n, named int) {
	for _, r := range res.Report.Results {
		n += len(r.Violations)
		for _, v := range r.Violations {
			named += len(v.Procs)
		}
	}
	return n, named
}

var violationMark = "mark k" + strconv.Itoa(int(layout.CellViolation))

// TestEverySVGIsXMLWithItsViolationsMarked parses every catalogue scenario's SVG
// as XML, and finds one marked band per violation the checker reported.
func TestEverySVGIsXMLWithItsViolationsMarked(t *testing.T) {
	t.Parallel()
	cat, runs := catalogueRuns(t)
	for i, s := range cat {
		res := runs[i]
		classes := svgClasses(t, s.ID, render(t, export.WriteSVG, res, export.Options{}))
		n, named := violations(res)
		if classes["band"] != n {
			t.Errorf("%s: %d violation bands for %d violations", s.ID, classes["band"], n)
		}
		if marks := classes[violationMark]; marks > named || (named > 0 && marks == 0) {
			t.Errorf("%s: %d violation marks for %d processes named by violations", s.ID, marks, named)
		}
	}
}

// TestEveryCompareSVGIsXMLWithItsDifferencesMarked draws every catalogue pair
// side by side: the SVG parses as XML, each run's violations have their bands,
// and every line only one run has is marked ≠ and tinted on its side.
func TestEveryCompareSVGIsXMLWithItsDifferencesMarked(t *testing.T) {
	t.Parallel()
	for _, p := range pairs(t) {
		a, b := p[0], p[1]
		name := a.Scenario.ID + " --vs " + b.Scenario.ID
		classes := svgClasses(t, name, renderCompare(t, export.WriteCompareSVG, a, b, export.Options{}))
		na, _ := violations(a)
		nb, _ := violations(b)
		if classes["band"] != na+nb {
			t.Errorf("%s: %d violation bands for %d + %d violations", name, classes["band"], na, nb)
		}
		c := layout.Compare(layout.New(a.Trace, &a.Report), layout.New(b.Trace, &b.Report))
		differing, tinted := 0, 0 // a differing violation row keeps its red band
		for i := range c.Len() {
			if c.Differs(i) {
				differing++
				ra, rb := c.Own(i)
				if ra >= 0 && c.A.RowEvent(ra) >= 0 || rb >= 0 && c.B.RowEvent(rb) >= 0 {
					tinted++
				}
			}
		}
		// A long comparison is cut: its first and last lines stay, and of the
		// differences between them the first CutHead.
		if marked := classes["differs"]; marked != differing && (c.Len() <= export.CutHead+export.CutTail || marked < export.CutHead || marked > differing) {
			t.Errorf("%s: %d lines marked ≠ for %d lines only one run has", name, marked, differing)
		}
		if classes["diff"] > tinted || tinted > 0 && classes["diff"] == 0 {
			t.Errorf("%s: %d tinted rows for %d differing event rows", name, classes["diff"], tinted)
		}
	}
}

// references lists what a document would make a browser fetch: the values of
// its src, href and url(), and its @imports.
func references(doc string) []string {
	low := strings.ToLower(doc)
	var out []string
	for _, key := range []string{"src=", "href=", "url(", "@import", "action=", "poster=", "srcset="} {
		for i := 0; ; {
			j := strings.Index(low[i:], key)
			if j < 0 {
				break
			}
			start := i + j + len(key)
			end := len(low)
			if k := strings.IndexAny(low[start:], " >)\n"); k >= 0 {
				end = start + k
			}
			out = append(out, key+low[start:end])
			i = start
		}
	}
	return out
}

// noReferences fails the test when a document would load anything from outside
// itself: http, or a protocol-relative //, in any src, href or url(), or an
// @import.
func noReferences(t *testing.T, name, doc string) {
	t.Helper()
	refs := references(doc)
	for _, ref := range refs {
		if strings.HasPrefix(ref, "@import") || strings.Contains(ref, "http") || strings.Contains(ref, "//") {
			t.Errorf("%s refers outside itself: %q", name, ref)
		}
	}
	if len(refs) == 0 {
		t.Errorf("%s: the check found no src, href or url() at all: it is not looking", name)
	}
}

// viewerData is the HTML viewer's data, as its script reads it.
type viewerData struct {
	Runs []struct {
		Events [][]any `json:"events"`
	} `json:"runs"`
	Views []struct {
		Name   string    `json:"name"`
		Top    []float64 `json:"top"`
		Life   string    `json:"life"`
		Chunks []string  `json:"chunks"`
		Lanes  []struct {
			At    []int `json:"at"`
			Event []int `json:"event"`
			Viol  []struct {
				Line int `json:"line"`
			} `json:"viol"`
		} `json:"lanes"`
		Viol []int `json:"viol"`
		Diff []int `json:"diff"`
	} `json:"views"`
	Start int `json:"start"`
}

// readViewer reads the viewer's data out of an HTML file, and checks that
// every piece of drawing in it parses as SVG (the script puts it in the page
// as it is).
func readViewer(t *testing.T, name, doc string) viewerData {
	t.Helper()
	const open = `<script type="application/json" id="data">`
	i := strings.Index(doc, open)
	j := strings.Index(doc[i+len(open):], "</script>")
	if i < 0 || j < 0 {
		t.Fatalf("%s: no viewer data", name)
	}
	var d viewerData
	if err := json.Unmarshal([]byte(doc[i+len(open):i+len(open)+j]), &d); err != nil {
		t.Fatalf("%s: the viewer data is not JSON: %v", name, err)
	}
	for _, v := range d.Views {
		for k, chunk := range append([]string{v.Life}, v.Chunks...) {
			svgClasses(t, fmt.Sprintf("%s, view %s, chunk %d", name, v.Name, k-1), `<svg xmlns="http://www.w3.org/2000/svg"><g>`+chunk+`</g></svg>`)
		}
	}
	return d
}

// TestHTMLAndSVGReferenceNothing checks that every catalogue scenario's HTML and
// SVG, and every catalogue pair's side by side, load nothing from outside the
// file, and that the drawing the viewer's script puts in the page is XML.
// The HTML of the longest runs (over 5000 events, all drawn: the HTML is never
// cut) takes most of the time. By default (and under -short) the HTML of every
// run and pair up to 5000 events is checked, and of one run over: the
// shortest of them, for what only a long run's page has (many chunks; a pair's
// page is made by the same writeHTML and viewData from its drawing); every
// SVG is checked. -tags long checks the HTML of them all.
func TestHTMLAndSVGReferenceNothing(t *testing.T) {
	t.Parallel()
	cat, runs := catalogueRuns(t)
	all := long(t, "the HTML of every run and pair up to 5000 events, and of the shortest run over", "the HTML of every run and pair")
	events := func(rs ...*scenarios.Result) int {
		n := 0
		for _, r := range rs {
			n += r.Trace.Len()
		}
		return n
	}
	// firstLong is the fewest events of the runs over 5000: the one long run
	// whose HTML the short form checks.
	firstLong := func(sizes []int) int {
		least := -1
		for _, n := range sizes {
			if n > 5000 && (least < 0 || n < least) {
				least = n
			}
		}
		return least
	}
	var sizes []int
	for _, res := range runs {
		sizes = append(sizes, events(res))
	}
	keep := firstLong(sizes)
	// Each run, and each pair, is a subtest of its own, so that the two
	// cores share them.
	for i, s := range cat {
		res := runs[i]
		html := all || events(res) <= 5000 || events(res) == keep
		t.Run(s.ID, func(t *testing.T) {
			t.Parallel()
			noReferences(t, s.ID+" svg", render(t, export.WriteSVG, res, export.Options{}))
			if html {
				html := render(t, export.WriteHTML, res, export.Options{})
				noReferences(t, s.ID+" html", html)
				readViewer(t, s.ID+" html", html)
			}
		})
	}
	for _, p := range pairs(t) {
		name := p[0].Scenario.ID + " --vs " + p[1].Scenario.ID
		html := all || events(p[0], p[1]) <= 5000
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			noReferences(t, name+" svg", renderCompare(t, export.WriteCompareSVG, p[0], p[1], export.Options{}))
			if html {
				html := renderCompare(t, export.WriteCompareHTML, p[0], p[1], export.Options{})
				noReferences(t, name+" html", html)
				readViewer(t, name+" html", html)
			}
		})
	}
	// The check itself sees what it must refuse.
	for _, bad := range []string{`<script src="https://cdn.example/x.js">`, `<img src=//cdn.example/a.png>`, `@import "x.css"`,
		`style="background:url('http://a/b')"`} {
		if refs := references(bad); len(refs) != 1 || !(strings.Contains(refs[0], "//") || strings.HasPrefix(refs[0], "@import")) {
			t.Errorf("references(%q) = %q", bad, refs)
		}
	}
}

// TestMermaidTellsTheStory checks the diagram of Kleppmann's clock jump against
// its trace: every participant in the timeline's order, one arrow per delivered
// or lost message, a note for the clock jump and each violation, balanced
// activations for the two beliefs, the verdict last.
func TestMermaidTellsTheStory(t *testing.T) {
	res := run(t, "redlock-clock-jump")
	out := render(t, export.WriteMermaid, res, export.Options{})
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if lines[0] != "sequenceDiagram" {
		t.Fatalf("first line %q", lines[0])
	}
	count := func(re string) int { return len(regexp.MustCompile(`(?m)`+re).FindAllString(out, -1)) }
	participants := regexp.MustCompile(`(?m)^    participant p\d+ as (\S+)$`).FindAllStringSubmatch(out, -1)
	var names []string
	for _, p := range participants {
		names = append(names, p[1])
	}
	if got := strings.Join(names, " "); got != strings.Join(res.Trace.Names, " ") {
		t.Errorf("participants %q, want the processes %q", got, res.Trace.Names)
	}
	delivered, lost := 0, 0
	for i := range res.Trace.Len() {
		switch res.Trace.Event(i).Kind {
		case sim.EvDeliver:
			delivered++
		case sim.EvDrop:
			lost++
		}
	}
	if got := count(`^    p\d+->>p\d+: `); got != delivered {
		t.Errorf("%d arrows for %d deliveries", got, delivered)
	}
	if got := count(`^    p\d+-xp\d+: .*\(lost: `); got != lost {
		t.Errorf("%d crossed arrows for %d lost messages", got, lost)
	}
	if a, d := count(`^    activate `), count(`^    deactivate `); a != 2 || d != 2 {
		t.Errorf("%d activations and %d deactivations: want c1's and c2's beliefs", a, d)
	}
	for _, want := range []string{"Note over p2: ⤴ clock-jump C wall +15.000s", "◆ quorum-backed:", "◆ mutex-belief:", "◆ grant-exclusive:"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if last := lines[len(lines)-1]; !strings.HasPrefix(last, "    Note over p0,p6: Verdict: UNSAFE") {
		t.Errorf("the last line is %q, not the verdict", last)
	}
	if strings.Contains(out, "c1#1") {
		t.Errorf("# is not escaped: Mermaid reads #...; as an entity")
	}
}

// TestLongRunsAreCutWhereRunCutsThem: a long run's Mermaid and SVG keep the rows
// `locksim run` keeps, say how many they left out, and keep everything with Full.
func TestLongRunsAreCutWhereRunCutsThem(t *testing.T) {
	res := run(t, "redis-contention")
	rows := layout.New(res.Trace, &res.Report).Len()
	left := rows - export.CutHead - export.CutTail
	for name, w := range map[string]writer{"mermaid": export.WriteMermaid, "svg": export.WriteSVG} {
		cut := render(t, w, res, export.Options{})
		if want := strconv.Itoa(left) + " rows left out"; !strings.Contains(cut, want) {
			t.Errorf("%s: no %q", name, want)
		}
		full := render(t, w, res, export.Options{Full: true})
		if strings.Contains(full, "rows left out") || len(full) < 4*len(cut) {
			t.Errorf("%s --full: %d bytes against %d cut, or still cut", name, len(full), len(cut))
		}
	}
}

// TestNotesShowTheirText: the scenario's notes (`note when`, `note at`) are
// narration, and each export shows their text, not a bare mark: 3PC's
// termination protocol as the scenario tells it.
func TestNotesShowTheirText(t *testing.T) {
	for _, id := range []string{"3pc-partition", "2pc-partition"} { // note when ... on a process; note at ... on none
		res := run(t, id)
		var notes []string
		for i := range res.Trace.Len() {
			if e := res.Trace.Event(i); e.Kind == sim.EvNote {
				notes = append(notes, scenarios.NoteText(res.Trace, e))
			}
		}
		if len(notes) < 2 {
			t.Fatalf("%s has %d notes", id, len(notes))
		}
		svg := render(t, export.WriteSVG, res, export.Options{Full: true})
		said := regexp.MustCompile(`<text class="nsaid"[^>]*>([^<]*)</text>`).FindAllStringSubmatch(svg, -1)
		var lines []string
		for _, s := range said {
			lines = append(lines, html.UnescapeString(s[1]))
		}
		mmd := render(t, export.WriteMermaid, res, export.Options{Full: true})
		mmd = strings.NewReplacer("<br>", " ", "#59;", ";", "#35;", "#", "#lt;", "<", "#gt;", ">").Replace(mmd)
		page := render(t, export.WriteHTML, res, export.Options{})
		d := readViewer(t, id, page)
		for _, n := range notes {
			if !strings.Contains(strings.Join(lines, " "), "✎ "+n) {
				t.Errorf("%s: the SVG does not write the note %q; its notes say %q", id, n, lines)
			}
			if !strings.Contains(mmd, "✎ "+n) {
				t.Errorf("%s: the Mermaid diagram does not write the note %q", id, n)
			}
			found := false
			for _, e := range d.Runs[0].Events {
				found = found || slices.Contains(e, any(n))
			}
			if !found || !strings.Contains(strings.Join(d.Views[0].Chunks, ""), `class="nsaid"`) {
				t.Errorf("%s: the HTML's detail or drawing lacks the note %q", id, n)
			}
		}
	}
}

// TestQuietFoldsBackgroundTraffic: with Quiet, ZooKeeper's pings leave the
// drawing and the diagram (issue 16's quiet view, declared by the protocols),
// and the HTML carries both views, starting in the quiet one.
func TestQuietFoldsBackgroundTraffic(t *testing.T) {
	res := run(t, "zk-leader-failover")
	full := export.Options{Full: true}
	quiet := export.Options{Full: true, Quiet: true}
	loud, hushed := render(t, export.WriteMermaid, res, full), render(t, export.WriteMermaid, res, quiet)
	for _, ping := range []string{": PING", ": LEADERPING", ": PINGACK"} {
		if !strings.Contains(loud, ping) || strings.Contains(hushed, ping) {
			t.Errorf("%q: in the diagram %v, in the quiet one %v", ping, strings.Contains(loud, ping), strings.Contains(hushed, ping))
		}
	}
	svg := svgClasses(t, "quiet svg", render(t, export.WriteSVG, res, quiet))
	if svg["fold"] == 0 || svg["band"] != 0 {
		t.Errorf("the quiet SVG has %d ticks of folded traffic and %d violation bands", svg["fold"], svg["band"])
	}
	if all := svgClasses(t, "svg", render(t, export.WriteSVG, res, full)); all["msg"] < 3*svg["msg"] || all["fold"] != 0 {
		t.Errorf("quiet kept %d of %d arrows; the full view has %d ticks", svg["msg"], all["msg"], all["fold"])
	}
	for _, opt := range []export.Options{{}, {Quiet: true}} {
		d := readViewer(t, "html", render(t, export.WriteHTML, res, opt))
		if len(d.Views) != 2 || d.Views[1].Name != "quiet" || len(d.Views[1].Top) >= len(d.Views[0].Top)/3 {
			t.Fatalf("the HTML's views: %d", len(d.Views))
		}
		if want := map[bool]int{false: 0, true: 1}[opt.Quiet]; d.Start != want {
			t.Errorf("Quiet %v: the viewer starts in view %d", opt.Quiet, d.Start)
		}
	}
	if d := readViewer(t, "html", render(t, export.WriteHTML, run(t, "redlock-clock-jump"), export.Options{})); len(d.Views) != 1 {
		t.Errorf("a run with no background traffic has %d views", len(d.Views))
	}
}

// TestCompareLinesTheRunsUp: side by side, each format carries layout.Compare's
// lining-up of Kleppmann's clock jump against the same run without it: the
// first difference is the jump on C, only run A has it, and both verdicts are
// there.
func TestCompareLinesTheRunsUp(t *testing.T) {
	a, b := run(t, "redlock-clock-jump"), run(t, "redlock-no-clock-jump")
	c := layout.Compare(layout.New(a.Trace, &a.Report), layout.New(b.Trace, &b.Report))
	first := c.Differences()[0]
	ra, rb := c.Own(first)
	if rb >= 0 || a.Trace.Event(c.A.RowEvent(ra)).Kind != sim.EvClockJump {
		t.Fatalf("the first difference is not A's clock jump: rows %d, %d", ra, rb)
	}

	d := readViewer(t, "compare html", renderCompare(t, export.WriteCompareHTML, a, b, export.Options{}))
	v := d.Views[0]
	if len(d.Runs) != 2 || len(v.Lanes) != 2 || len(v.Top) != c.Len() || !slices.Equal(v.Diff, c.Differences()) {
		t.Fatalf("the viewer has %d runs, %d lanes, %d lines (want %d), differences %v (want %v)", len(d.Runs), len(v.Lanes), len(v.Top), c.Len(), v.Diff, c.Differences())
	}
	for i := range c.Len() {
		wa, wb := c.At(i)
		if v.Lanes[0].At[i] != wa || v.Lanes[1].At[i] != wb {
			t.Fatalf("line %d: the viewer's rows %d, %d; the comparison's %d, %d", i, v.Lanes[0].At[i], v.Lanes[1].At[i], wa, wb)
		}
	}
	if ev := v.Lanes[0].Event[v.Lanes[0].At[first]]; !strings.HasPrefix(d.Runs[0].Events[ev][3].(string), "clock-jump C") {
		t.Errorf("at the first difference the viewer's A row is %v", d.Runs[0].Events[ev])
	}

	mmd := renderCompare(t, export.WriteCompareMermaid, a, b, export.Options{})
	if strings.Count(mmd, "\n    rect ") != len(c.Differences()) || strings.Count(mmd, "\n    box ") != 2 {
		t.Errorf("%d highlighted differences for %d, %d boxes", strings.Count(mmd, "\n    rect "), len(c.Differences()), strings.Count(mmd, "\n    box "))
	}
	jump := strings.Index(mmd, "Note over a2: ⤴ clock-jump C")
	if rect := strings.Index(mmd, "\n    rect "); jump < 0 || rect < 0 || rect > jump || strings.Contains(mmd, "Note over b2: ⤴") {
		t.Errorf("the clock jump is not A's first highlighted difference:\n%s", mmd)
	}
	for _, want := range []string{"participant a0 as A", "participant b0 as A", "Verdict A: UNSAFE", "Verdict B: SAFE"} {
		if !strings.Contains(mmd, want) {
			t.Errorf("the compare diagram lacks %q", want)
		}
	}

	svg := renderCompare(t, export.WriteCompareSVG, a, b, export.Options{})
	for _, want := range []string{"A  redlock-clock-jump  ·  seed 1  ·  UNSAFE", "B  redlock-no-clock-jump  ·  seed 1  ·  SAFE",
		"Verdicts: A UNSAFE  ·  B SAFE", "locksim run redlock-clock-jump --vs redlock-no-clock-jump --seed 1"} {
		if !strings.Contains(svg, want) {
			t.Errorf("the compare SVG lacks %q", want)
		}
	}
}
