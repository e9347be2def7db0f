package scenarios

import (
	"strings"
	"testing"

	"github.com/locksim/locksim/sim"
)

// note attaches narration to a moment (docs/scenario-language.md, "note"); it is
// parsed as strictly as any command.
func TestNoteAndCompareWithErrors(t *testing.T) {
	for _, tc := range []parseCase{
		{base + `note at 1s "r1 is alone"` + "\n", "", ""},
		{base + `note when c1 acquired L after=10ms "c1 holds L"` + "\n", "", ""},
		{base + `note when r1 granted "any lock"` + "\n", "", ""},
		{base + "note at 1s\n", "t.scn:5:11: note needs its text last, in quotes", `note at 1.2s "C's key is gone"`},
		{base + "note at 1s hello\n", "t.scn:5:17: note needs its text last, in quotes", ""},
		{base + `note at 1s "a" "b"` + "\n", `t.scn:5:12: unexpected "a"`, "quote the text"},
		{base + `note soon "x"` + "\n", "t.scn:5:6: note needs at TIME or when TRIGGER", ""},
		{base + `note at later "x"` + "\n", `t.scn:5:9: "later" is not a time`, ""},
		{base + `note when c1 "x"` + "\n", "t.scn:5:14: a trigger needs a process and an event", ""},
		{base + `note when c1 granted L "x"` + "\n", "t.scn:5:14: c1 is a client: it is never granted", ""},
		{base + `note when c1 acquired L aftr=1s "x"` + "\n", "t.scn:5:25: unknown argument aftr for note", "note when takes after=DUR"},
		{base + "compare-with redis-happy\n", "", ""},
		{base + "compare-with\n", "t.scn:5:13: missing argument", "compare-with ID|FILE"},
		{base + "compare-with t\n", "t.scn:5:14: a scenario cannot be its own control", ""},
		{base + "compare-with a\ncompare-with b\n", "t.scn:6:1: compare-with is given twice", ""},
	} {
		tc.check(t)
	}
}

// A note is an action that changes nothing but the trace: its event carries the
// narration, at its time or right with the step that fired its trigger.
func TestNotesLandWhereTheyAreAbout(t *testing.T) {
	s, err := Parse("t.scn", base+`at 0s c1 acquire L ttl=5s
note when c1 acquired L "c1 holds L now"
note at 2s "two seconds"
run until=3s
`)
	if err != nil {
		t.Fatal(err)
	}
	tr := Run(s, RunOptions{}).Trace
	var notes []string
	for i := range tr.Len() {
		e := tr.Event(i)
		if e.Kind != sim.EvNote {
			continue
		}
		prev := tr.Event(i - 1)
		notes = append(notes, e.At.String()+" "+tr.Name(e.Proc)+" after "+prev.Kind.String()+": "+tr.Actions[e.Action].Narration)
	}
	want := "0.002s c1 after deliver: c1 holds L now|2.000s - after note: two seconds"
	if got := strings.Join(notes, "|"); got != want {
		t.Errorf("notes:\n got %s\nwant %s", got, want)
	}
}

// Every pair the catalogue names loads, and names another catalogue scenario.
func TestCatalogueCompareWithLoads(t *testing.T) {
	n := 0
	for _, s := range catalogue(t) {
		if s.CompareWith == "" {
			continue
		}
		n++
		c, err := s.Control()
		if err != nil {
			t.Errorf("%s: %v", s.ID, err)
			continue
		}
		if c.ID != s.CompareWith || !strings.HasPrefix(c.File, "catalogue/") {
			t.Errorf("%s: compare-with %s loaded %s", s.ID, s.CompareWith, c.File)
		}
	}
	if n == 0 {
		t.Error("no catalogue scenario names its pair")
	}
}
