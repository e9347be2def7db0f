package scenarios

import (
	"slices"
	"strings"
	"testing"

	"github.com/locksim/locksim/sim"
)

// A what-if's narration is honest (issue 28): in 3pc-coordinator-crash, p1 is
// cut off just after its PreCommit. The original's narration from then on tells
// of a run that no longer happens ("p1 coordinates and decides COMMIT"; in the
// what-if p2 and p3 abort, Skeen's disagreement), so it is left out, and its
// question too; what came before the added line stays, and the added line says
// where the story leaves the original. The original's own run is untouched.
func TestWhatIfLeavesOutTheOriginalsLaterNarration(t *testing.T) {
	orig, err := Load("3pc-coordinator-crash")
	if err != nil {
		t.Fatal(err)
	}
	w, err := orig.With([]string{"at 143.001ms partition p1 | co,p2,p3", "at 5.143s heal"})
	if err != nil {
		t.Fatal(err)
	}
	res := Run(w, RunOptions{})
	if r, _ := res.Report.Result("commit-agreement"); len(r.Violations) == 0 {
		t.Fatal("the what-if does not break commit-agreement: it is not the story this test is about")
	}
	notes := map[string]string{} // a note's time: its text
	for i := range res.Trace.Len() {
		if e := res.Trace.Event(i); e.Kind == sim.EvNote {
			notes[e.At.String()] = NoteText(res.Trace, e)
		}
	}
	if !strings.Contains(notes["0.121s"], "p2 voted yes") {
		t.Errorf("the note before the what-if was lost: %q", notes["0.121s"])
	}
	for _, at := range []string{"2.121s", "2.344s"} {
		if strings.Contains(notes[at], "COMMIT") || !strings.Contains(notes[at], "left out") {
			t.Errorf("the original's note at %s still tells its story in the what-if: %q", at, notes[at])
		}
	}
	told := false
	for _, a := range res.Trace.Actions {
		if a.Question != "" && a.Line < w.whatIfLine {
			t.Errorf("the original's question at line %d is still asked: %q", a.Line, a.Question)
		}
		told = told || strings.HasPrefix(a.Narration, "What if: at 143.001ms partition p1")
	}
	if !told {
		t.Error("no narration says where the what-if leaves the original's story")
	}
	again := Run(orig, RunOptions{})
	for i := range again.Trace.Len() {
		if e := again.Trace.Event(i); e.Kind == sim.EvNote && e.At.String() == "2.121s" && !strings.Contains(NoteText(again.Trace, e), "COMMIT") {
			t.Errorf("the original's own narration changed: %q", NoteText(again.Trace, e))
		}
	}
}

// A what-if warns only about its own lines. Pausing c3 in
// redis-cad-after-expiry moves c3's try past the original's `note when c3
// tries L`, which then never fires: the original was written for its own run,
// and the class changed that run on purpose. An added line that never fires
// is still reported. Its paragraph says it tells of the run without them.
func TestWhatIfWarnsOnlyAboutItsOwnLines(t *testing.T) {
	orig, err := Load("redis-cad-after-expiry")
	if err != nil {
		t.Fatal(err)
	}
	_, err = orig.With([]string{"at 11s pause c3 for=5s", "when c9 acquired L then crash c1"})
	if err == nil {
		t.Fatal("an added line naming no process was accepted")
	}
	w, err := orig.With([]string{"at 11s pause c3 for=5s", "when c2 acquired M then crash c1"})
	if err != nil {
		t.Fatal(err)
	}
	ws := Run(w, RunOptions{}).Warnings()
	if len(ws) != 1 || ws[0].File != `--with "when c2 acquired M then crash c1"` || !strings.Contains(ws[0].Msg, "never fired") {
		t.Errorf("want the one warning of the added line that never fires (`when c2 acquired M`), got %v", ws)
	}
	for _, x := range ws {
		if !strings.HasPrefix(x.File, "--with") {
			t.Errorf("a warning about the original's line %d: %v", x.Line, x)
		}
	}
	if o := Run(orig, RunOptions{}).Warnings(); len(o) != 0 {
		t.Errorf("the original itself has warnings: %v", o)
	}
	if !strings.HasPrefix(w.Teaching, "What if: at 11s pause c3 for=5s; when c2 acquired M then crash c1 added to redis-cad-after-expiry.") ||
		!strings.HasSuffix(w.Teaching, orig.Teaching) {
		t.Errorf("the what-if's paragraph does not say what was added before the original's:\n%s", w.Teaching)
	}
}

// A what-if written to a file (the TUI's W: Fork) is a what-if when it is read
// back: run, it leaves out the original's narration after the added fault, as
// the TUI and run --with do. Before, the file told the original's story over
// the class's run ("c1 still believes it holds L" after c1 had crashed).
func TestAWrittenWhatIfTellsItsOwnStory(t *testing.T) {
	orig, err := Load("redis-del-after-expiry")
	if err != nil {
		t.Fatal(err)
	}
	lines := []string{"at 2.001ms crash c1", "at 1.002001s restart c1"}
	w, err := orig.With(lines)
	if err != nil {
		t.Fatal(err)
	}
	f, err := Parse("redis-del-after-expiry-what-if.scn", orig.Fork(lines))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(f.WhatIf, lines) {
		t.Fatalf("the file's added lines are %q, want %q", f.WhatIf, lines)
	}
	narr := func(s *Scenario) []string {
		var out []string
		for _, a := range Run(s, RunOptions{}).Trace.Actions {
			out = append(out, a.Narration+"|"+a.Question)
		}
		return out
	}
	got, want := narr(f), narr(w)
	if !slices.Equal(got, want) {
		t.Errorf("the file's narration differs from the what-if's:\n file %q\n with %q", got, want)
	}
	if slices.Equal(want, narr(orig)) {
		t.Fatal("the what-if's narration is the original's: the test tests nothing")
	}
}
