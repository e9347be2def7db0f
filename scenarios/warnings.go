package scenarios

import (
	"fmt"
	"slices"
	"strings"

	"github.com/locksim/locksim/sim"
)

// Warning is something a scenario may legally say but its author almost surely
// did not mean: an action after the run's end, a trigger that never fired, a
// process nothing uses. The run goes ahead (its exit code is unchanged); the
// command line prints each warning, and with --strict refuses the scenario.
type Warning struct {
	File      string // the scenario file
	Line, Col int    // where, 1-based
	Msg, Hint string // what it surely does not mean, and how to say what it means
}

// String is "FILE:LINE:COL: warning: MSG", then the hint on a line of its own.
func (w Warning) String() string {
	s := fmt.Sprintf("%s:%d:%d: warning: %s", Shown(w.File), w.Line, w.Col, w.Msg)
	if w.Hint != "" {
		s += "\n  hint: " + w.Hint
	}
	return s
}

// Err is the warning as an error, for --strict.
func (w Warning) Err() error {
	return &Error{File: w.File, Line: w.Line, Col: w.Col, Msg: w.Msg + " (an error with --strict)", Hint: w.Hint}
}

// warnings finds what the text alone shows: actions after run until=, and
// processes that nothing names.
func (p *parser) warnings(lines []line) []Warning {
	var out []Warning
	s := p.s
	untilLine := p.seen["run"]
	for _, st := range s.steps {
		if st.when == nil && s.Until > 0 && st.at > s.Until {
			out = append(out, Warning{File: p.file, Line: st.action.Line, Col: st.col,
				Msg:  "this line's time, " + st.at.String() + ", is after run until=" + s.Until.String() + " (line " + fmt.Sprint(untilLine) + "), so it never happens",
				Hint: "move run until= after " + st.at.String() + ", or this line before " + s.Until.String()})
		}
	}
	// A process is used when some line other than its own declaration names
	// it (an action, a trigger, another process's argument, a link), or, for a
	// node, when its own declaration names another process (a replica of r1).
	// A client nothing names never acts.
	named := map[string]bool{}
	names := map[string]bool{}
	for _, d := range s.procs {
		names[d.name] = true
	}
	for _, ln := range lines {
		self := declared(ln)
		for i, t := range ln.toks {
			for _, w := range strings.FieldsFunc(t.text, func(r rune) bool { return r == '=' || r == ',' }) {
				switch {
				case self != "" && i == 1, w == self && self != "":
				case self != "" && names[w] && ln.toks[0].text == DeclNode:
					named[w], named[self] = true, true
				default:
					named[w] = true
				}
			}
		}
	}
	// A memory budget above what the machine has is legal (the run may never
	// need it), but the run would be killed before the budget stopped it.
	for _, t := range p.limitLine.toks {
		if m := machineMemory(); strings.HasPrefix(t.text, "memory=") && m > 0 && s.Limits.MaxMemory > m {
			out = append(out, Warning{File: p.file, Line: p.limitLine.num, Col: t.col,
				Msg:  "limit " + t.text + " is more than this machine's memory (" + sim.FormatBytes(m) + "): a run that needs it is killed by the system before its limit stops it",
				Hint: "lower it to at most " + sim.FormatBytes(m)})
		}
	}
	for _, ln := range lines {
		if n := declared(ln); n != "" && !named[n] {
			hint := "give it something to do (at 1s " + n + " acquire L), or remove the line"
			if ln.toks[0].text != DeclClient {
				hint = "name it where it is used (a client's server=, nodes= or a write to it), or remove the line"
			}
			out = append(out, Warning{File: p.file, Line: ln.num, Col: ln.toks[1].col,
				Msg: n + " is declared and never used: no action, trigger or other process names it", Hint: hint})
		}
	}
	return out
}

