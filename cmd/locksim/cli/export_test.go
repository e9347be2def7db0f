package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// Issue 17's acceptance points, as a user meets them on the command line (the
// browser checks are in tui/export, behind the browser build tag).

func TestRunExportsEachFormat(t *testing.T) {
	for format, starts := range map[string]string{
		"svg":     `<svg xmlns="http://www.w3.org/2000/svg"`,
		"mermaid": "sequenceDiagram\n",
		"html":    "<!DOCTYPE html>\n",
	} {
		code, out, errs := locksim(t, "run", "redlock-clock-jump", "--format", format)
		if code != 0 || !strings.HasPrefix(out, starts) {
			t.Errorf("--format %s: exit %d, starts %q: %s", format, code, out[:min(len(out), 80)], errs)
		}
		if !strings.Contains(out, "mutex-belief") {
			t.Errorf("--format %s does not mark the mutex-belief violation", format)
		}
	}
}

func TestRunJSONEventsListsEveryEvent(t *testing.T) {
	code, out, errs := locksim(t, "run", "redlock-clock-jump", "--format", "json", "--events")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	var r struct {
		Events    int `json:"events"`
		EventList []struct {
			Kind    string `json:"kind"`
			Process string `json:"process"`
			Clock   *struct {
				WallMs float64 `json:"wall_ms"`
			} `json:"clock"`
			Violations []struct {
				Invariant string `json:"invariant"`
			} `json:"violations"`
		} `json:"event_list"`
	}
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.EventList) != r.Events || r.Events == 0 {
		t.Fatalf("event_list has %d entries for %d events", len(r.EventList), r.Events)
	}
	// C's clock jumps 15 s: its wall clock reads 16 s at 1 s of true time.
	jumped, violations := false, 0
	for _, e := range r.EventList {
		if e.Kind == "clock-jump" && e.Process == "C" && e.Clock != nil && e.Clock.WallMs == 16000 {
			jumped = true
		}
		violations += len(e.Violations)
	}
	if !jumped || violations != 3 {
		t.Errorf("clock jump seen %v, %d violations on events (want 3)", jumped, violations)
	}
	_, plain, _ := locksim(t, "run", "redlock-clock-jump", "--format", "json")
	if strings.Contains(plain, "event_list") {
		t.Error("event_list without --events")
	}
}

func TestRunWidthFitsTheTimeline(t *testing.T) {
	code, out, _ := locksim(t, "run", "redlock-clock-jump", "--width", "100")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	timeline := out[strings.Index(out, "\nTimeline"):strings.Index(out, "\nVerdict")]
	for _, l := range strings.Split(timeline, "\n")[2:] {
		if n := utf8.RuneCountInString(l); n > 100 {
			t.Errorf("a timeline line of %d runes: %q", n, l)
		}
	}
	_, wide, _ := locksim(t, "run", "redlock-clock-jump")
	longest := 0
	for _, l := range strings.Split(wide, "\n") {
		longest = max(longest, utf8.RuneCountInString(l))
	}
	if longest <= 100 {
		t.Errorf("piped, the timeline should be unlimited; its longest line is %d", longest)
	}
}

func TestRunRefusesFlagsForOtherFormats(t *testing.T) {
	for _, args := range [][]string{
		{"--events"}, {"--format", "svg", "--width", "80"}, {"--format", "json", "--by", "row"},
		{"--format", "html", "--full"}, {"--format", "pdf"}, {"--format", "svg", "--by", "diagonal"}, {"--width", "-3"},
	} {
		code, _, errs := locksim(t, append([]string{"run", "redlock-clock-jump"}, args...)...)
		if code != exitUsage || errs == "" {
			t.Errorf("%v: exit %d (%s), want %d with a reason", args, code, errs, exitUsage)
		}
	}
}

// run A --vs B writes the two runs lined up in every format (issue 17, point
// 6): each starts as its format does and names both runs; --events gives both
// runs' event lists; --quiet is refused where it shapes nothing.
func TestRunVersusEveryFormat(t *testing.T) {
	for format, starts := range map[string]string{
		"svg":     `<svg xmlns="http://www.w3.org/2000/svg"`,
		"mermaid": "sequenceDiagram\n",
		"html":    "<!DOCTYPE html>\n",
		"json":    "{\n",
	} {
		code, out, errs := locksim(t, "run", "redlock-clock-jump", "--vs", "redlock-no-clock-jump", "--format", format)
		if code != 0 || !strings.HasPrefix(out, starts) {
			t.Errorf("--vs --format %s: exit %d, starts %q: %s", format, code, out[:min(len(out), 80)], errs)
		}
		for _, want := range []string{"redlock-clock-jump", "redlock-no-clock-jump", "UNSAFE", "SAFE", "locksim run redlock-clock-jump --vs redlock-no-clock-jump --seed 1"} {
			if !strings.Contains(out, want) {
				t.Errorf("--vs --format %s lacks %q", format, want)
			}
		}
	}
	code, out, errs := locksim(t, "run", "redis-del-after-expiry", "--vs", "pair", "--format", "json", "--events")
	var r struct {
		Differences []struct{ Run string }
		A, B        struct {
			Events    int               `json:"events"`
			EventList []json.RawMessage `json:"event_list"`
		}
	}
	if err := json.Unmarshal([]byte(out), &r); code != 0 || err != nil {
		t.Fatalf("--vs pair --format json --events: exit %d, %v: %s", code, err, errs)
	}
	if len(r.A.EventList) != r.A.Events || len(r.B.EventList) != r.B.Events || len(r.Differences) == 0 {
		t.Errorf("a: %d of %d events listed, b: %d of %d, %d differences", len(r.A.EventList), r.A.Events, len(r.B.EventList), r.B.Events, len(r.Differences))
	}
	if code, _, errs := locksim(t, "run", "zk-leader-failover", "--vs", "pair", "--quiet"); code != exitUsage || !strings.Contains(errs, "--quiet shapes") {
		t.Errorf("--quiet with text: exit %d, %s", code, errs)
	}
	if code, out, _ := locksim(t, "run", "zk-leader-failover", "--format", "svg", "--quiet"); code != 0 || !strings.Contains(out, `class="fold"`) {
		t.Errorf("svg --quiet: exit %d, no folded traffic drawn", code)
	}
}

