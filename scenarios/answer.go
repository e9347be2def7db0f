package scenarios

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/fault"
)

// Answer is a student's answer to an exercise, within its budget: the fault
// lines it adds (at and when forms), the options it sets (goal safe: set PROC
// KEY=VALUE), or its claim that no answer exists (claim none).
type Answer struct {
	File   string      // the answer's file, as errors name it
	Faults []string    // the fault lines, as written
	Sets   [][3]string // PROC, KEY, VALUE
	Claim  bool        // claim none
}

// Empty reports whether the answer adds, sets and claims nothing.
func (a *Answer) Empty() bool { return len(a.Faults) == 0 && len(a.Sets) == 0 && !a.Claim }

var setRE = regexp.MustCompile(`^set\s+(\S+)\s+([A-Za-z][A-Za-z0-9_-]*)=(\S+)$`)

// Answer reads a student's answer to the exercise s, refuses any line outside
// its budget (an *Error at the answer's line, with the budget in the hint),
// and returns the exercise with the answer applied, ready to run: its faults
// added as a what-if, its options set on their processes' lines.
func (s *Scenario) Answer(file, src string) (*Scenario, *Answer, error) {
	ex := s.Exercise
	if !s.IsExercise() {
		return nil, nil, &Error{File: s.File, Line: 1, Col: 1, Msg: s.ID + " is not an exercise: it has no goal line", Hint: "grade takes an exercise (scenarios/exercises/) and an answer"}
	}
	if len(s.WhatIf) > 0 {
		return nil, nil, &Error{File: s.File, Line: s.whatIfLine, Col: 1, Msg: "this file already holds a what-if (the lines after \"# What if:\")",
			Hint: "grade the exercise by its id, with those lines as the answer: locksim grade " + s.ID + " answer.scn"}
	}
	ans := &Answer{File: file}
	fail := func(ln, col int, msg, hint string) (*Scenario, *Answer, error) {
		return nil, nil, &Error{File: file, Line: ln, Col: col, Msg: msg, Hint: hint}
	}
	lines := strings.Split(Normalize(src), "\n")
	var faultLine, setLine []int // the answer's line of each fault line, each set line
	for i, raw := range lines {
		ln, l := i+1, strings.TrimSpace(raw)
		col := strings.Index(raw, l) + 1
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		switch f := strings.Fields(l); f[0] {
		case "at", "when":
			if ex.Goal.Fix() {
				return fail(ln, col, "this exercise asks for a fix, not an attack: no fault lines", "change an allowed option: "+ex.Budget())
			}
			ans.Faults, faultLine = append(ans.Faults, l), append(faultLine, ln)
		case "set":
			m := setRE.FindStringSubmatch(l)
			if m == nil {
				return fail(ln, col, "a set line is set PROC KEY=VALUE", "like: set c1 release=compare-and-delete")
			}
			ok := slices.ContainsFunc(ex.Allows, func(al Allow) bool { return al.Kind == "option" && al.On[0] == m[1] && al.Option == m[2] })
			if !ok {
				return fail(ln, col, "the budget does not let you change "+m[1]+"'s "+m[2], "the budget: "+ex.Budget())
			}
			ans.Sets, setLine = append(ans.Sets, [3]string{m[1], m[2], m[3]}), append(setLine, ln)
		case "claim":
			if l != "claim none" {
				return fail(ln, col, "the only claim is claim none", "claim none: no answer exists within the budget (grade checks every schedule)")
			}
			if ex.Goal.Fix() {
				return fail(ln, col, "claim none answers an attack, not a fix", "change an allowed option: "+ex.Budget())
			}
			if ex.Goal.Kind == "stuck" {
				return fail(ln, col, "claim none is checked for an attack on safety (goal violate or goal unsafe), not goal stuck",
					"give an answer: the faults that leave the run stuck")
			}
			ans.Claim = true
		default:
			return fail(ln, col, "an answer holds fault lines (at TIME ..., when ...), set lines or claim none, not "+quote(f[0]),
				"the budget: "+ex.Budget())
		}
	}
	if ans.Claim && (len(ans.Faults) > 0 || len(ans.Sets) > 0) {
		return fail(1, 1, "claim none stands alone", "either claim that no answer exists, or give one")
	}
	out := s
	if len(ans.Sets) > 0 {
		src, err := s.withOptions(ans.Sets)
		if err != nil {
			return nil, nil, err
		}
		if out, err = s.reg.Parse(s.File, src); err != nil {
			// A value the process's kind refuses: said at the answer's set line.
			if e, ok := err.(*Error); ok && len(setLine) > 0 {
				for k, st := range ans.Sets {
					if strings.Contains(lines[setLine[k]-1], st[1]+"="+st[2]) && strings.Contains(e.Msg, st[1]) {
						return fail(setLine[k], strings.Index(lines[setLine[k]-1], st[1]+"=")+1, e.Msg, e.Hint)
					}
				}
			}
			return nil, nil, err
		}
		out.ID = s.ID
	}
	if len(ans.Faults) > 0 {
		w, err := s.With(ans.Faults)
		if err != nil {
			var pe *Error
			if e, ok := err.(*Error); ok && strings.HasPrefix(e.File, "--with ") {
				pe = e
				for k, l := range ans.Faults {
					if e.File == withName(l) {
						pe = &Error{File: file, Line: faultLine[k], Col: e.Col + strings.Index(lines[faultLine[k]-1], l), Msg: e.Msg, Hint: e.Hint}
					}
				}
				return nil, nil, pe
			}
			return nil, nil, err
		}
		if _, err := ex.within(w, faultLine, file); err != nil {
			return nil, nil, err
		}
		out = w
	}
	return out, ans, nil
}

