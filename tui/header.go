package tui

import (
	"slices"
	"strings"

	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/tui/layout"
)

// overlap is how the badge says that a lock-level invariant is broken when the
// verdict rests on the protected data instead (a fenced resource).
var overlap = map[string]string{
	"mutex-belief":    "beliefs overlap",
	"grant-exclusive": "grants overlap",
	"quorum-backed":   "quorum lost",
}

// badge says what is broken up to row r, in words that never contradict the
// run's verdict: red when an invariant that decides the verdict is broken; amber
// when only lock-level ones are, under a protected resource that kept the data
// safe ("beliefs overlap; data safe (fenced)"); green when nothing is.
func badge(s Styles, tl *layout.Timeline, r int, rep *check.Report) string {
	var names []string
	if tl.Len() > 0 {
		names = tl.ViolatedBy(r)
	}
	if len(names) == 0 {
		return s.Badge.Render(" no violation so far ")
	}
	var deciding, facts []string
	for _, d := range rep.Deciding() {
		deciding = append(deciding, d.Name)
	}
	for _, n := range names {
		if slices.Contains(deciding, n) {
			return s.BadgeBad.Render(" VIOLATED so far: " + strings.Join(names, ", ") + " ")
		}
		f := overlap[n]
		if f == "" {
			f = n + " broken"
		}
		facts = append(facts, f)
	}
	safe := "data safe so far"
	if rep.Verdict == check.SAFE {
		safe = "data safe"
	}
	if res, ok := rep.Result("fencing-monotonic"); ok && res.Applicable {
		safe += " (fenced)"
	}
	return s.BadgeWarn.Render(" " + strings.Join(facts, ", ") + "; " + safe + " ")
}

// verdict is the header's verdict; while the rows below the cursor are hidden,
// it waits for the end too.
func verdict(s Styles, rep *check.Report, hidden bool) string {
	if hidden {
		return s.Dim.Render("verdict at the end")
	}
	v := string(rep.Verdict)
	return "verdict " + s.Verdict[v].Render(v)
}

// modes is the header's list of the modes that are on.
func modes(s Styles, on ...string) string {
	var b strings.Builder
	for _, m := range on {
		if m != "" {
			b.WriteString(" " + s.Mode.Render(" "+m+" "))
		}
	}
	return b.String()
}
