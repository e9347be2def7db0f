package export_test

import (
	"bytes"
	"encoding/xml"
	"flag"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
	"github.com/locksim/locksim/tui/export"
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

func run(t testing.TB, id string) *scenarios.Result {
	t.Helper()
	s, err := scenarios.Load(id)
	if err != nil {
		t.Fatal(err)
	}
	return scenarios.Run(s, scenarios.RunOptions{Snapshots: true})
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

// TestGolden keeps the Mermaid and SVG of three catalogue scenarios as files, so a
// change in a drawing shows up as a diff (and the Mermaid renders on GitHub).
func TestGolden(t *testing.T) {
	for _, id := range goldenScenarios {
		res := run(t, id)
		for ext, w := range map[string]writer{".mmd": export.WriteMermaid, ".svg": export.WriteSVG} {
			t.Run(id+ext, func(t *testing.T) {
				got := render(t, w, res, export.Options{})
				path := filepath.Join(goldenDir, id+ext)
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
						id+ext, path, simtest.FirstDiff(string(want), got))
				}
			})
		}
	}
}

// TestEverySVGIsXMLWithItsViolationsMarked parses every catalogue scenario's SVG
// as XML, and finds one marked band per violation the checker reported.
func TestEverySVGIsXMLWithItsViolationsMarked(t *testing.T) {
	cat, err := scenarios.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cat {
		res := scenarios.Run(s, scenarios.RunOptions{})
		svg := render(t, export.WriteSVG, res, export.Options{})
		dec := xml.NewDecoder(strings.NewReader(svg))
		root, bands, marks := "", 0, 0
		for {
			tok, err := dec.Token()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: the SVG is not XML: %v", s.ID, err)
			}
			if el, ok := tok.(xml.StartElement); ok {
				if root == "" {
					root = el.Name.Space + " " + el.Name.Local
				}
				for _, a := range el.Attr {
					if a.Name.Local == "class" && a.Value == "band" {
						bands++
					}
					if a.Name.Local == "class" && a.Value == "mark k"+strconv.Itoa(int(layout.CellViolation)) {
						marks++
					}
				}
			}
		}
		if root != "http://www.w3.org/2000/svg svg" {
			t.Errorf("%s: the root element is %q, not an SVG", s.ID, root)
		}
		violations, named := 0, 0
		for _, r := range res.Report.Results {
			violations += len(r.Violations)
			for _, v := range r.Violations {
				named += len(v.Procs)
			}
		}
		if bands != violations {
			t.Errorf("%s: %d violation bands for %d violations", s.ID, bands, violations)
		}
		if marks > named || (named > 0 && marks == 0) {
			t.Errorf("%s: %d violation marks for %d processes named by violations", s.ID, marks, named)
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

// TestHTMLAndSVGReferenceNothing checks that every catalogue scenario's HTML and
// SVG load nothing from outside the file: no http, no protocol-relative //, in any
// src, href or url(), and no @import.
func TestHTMLAndSVGReferenceNothing(t *testing.T) {
	cat, err := scenarios.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cat {
		res := scenarios.Run(s, scenarios.RunOptions{})
		for name, w := range map[string]writer{"html": export.WriteHTML, "svg": export.WriteSVG} {
			refs := references(render(t, w, res, export.Options{}))
			for _, ref := range refs {
				if strings.HasPrefix(ref, "@import") || strings.Contains(ref, "http") || strings.Contains(ref, "//") {
					t.Errorf("%s %s refers outside itself: %q", s.ID, name, ref)
				}
			}
			if len(refs) == 0 {
				t.Errorf("%s %s: the check found no src, href or url() at all: it is not looking", s.ID, name)
			}
		}
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
	left := rows - scenarios.CutHead - scenarios.CutTail
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