// withOptions is the exercise's text with each set's KEY=VALUE on its
// process's declaration line (replacing the line's own KEY=, if any).
func (s *Scenario) withOptions(sets [][3]string) (string, error) {
	lines := strings.Split(Normalize(s.Source), "\n")
	for _, st := range sets {
		found := false
		for i, l := range lines {
			f := strings.Fields(l)
			if len(f) < 3 || (f[0] != "node" && f[0] != "client" && f[0] != "resource") || f[1] != st[0] {
				continue
			}
			found = true
			kept := f[:0:0]
			for _, w := range f {
				if !strings.HasPrefix(w, st[1]+"=") {
					kept = append(kept, w)
				}
			}
			lines[i] = strings.Join(append(kept, st[1]+"="+st[2]), " ")
		}
		if !found {
			return "", &Error{File: s.File, Line: 1, Col: 1, Msg: "no declaration of " + st[0] + " to set " + st[1] + " on"}
		}
	}
	return strings.Join(lines, "\n"), nil
}

// Budget is the exercise's allow lines, as a hint says them.
func (ex *Exercise) Budget() string {
	var b []string
	for _, al := range ex.Allows {
		b = append(b, al.String())
	}
	if len(b) == 0 {
		return "nothing may be added"
	}
	return strings.Join(b, "; ")
}

// String is the allow line.
func (al Allow) String() string {
	if al.Kind == "option" {
		return "allow option " + al.On[0] + " " + al.Option
	}
	s := fmt.Sprintf("allow %s %d on=%s", al.Kind, al.Count, strings.Join(al.On, ","))
	var sizes []string
	for _, d := range al.Durs {
		sizes = append(sizes, fault.When(d))
	}
	for _, m := range al.Mags {
		if al.Kind == fault.ClockJump {
			sign := "+"
			if m < 0 {
				sign, m = "-", -m
			}
			sizes = append(sizes, sign+fault.When(time.Duration(m)*time.Millisecond))
		} else {
			sizes = append(sizes, fmt.Sprintf("%+d", m))
		}
	}
	if len(sizes) > 0 {
		key := map[fault.Kind]string{fault.Pause: "for", fault.Partition: "for", fault.Crash: "back", fault.RestartEmpty: "back"}[al.Kind]
		if key == "" {
			key = "by"
		}
		s += " " + key + "=" + strings.Join(sizes, ",")
	}
	return s
}