// Issue 28: --from and --to cut every export (and a pair's) to a stretch of
// true time; bad values are refused with what was expected (exit 2).
func TestRunFromToCutsTheExports(t *testing.T) {
	for _, format := range []string{"svg", "mermaid", "html"} {
		_, whole, _ := locksim(t, "run", "redlock-clock-jump", "--format", format)
		code, cut, errs := locksim(t, "run", "redlock-clock-jump", "--format", format, "--from", "2s", "--to", "3s")
		if code != 0 || len(cut) >= len(whole) || !strings.Contains(cut, "mutex-belief") {
			t.Errorf("--format %s --from 2s --to 3s: exit %d, %d bytes against %d whole: %s", format, code, len(cut), len(whole), errs)
		}
		code, cut, errs = locksim(t, "run", "redlock-clock-jump", "--vs", "pair", "--format", format, "--from", "2s", "--to", "3s")
		_, pair, _ := locksim(t, "run", "redlock-clock-jump", "--vs", "pair", "--format", format)
		if code != 0 || len(cut) >= len(pair) {
			t.Errorf("--vs pair --format %s --from 2s --to 3s: exit %d, %d bytes against %d: %s", format, code, len(cut), len(pair), errs)
		}
	}
	if _, out, _ := locksim(t, "run", "redlock-clock-jump", "--format", "svg", "--from", "2s", "--to", "3s"); strings.Contains(out, ">1.000s<") || !strings.Contains(out, ">2.103s<") {
		t.Error("the cut SVG has a row at 1 s, or lacks the violation at 2.103 s")
	}
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"--from", "2"}, "a number needs its unit: 2s"},
		{[]string{"--from", "abc"}, "expected a true time with its unit"},
		{[]string{"--to", "-1s"}, "never negative"},
		{[]string{"--from", "3s", "--to", "2s"}, "expected --from at or before --to"},
		{[]string{"--from", "20s"}, "no row falls in that stretch"},
		{[]string{"--format", "text", "--from", "2s"}, "--from shapes --format mermaid or svg or html only"},
		{[]string{"--format", "json", "--to", "2s"}, "--to shapes"},
	} {
		args := append([]string{"run", "redlock-clock-jump"}, c.args...)
		if !slices.Contains(c.args, "--format") {
			args = append(args, "--format", "svg")
		}
		code, out, errs := locksim(t, args...)
		if code != exitUsage || out != "" || !strings.Contains(errs, c.says) {
			t.Errorf("%v: exit %d, %d bytes out, said %q; want exit %d saying %q", c.args, code, len(out), errs, exitUsage, c.says)
		}
	}
}

// Issue 28: --format svg --stops DIR writes the walk as slides, one per stop
// (a question and its answer where the stop asks one), and names each file.
func TestRunStopsWritesSlides(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "slides")
	code, out, errs := locksim(t, "run", "zset-time-bucket-overlap", "--format", "svg", "--stops", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
		if !strings.Contains(out, "wrote "+filepath.Join(dir, e.Name())+"\n") {
			t.Errorf("%s is not named on the output:\n%s", e.Name(), out)
		}
		b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
		if !strings.HasPrefix(string(b), `<svg xmlns="http://www.w3.org/2000/svg" width="1920" height="1080" viewBox="0 0 1920 1080"`) {
			t.Errorf("%s: %.100s", e.Name(), b)
		}
	}
	if len(names) < 4 || !slices.Contains(names, "stop-03-question.svg") || !slices.Contains(names, "stop-03.svg") || names[0] != "stop-01.svg" {
		t.Errorf("slides %q: want stop-01.svg ..., and the question of stop 3 before its answer", names)
	}
	for _, args := range [][]string{
		{"--format", "html", "--stops", dir}, {"--stops", dir}, {"--format", "svg", "--stops", dir, "--vs", "pair"},
		{"--format", "svg", "--walk"}, {"--format", "html", "--walk", "--vs", "pair"},
	} {
		code, _, errs := locksim(t, append([]string{"run", "redlock-clock-jump"}, args...)...)
		if code != exitUsage || errs == "" {
			t.Errorf("%v: exit %d (%s), want %d with a reason", args, code, errs, exitUsage)
		}
	}
	file := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(file, nil, 0o644)
	if code, _, errs := locksim(t, "run", "redlock-clock-jump", "--format", "svg", "--stops", file); code != exitUsage || !strings.Contains(errs, "--stops") {
		t.Errorf("--stops at a file: exit %d, %s", code, errs)
	}
	if code, out, errs := locksim(t, "run", "zset-time-bucket-overlap", "--format", "html", "--walk"); code != 0 || !strings.Contains(out, `"walk":true`) {
		t.Errorf("--format html --walk: exit %d, opens walking: %v: %s", code, strings.Contains(out, `"walk":true`), errs)
	}
}
