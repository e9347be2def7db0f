package tui

import (
	"fmt"
	"slices"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

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

// badgeForms is the badge: what is broken up to row r, in words that never
// contradict the run's verdict: red when an invariant that decides the verdict
// is broken; amber when only lock-level ones are, under a protected resource
// that kept the data safe ("beliefs overlap; data safe (fenced)"); green when
// nothing is. Its long form comes first, then shorter ones for a narrow
// header, each still a sentence: "VIOLATED so far: quorum-backed,
// mutex-belief", "VIOLATED: quorum-backed, mutex-belief", "VIOLATED:
// quorum-backed +1".
//
// hidden: the rows below r are not drawn (a walk, reveal), so the badge may
// not lean on the verdict: the data is "safe so far" until the end, whatever
// the run's verdict will be.
//
// guard is how the scenario's resources protect the data
// (scenarios.Scenario.ResourceGuard): "fenced" only for a resource that checks
// tokens, so a resource that checks nothing is never called fenced. When no
// operation reached a declared resource, the badge says so instead: the data
// is safe because nothing touched it, not because anything refused.
func badgeForms(s Styles, tl *layout.Timeline, r int, rep *check.Report, hidden bool, guard string) []string {
	var names []string
	if tl.Len() > 0 {
		names = tl.ViolatedBy(r)
	}
	if len(names) == 0 {
		return renderAll(s.Badge, " no violation so far ", " no violation ")
	}
	var deciding, facts []string
	for _, d := range rep.Deciding() {
		deciding = append(deciding, d.Name)
	}
	more := ""
	if len(names) > 1 {
		more = fmt.Sprintf(" +%d", len(names)-1)
	}
	for _, n := range names {
		if slices.Contains(deciding, n) {
			all := strings.Join(names, ", ")
			return renderAll(s.BadgeBad, " VIOLATED so far: "+all+" ", " VIOLATED: "+all+" ", " VIOLATED: "+names[0]+more+" ")
		}
		f := overlap[n]
		if f == "" {
			f = n + " broken"
		}
		facts = append(facts, f)
	}
	safe := "data safe so far"
	if rep.Verdict == check.SAFE && !hidden {
		safe = "data safe"
	}
	fenced := ""
	if guard != "" {
		fenced = " (" + guard + ")"
	}
	if len(rep.Unreached) > 0 && !hidden {
		fenced = "; no operation reached " + strings.Join(rep.Unreached, ", ")
	}
	third := " " + facts[0] + more + "; " + safe + " "
	if len(rep.Unreached) > 0 && !hidden { // at 80 columns too: why nothing could be lost
		third = " " + facts[0] + more + "; " + strings.Join(rep.Unreached, ", ") + " untouched "
	}
	all := strings.Join(facts, ", ")
	// The amber itself says that the data is safe; the shortest form leaves
	// the words out, never puts a contrary one in.
	// "(fenced)" outlasts the list of facts: it is why the data is safe; so
	// does "no operation reached db", which says why nothing could be lost.
	return renderAll(s.BadgeWarn, " "+all+"; "+safe+fenced+" ", " "+facts[0]+more+"; "+safe+fenced+" ", third,
		" "+facts[0]+more+" ")
}

func renderAll(st lipgloss.Style, forms ...string) []string {
	out := make([]string, len(forms))
	for i, f := range forms {
		out[i] = st.Render(f)
	}
	return out
}

// headerSlot is one part of a header line: its forms, longest first; an empty
// form drops the part.
type headerSlot []string

// headerLine joins the slots into a line of width w. While the line is too
// wide, each step of shrink (a slot's index) moves that slot on to its next
// form; what the last form still leaves too wide is cut. So a screen decides
// which parts give way first, and which never do.
func headerLine(w int, slots []headerSlot, shrink ...int) string {
	line, _ := shrinkLine(w, slots, shrink...)
	return fit(line, w)
}

// shrinkLine is headerLine's line before it is cut, and whether it fits.
func shrinkLine(w int, slots []headerSlot, shrink ...int) (string, bool) {
	at := make([]int, len(slots))
	line := func() string {
		var b strings.Builder
		for i, sl := range slots {
			b.WriteString(sl[at[i]])
		}
		return b.String()
	}
	for _, i := range shrink {
		if ansi.StringWidth(line()) <= w {
			break
		}
		at[i] = min(at[i]+1, len(slots[i])-1)
	}
	l := line()
	return l, ansi.StringWidth(l) <= w
}

// verdictForms is the header's verdict, then shorter: "verdict UNSAFE",
// "UNSAFE", never dropped (at the end of a walk it is what the room waited
// for); while the rows below the cursor are hidden, it waits for the end
// too, and that may give way.
func verdictForms(s Styles, rep *check.Report, hidden bool) headerSlot {
	if hidden {
		return headerSlot{s.Dim.Render("verdict at the end"), s.Dim.Render("verdict later"), ""}
	}
	v := string(rep.Verdict)
	return headerSlot{"verdict " + s.Verdict[v].Render(v), s.Verdict[v].Render(v)}
}

// modeForms is the header's list of the modes that are on, each in its own
// box, then all in one box, then with PRESENT cut to PRES.
func modeForms(s Styles, on ...string) headerSlot {
	var b strings.Builder
	var names, short []string
	for _, m := range on {
		if m != "" {
			b.WriteString(" " + s.Mode.Render(" "+m+" "))
			names, short = append(names, m), append(short, strings.Replace(m, "PRESENT", "PRES", 1))
		}
	}
	if len(names) == 0 {
		return headerSlot{""}
	}
	return headerSlot{b.String(), " " + s.Mode.Render(" "+strings.Join(names, " ")+" "), " " + s.Mode.Render(" "+strings.Join(short, " ")+" ")}
}
