package scenarios_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/scenarios"
)

// The language helps the student (issue 19, items 19 and 20): what a scenario
// may legally say but its author surely did not mean is a warning that names
// the line, and a misspelt process, action or command gets a "did you mean".

const warnBase = `protocol redis
node r1 redis
node r2 redis replica-of=r1
client c1 redis-lock server=r1
client c2 redis-lock server=r1
client c3 redis-lock server=r1
resource db
at 1s c1 acquire L
at 1.5s c1 write db
`

func warningsOf(t *testing.T, src string) []string {
	t.Helper()
	s, err := scenarios.Parse("w.scn", src)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, w := range scenarios.Run(s, scenarios.RunOptions{}).Warnings() {
		out = append(out, w.String())
	}
	return out
}

func TestWarningsNameTheLine(t *testing.T) {
	ws := warningsOf(t, warnBase+`when c2 acquired L then c2 release L
at 11s c2 acquire L
when c1 acquired L then c1 release L
run until=5s
`)
	want := []string{
		"w.scn:11:4: warning: this line's time, 11s, is after run until=5s (line 13), so it never happens",
		"w.scn:6:8: warning: c3 is declared and never used",
		"w.scn:10:1: warning: `when c2 acquired L` never fired",
	}
	got := strings.Join(ws, "\n")
	for _, w := range want {
		if !strings.Contains(got, w) {
			t.Errorf("missing warning %q in:\n%s", w, got)
		}
	}
	if len(ws) != len(want) {
		t.Errorf("%d warnings, want %d:\n%s", len(ws), len(want), got)
	}
	for _, quiet := range []string{"r1 is declared", "r2 is declared", "db is declared", "c1 is declared", "c2 is declared", "`when c1 acquired L`"} {
		if strings.Contains(got, quiet) {
			t.Errorf("warned about %s, which is used (a replica, a written resource, clients with commands, a trigger that fired):\n%s", quiet, got)
		}
	}
}

// Every scenario the project ships is free of warnings, so that a warning a
// student sees is about their own change.
func TestShippedScenariosHaveNoWarnings(t *testing.T) {
	cat, err := scenarios.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range cat {
		for _, w := range scenarios.Run(s, scenarios.RunOptions{}).Warnings() {
			t.Errorf("%s", w)
		}
	}
	files, _ := filepath.Glob(filepath.Join("..", "testdata", "regressions", "*"+scenarios.Ext))
	for _, f := range files {
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range warningsOf(t, string(src)) {
			t.Errorf("%s", strings.Replace(w, "w.scn", f, 1))
		}
	}
}

func TestDidYouMean(t *testing.T) {
	for _, tc := range []struct{ line, want string }{
		{"at 11s c4 acquire L", `unknown action or process "c4"`},
		{"at 11s c4 acquire L", "did you mean c1?"},
		{"at 11s c4 acquire L", "declared processes: r1, r2, c1, c2, c3, db"},
		{"at 1s C1 acquire L", "did you mean c1?"},
		{"at 1s pasue c1", "did you mean pause?"},
		{"at 1s c1 acquier L", "did you mean acquire?"},
		{"at 1s crash C2", "did you mean c2?"},
		{"at 1s partition c1 | R1", "did you mean r1?"},
	} {
		_, err := scenarios.Parse("w.scn", warnBase+tc.line+"\n")
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want it to say %q", tc.line, err, tc.want)
		}
	}
}
