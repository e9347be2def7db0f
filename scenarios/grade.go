package scenarios

import (
	"fmt"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
)

// Grade is an answer's grade: passed or not, in one sentence, with the
// violation that proves it (or the one still there).
type Grade struct {
	Passed    bool     `json:"passed"`              // the goal was reached
	Sentence  string   `json:"sentence"`            // "Passed: ..." or "Not passed: ..."
	Violation string   `json:"violation,omitempty"` // "INVARIANT at TIME: detail"
	Verdict   string   `json:"verdict"`             // the run's verdict
	At        sim.Time `json:"-"`                   // when Violation was revealed (-1: none)
}

// Judge grades the run res of an exercise with an answer applied.
func Judge(ex *Scenario, ans *Answer, res *Result) Grade {
	g := ex.Exercise.Goal
	rep := &res.Report
	out := Grade{Verdict: string(rep.Verdict), At: -1}
	first := func(name string) (string, bool) {
		for _, r := range rep.Results {
			if (name == "" || r.Name == name) && len(r.Violations) > 0 {
				v := r.Violations[0]
				out.At = v.At
				return fmt.Sprintf("%s at %s: %s", r.Name, v.At, v.Detail), true
			}
		}
		return "", false
	}
	with := "with your answer"
	if ans.Empty() {
		with = "with nothing added"
	}
	switch g.Kind {
	case "violate":
		if v, ok := first(g.Invariant); ok {
			out.Passed, out.Violation = true, v
			out.Sentence = fmt.Sprintf("Passed: %s, %s violates %s.", with, ex.ID, g.Invariant)
		} else {
			out.Sentence = fmt.Sprintf("Not passed: %s, %s still holds in %s (verdict %s).", with, g.Invariant, ex.ID, rep.Verdict)
		}
	case "unsafe", "stuck":
		want := check.Verdict("UNSAFE")
		if g.Kind == "stuck" {
			want = "STUCK"
		}
		v, _ := first("")
		out.Violation = v
		if rep.Verdict == want {
			out.Passed = true
			out.Sentence = fmt.Sprintf("Passed: %s, %s is %s.", with, ex.ID, want)
		} else {
			out.Sentence = fmt.Sprintf("Not passed: %s, %s is %s, not %s.", with, ex.ID, rep.Verdict, want)
		}
	case "holds":
		if v, ok := first(g.Invariant); ok {
			out.Violation = v
			out.Sentence = fmt.Sprintf("Not passed: %s, %s still violates %s.", with, ex.ID, g.Invariant)
		} else {
			out.Passed = true
			out.Sentence = fmt.Sprintf("Passed: %s, %s keeps %s: it is never violated.", with, ex.ID, g.Invariant)
		}
	case "safe":
		v, bad := first("")
		out.Violation = v
		if rep.Verdict == "SAFE" {
			out.Passed = true
			out.Sentence = fmt.Sprintf("Passed: %s, %s is SAFE: every invariant that decides the verdict holds.", with, ex.ID)
		} else {
			out.Sentence = fmt.Sprintf("Not passed: %s, %s is still %s.", with, ex.ID, rep.Verdict)
			if !bad {
				out.Violation = ""
			}
		}
	}
	return out
}
