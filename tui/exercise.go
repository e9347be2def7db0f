package tui

import (
	"fmt"
	"strings"

	"github.com/locksim/locksim/scenarios"
)

// An exercise (docs/exercises.md) opens as any run, with its goal, its budget
// and what is left of it, and its hints (e, one more at each press) in the
// narration panel; i adds a fault at the cursor from what the budget has left,
// and the what-if's footer grades it.

// exerciseText is the exercise panel: the goal, the budget (left: what each
// allow line has left, nil: all of it), the hints shown so far.
func exerciseText(st Styles, s *scenarios.Scenario, hints int, left []int) string {
	ex := s.Exercise
	var b strings.Builder
	b.WriteString(st.Title.Render("Exercise: make "+s.ID+" "+ex.Goal.Words()) + "\n")
	if ex.Goal.Fix() {
		b.WriteString("Change only: (grade it with locksim grade)\n")
	} else {
		b.WriteString("Budget (i adds a fault at the cursor):\n")
	}
	for i, al := range ex.Allows {
		n := al.Count
		if left != nil {
			n = left[i]
		}
		line := strings.TrimPrefix(al.String(), "allow ")
		if !ex.Goal.Fix() {
			line = fmt.Sprintf("%d of %d left: %s", n, al.Count, line)
		}
		b.WriteString("  " + line + "\n")
	}
	if ex.Proved {
		b.WriteString(st.Dim.Render("No answer may exist: if you think so, answer claim none.") + "\n")
	}
	for i, h := range ex.Hints {
		if i >= hints {
			b.WriteString(st.Dim.Render(fmt.Sprintf("e: a hint (%d of %d)", hints+1, len(ex.Hints))))
			break
		}
		b.WriteString(fmt.Sprintf("Hint %d: %s\n", i+1, h))
	}
	return strings.TrimRight(b.String(), "\n")
}