// within checks the faults an answer adds (w's added steps) against the
// budget: each is matched to an allow line of its kind that names its process,
// admits its size and has a fault left. A restart or a heal ends a crash, a
// power loss or a partition the answer began, and costs nothing.
func (ex *Exercise) within(w *Scenario, faultLine []int, file string) ([]int, error) {
	left := make([]int, len(ex.Allows))
	for i, al := range ex.Allows {
		left[i] = al.Count
	}
	started := map[string]time.Duration{} // proc or "partition" -> when its fault began (at lines)
	startLine := map[string]int{}         // ... and the answer's line that began it
	for _, st := range w.steps {
		k := st.action.Line - w.whatIfLine
		if k < 0 || k >= len(faultLine) {
			continue
		}
		ln := faultLine[k]
		refuse := func(msg string) error {
			return &Error{File: file, Line: ln, Col: 1, Msg: msg, Hint: "the budget: " + ex.Budget()}
		}
		a := st.action
		proc := ""
		if a.Proc != sim.NoProc && int(a.Proc) < len(w.procs) {
			proc = w.procs[a.Proc].name
		}
		var kind fault.Kind
		var size func(al Allow) bool
		switch a.Kind {
		case sim.ActRestart, sim.ActHeal:
			what := proc
			if a.Kind == sim.ActHeal {
				what = "partition"
			}
			began, ok := started[what]
			switch {
			case !ok && a.Kind == sim.ActHeal:
				return nil, refuse("a heal of a partition the answer did not make")
			case !ok:
				return nil, refuse("a restart of " + proc + ", which the answer did not crash")
			case !ex.ends(what):
				return nil, refuse("the budget's " + map[bool]string{true: "partition", false: "crash of " + proc}[what == "partition"] + " does not end: it lists no size (back= or for=)")
			case st.when != nil || began < 0:
				return nil, refuse("write when it ends as an at line (at TIME restart PROC, at TIME heal): its length must be one the budget lists")
			}
			if d := st.at + a.Dur - began; !ex.sized(what, d) { // restart after=DUR counts too
				return nil, refuse(fmt.Sprintf("%s %s %s, not a size the budget allows", map[bool]string{true: "the partition", false: proc}[what == "partition"],
					map[bool]string{true: "lasts", false: "stays down"}[what == "partition"], fault.When(d)))
			}
			delete(started, what)
			continue
		case sim.ActPause:
			kind = fault.Pause
			size = func(al Allow) bool { return len(al.Durs) == 0 || slices.Contains(al.Durs, a.Dur) }
		case sim.ActCrash, sim.ActPowerLoss:
			kind = fault.Crash
			if a.Kind == sim.ActPowerLoss {
				kind = fault.RestartEmpty
			}
			started[proc], startLine[proc] = st.at, ln
			if st.when != nil {
				started[proc] = -1 // when it fell is known only in the run
			}
		case sim.ActJump:
			kind = fault.ClockJump
			size = func(al Allow) bool { return len(al.Mags) == 0 || slices.Contains(al.Mags, a.Dur.Milliseconds()) }
		case sim.ActDrift:
			kind = fault.Drift
			size = func(al Allow) bool { return len(al.Mags) == 0 || slices.Contains(al.Mags, a.PPM) }
		case sim.ActPartition:
			kind = fault.Partition
			// The side the answer cuts off: the smaller one, as "partition p1 | co,p2,p3" isolates p1.
			side := a.A
			if len(a.B) < len(a.A) {
				side = a.B
			}
			other := a.B
			if len(a.B) < len(a.A) {
				other = a.A
			}
			if len(side) != 1 || len(other) != len(w.procs)-1 || a.OneWay {
				return nil, refuse("a partition in an answer cuts one process off from all the others, both ways: partition p1 | EVERYONE,ELSE")
			}
			proc = w.procs[side[0]].name
			started["partition"], startLine["partition"] = st.at, ln
			if st.when != nil {
				started["partition"] = -1
			}
		default:
			return nil, refuse("an answer may add only the faults the budget allows, not " + quote(strings.TrimSpace(a.Label)))
		}
		if size == nil {
			size = func(Allow) bool { return true }
		}
		matched, named := -1, false
		for i, al := range ex.Allows {
			if al.Kind != kind || !slices.Contains(al.On, proc) {
				continue
			}
			named = true
			if size(al) && left[i] > 0 {
				matched = i
				break
			}
		}
		switch {
		case matched >= 0:
			left[matched]--
		case !slices.ContainsFunc(ex.Allows, func(al Allow) bool { return al.Kind == kind }):
			return nil, refuse("the budget allows no " + string(kind))
		case !named:
			return nil, refuse("the budget allows no " + string(kind) + " of " + proc)
		case !slices.ContainsFunc(ex.Allows, func(al Allow) bool { return al.Kind == kind && slices.Contains(al.On, proc) && size(al) }):
			return nil, refuse("a " + string(kind) + " of that size is not on the budget's menu")
		default:
			return nil, refuse("one " + string(kind) + " too many: the budget's are spent")
		}
	}
	for _, what := range slices.Sorted(maps.Keys(started)) { // a fault the budget sizes must end within the answer
		if ex.ends(what) {
			return nil, &Error{File: file, Line: startLine[what], Col: 1,
				Msg:  map[bool]string{true: "the partition is never healed", false: what + " is never restarted"}[what == "partition"],
				Hint: "end it with an at line a size the budget lists later (the budget: " + ex.Budget() + ")"}
		}
	}
	return left, nil
}

// ends reports whether the budget's fault of proc (a crash, a power loss; or
// "partition") ends: its allow line lists how long it lasts.
func (ex *Exercise) ends(proc string) bool {
	for _, al := range ex.Allows {
		if proc == "partition" && al.Kind == fault.Partition || proc != "partition" && (al.Kind == fault.Crash || al.Kind == fault.RestartEmpty) && slices.Contains(al.On, proc) {
			if len(al.Durs) > 0 {
				return true
			}
		}
	}
	return false
}

// BudgetLeft is how many faults each allow line of the exercise has left
// after lines (a class's what-ifs, in the TUI), or why lines are outside the
// budget.
func (s *Scenario) BudgetLeft(lines []string) ([]int, error) {
	if !s.IsExercise() {
		return nil, nil
	}
	if len(lines) == 0 {
		left := make([]int, len(s.Exercise.Allows))
		for i, al := range s.Exercise.Allows {
			left[i] = al.Count
		}
		return left, nil
	}
	w, err := s.With(lines)
	if err != nil {
		return nil, err
	}
	faultLine := make([]int, len(lines))
	for i := range faultLine {
		faultLine[i] = i + 1
	}
	return s.Exercise.within(w, faultLine, "the what-if")
}

// sized reports whether a crash of proc (or a partition: proc "partition")
// that lasts d has a size some allow line lists (none listed: any).
func (ex *Exercise) sized(proc string, d time.Duration) bool {
	for _, al := range ex.Allows {
		switch {
		case proc == "partition" && al.Kind == fault.Partition,
			proc != "partition" && (al.Kind == fault.Crash || al.Kind == fault.RestartEmpty) && slices.Contains(al.On, proc):
			if slices.Contains(al.Durs, d) {
				return true
			}
		}
	}
	return false
}
