package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/scenarios/explore"
)

// Exercises that grade themselves (issue 29... 30): every exercise's intended
// solution passes; an empty answer fails and says what is still true. The
// solutions are the published stories: Kleppmann's pause and clock jump,
// Skeen's partition, Bernstein et al.'s blocking 2PC, Lamport's amnesia, the
// Redis docs' safe release, fencing's guarantee.
func TestEveryExercisesSolutionPassesAndNothingFails(t *testing.T) {
	exs, err := scenarios.Exercises()
	if err != nil {
		t.Fatal(err)
	}
	if len(exs) < 8 {
		t.Fatalf("%d exercises, want at least eight", len(exs))
	}
	empty := filepath.Join(t.TempDir(), "empty.scn")
	os.WriteFile(empty, []byte("# nothing yet\n"), 0o644)
	for _, ex := range exs {
		t.Run(ex.ID, func(t *testing.T) {
			sol := filepath.Join("..", "..", "..", "testdata", "exercise-solutions", ex.ID+".scn")
			var out, errs bytes.Buffer
			if code := run([]string{"grade", ex.ID, sol}, &out, &errs); code != 0 || !strings.HasPrefix(out.String(), "Passed: ") {
				t.Errorf("the solution: exit %d\n%s%s", code, out.String(), errs.String())
			}
			out.Reset()
			if code := run([]string{"grade", ex.ID, empty}, &out, &errs); code != 1 || !strings.HasPrefix(out.String(), "Not passed: with nothing added, ") ||
				!strings.Contains(out.String(), "still") && !strings.Contains(out.String(), ", not ") {
				t.Errorf("an empty answer: exit %d, want 1 and what is still true:\n%s", code, out.String())
			}
		})
	}
}

// An answer outside the budget is refused, exit 2, at its line, with the budget.
func TestAnAnswerOutsideTheBudgetIsRefused(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ name, answer, want string }{
		{"two pauses where one is allowed", "at 1s pause c1 for=15s\nat 2s pause c1 for=1s\n", "answer.scn:2:1: one pause too many"},
		{"a process the budget does not name", "at 1s pause c2 for=15s\n", "answer.scn:1:1: the budget allows no pause of c2"},
		{"a size off the menu", "# a pause of 7 s\nat 1s pause c1 for=7s\n", "answer.scn:2:1: a pause of that size is not on the budget's menu"},
		{"a kind the budget has not", "at 1s crash c1\n", "answer.scn:1:1: the budget allows no crash"},
		{"a line that is not a fault", "at 1s c1 release L\n", "answer.scn:1:1: an answer may add only the faults"},
		{"a fix in an attack", "set c1 release=del\n", "answer.scn:1:1: the budget does not let you change c1's release"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := filepath.Join(dir, "answer.scn")
			os.WriteFile(f, []byte(tc.answer), 0o644)
			var out, errs bytes.Buffer
			code := run([]string{"grade", "redlock-one-pause", f}, &out, &errs)
			if code != 2 || !strings.Contains(errs.String(), tc.want) || !strings.Contains(errs.String(), "allow pause 1 on=c1 for=1s,5s,15s") {
				t.Errorf("exit %d, want 2 with %q and the budget:\n%s", code, tc.want, errs.String())
			}
		})
	}
}

// The proved exercise's claim is backed by locksim check over exactly its
// budget: the committed certificate is what the check proves today.
func TestTheProvedExerciseIsProvedByCheck(t *testing.T) {
	cert := filepath.Join("..", "..", "..", "testdata", "check", "exercise-fencing-one-pause-one-crash.json")
	var out, errs bytes.Buffer
	code := run([]string{"check", "fencing-one-pause-one-crash", "--exercise", "--compare-certificate", cert, "--out", t.TempDir(), "--format", "json"}, &out, &errs)
	var sum struct {
		Result    string `json:"result"`
		Schedules int    `json:"schedules"`
	}
	json.Unmarshal(out.Bytes(), &sum)
	if code != 0 || sum.Schedules == 0 {
		t.Fatalf("check --exercise: exit %d, %+v\n%s%s", code, sum, out.String(), errs.String())
	}
	// The same budget with a pause the fencing cannot stop is answered: the
	// check is not vacuous.
	out.Reset()
	if code := run([]string{"check", "redlock-one-pause", "--exercise", "--out", t.TempDir()}, &out, &errs); code != 1 {
		t.Errorf("check --exercise on an exercise with an answer: exit %d, want 1\n%s", code, out.String())
	}
}