// Warnings lists the scenario's warnings: those of its text (Scenario.Warnings)
// and those only the run shows: a when trigger that never fired, so its action
// never happened. A what-if's are those of its added lines: the original's
// lines were written for the original's run (its notes, its triggers), and a
// what-if changes that run on purpose.
func (r *Result) Warnings() []Warning {
	out := r.warnings()
	if s := r.Scenario; len(s.WhatIf) > 0 {
		out = slices.DeleteFunc(out, func(w Warning) bool { return w.Line < s.whatIfLine })
		for i, w := range out { // named as its parse errors are: --with "LINE":1:COL
			if k := w.Line - s.whatIfLine; s.withArgs && k >= 0 && k < len(s.WhatIf) {
				out[i].File, out[i].Line = withName(s.WhatIf[k]), 1
			}
		}
	}
	return out
}

func (r *Result) warnings() []Warning {
	out := append([]Warning(nil), r.Scenario.Warnings...)
	happened := map[int32]bool{}
	for i := range r.Trace.Len() {
		if a := r.Trace.Event(i).Action; a >= 0 {
			happened[a] = true
		}
	}
	for i, st := range r.Scenario.steps { // Build adds one action per step, in order
		if st.every > 0 && !happened[int32(i)] {
			hint := "check that its client is running and the line's window falls within the run"
			if st.while != nil {
				hint = "check in the timeline that " + r.Scenario.procs[st.while.Client].name + " holds " + st.while.Lock +
					" at one of the line's times, and that the client and lock are the ones named"
			}
			out = append(out, Warning{File: r.Scenario.File, Line: st.action.Line, Col: 1,
				Msg: "`" + st.action.Label + "` never happened: none of its times came while it could", Hint: hint})
		}
		if st.when != nil && !happened[int32(i)] {
			out = append(out, Warning{File: r.Scenario.File, Line: st.action.Line, Col: 1,
				Msg:  "`" + st.trigger + "` never fired: this line's action never happened",
				Hint: "check in the timeline that the event happens before the run ends, and its process and lock are the ones named"})
		}
		if st.when == nil && st.action.Kind == sim.ActNote && happened[int32(i)] {
			if w, ok := r.lonelyNote(st); ok {
				out = append(out, w)
			}
		}
	}
	return out
}

// lonelyNote warns about a note at a time when nothing else happens: its
// narration would stand between two rows, before or after the event it tells
// of (a walk shows a narration with the rows of its beat, so such a note tells
// of rows its beat does not show). The hint names the nearest event, to
// attach the note to (note when ...) or to move it to.
func (r *Result) lonelyNote(st step) (Warning, bool) {
	tr := r.Trace
	at := sim.Time(st.at)
	for _, res := range r.Report.Results {
		for _, v := range res.Violations {
			if v.At == at {
				return Warning{}, false // it tells of a violation judged at that instant (a bound)
			}
		}
	}
	best, bestD := -1, sim.Time(-1)
	for i := range tr.Len() {
		e := tr.Event(i)
		if e.Kind == sim.EvNote || e.Kind == sim.EvEnd {
			continue
		}
		if e.At == at {
			return Warning{}, false // something happens at the note's time
		}
		d := e.At - at
		if d < 0 {
			d = -d
		}
		if bestD < 0 || d < bestD {
			best, bestD = i, d
		}
	}
	hint := "attach it to an event with note when PROC EVENT, or give it the time of the event it tells of"
	if best >= 0 {
		e := tr.Event(best)
		hint = fmt.Sprintf("the nearest event is at %s, %s: write note at %s, or note when ... for the event it tells of",
			e.At, tr.EventText(best), e.At)
	}
	return Warning{File: r.Scenario.File, Line: st.action.Line, Col: 1,
		Msg:  "nothing happens at " + at.String() + ", this note's time: its narration stands between two events",
		Hint: hint}, true
}

// declared is the name a declaration line declares, or "".
func declared(ln line) string {
	if c := ln.toks[0].text; (c == DeclNode || c == DeclClient || c == DeclResource) && len(ln.toks) > 1 {
		return ln.toks[1].text
	}
	return ""
}