// grade --format json gives the same result for a course's scripts.
func TestGradeJSON(t *testing.T) {
	sol := filepath.Join("..", "..", "..", "testdata", "exercise-solutions", "redlock-one-clock-jump.scn")
	var out, errs bytes.Buffer
	if code := run([]string{"grade", "redlock-one-clock-jump", sol, "--format", "json"}, &out, &errs); code != 0 {
		t.Fatalf("exit %d: %s", code, errs.String())
	}
	var g struct {
		Passed    bool   `json:"passed"`
		Sentence  string `json:"sentence"`
		Violation string `json:"violation"`
		Replay    string `json:"replay"`
	}
	if err := json.Unmarshal(out.Bytes(), &g); err != nil || !g.Passed || !strings.HasPrefix(g.Violation, "mutex-belief at ") || !strings.Contains(g.Replay, `--with "at 1s clock-jump C +15s"`) {
		t.Errorf("the JSON: %v %+v\n%s", err, g, out.String())
	}
}

// Every exercise says the truth about its budget: one marked proved has no
// answer within it, and every other attack has one (else no student could
// pass it). locksim check over exactly the budget decides both.
func TestEveryExerciseIsAnswerableOrProved(t *testing.T) {
	exs, err := scenarios.Exercises()
	if err != nil {
		t.Fatal(err)
	}
	for _, ex := range exs {
		g := ex.Exercise.Goal
		if g.Fix() || g.Kind == "stuck" {
			continue // a fix is graded by its run; liveness is not checked over a budget
		}
		tally, err := explore.NoAnswer(ex, nil)
		switch {
		case err != nil:
			t.Errorf("%s: %v", ex.ID, err)
		case ex.Exercise.Proved && tally.First != nil:
			t.Errorf("%s says no answer exists, but %v breaks %v", ex.ID, tally.First.Schedule, tally.First.Broken)
		case !ex.Exercise.Proved && tally.First == nil:
			t.Errorf("%s has no answer within its budget (%d schedules): mark it proved, or widen the budget", ex.ID, tally.Schedules)
		}
	}
}

// The budget's sizes hold for what ends a fault too: a partition or a crash
// whose allow line lists how long it lasts must end, at an at line, after one
// of those lengths; one that lists none stays down; a partition cuts one
// process off from all the others (found by a review of the exercises).
func TestAFaultEndsAsTheBudgetSays(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ ex, answer, want string }{
		{"3pc-one-partition", "at 142ms partition p1 | co,p2,p3\n", "answer.scn:1:1: the partition is never healed"},
		{"3pc-one-partition", "at 142ms partition p1 | co,p2\nat 2.142s heal\n", "answer.scn:1:1: a partition in an answer cuts one process off from all the others"},
		{"3pc-one-partition", "at 142ms partition p1 | co,p2,p3\nwhen p2 voted T after=2s then heal\n", "answer.scn:2:1: write when it ends as an at line"},
		{"3pc-one-partition", "at 142ms partition p1 | co,p2,p3\nat 3.142s heal\n", "answer.scn:2:1: the partition lasts 3s, not a size the budget allows"},
		{"redis-one-crash", "at 1.2s crash r1\n", "answer.scn:1:1: r1 is never restarted"},
		{"redis-one-crash", "at 1s crash r1\nat 1.2s restart r1 after=100ms\n", "answer.scn:2:1: r1 stays down 300ms, not a size the budget allows"},
		{"2pc-one-crash", "at 105ms crash co\nat 1s restart co\n", "answer.scn:2:1: the budget's crash of co does not end"},
		{"redis-fix-release", "set c1 release=foo\n", "answer.scn:1:8: release=foo is not a choice"},
		{"2pc-one-crash", "claim none\n", "answer.scn:1:1: claim none is checked for an attack on safety"},
	} {
		f := filepath.Join(dir, "answer.scn")
		os.WriteFile(f, []byte(tc.answer), 0o644)
		var out, errs bytes.Buffer
		if code := run([]string{"grade", tc.ex, f}, &out, &errs); code != 2 || !strings.Contains(errs.String(), tc.want) {
			t.Errorf("%s %q: exit %d, want 2 with %q:\n%s", tc.ex, tc.answer, code, tc.want, errs.String())
		}
	}
	// A refusal in JSON, for a course's script.
	f := filepath.Join(dir, "answer.scn")
	os.WriteFile(f, []byte("at 1s pause c1 for=7s\n"), 0o644)
	var out, errs bytes.Buffer
	var g struct {
		Passed  bool   `json:"passed"`
		Refused string `json:"refused"`
	}
	if code := run([]string{"grade", "redlock-one-pause", f, "--format", "json"}, &out, &errs); code != 2 || json.Unmarshal(out.Bytes(), &g) != nil || g.Passed || !strings.Contains(g.Refused, "not on the budget's menu") {
		t.Errorf("a refused answer in JSON: exit %d, %+v\n%s", code, g, out.String())
	}
}
