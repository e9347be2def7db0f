package scenarios

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/locksim/locksim/sim"
)

// A "what if" is a scenario with a few lines added: a fault at a moment the
// class chose ("at 2.2s pause c1 for=15s"), run again from the start beside the
// original. Its expect lines are dropped: they were about the run without the
// added lines, and the question is now what happens, not whether it matches.

// Fork is the text of the scenario with lines added, as a file a class keeps:
// a header naming the original and the lines, the original's text with its
// expect lines commented out, and the lines at the end.
func (s *Scenario) Fork(lines []string) string {
	var b strings.Builder
	b.WriteString("# What if: " + s.ID + ", with " + plural(len(lines), "line") + " added.\n#\n")
	for _, l := range lines {
		b.WriteString("#   " + l + "\n")
	}
	b.WriteString("#\n# The original is " + s.arg() + "; its expect lines are dropped (they were about the run without these lines).\n\n")
	b.WriteString(s.forked(lines))
	return b.String()
}

// forked is the original's text with its expect lines commented out, every
// other line where it was (so that a warning names the original's line), and
// the added lines at the end.
func (s *Scenario) forked(lines []string) string {
	var b strings.Builder
	for _, ln := range strings.Split(strings.TrimRight(Normalize(s.Source), "\n"), "\n") {
		if f := strings.Fields(ln); len(f) > 0 && f[0] == "expect" {
			ln = "# (dropped) " + strings.TrimSpace(ln)
		}
		b.WriteString(ln + "\n")
	}
	b.WriteString("\n" + whatIfMark + "\n")
	for _, l := range lines {
		b.WriteString(l + "\n")
	}
	return b.String()
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// With parses the scenario with lines added (Fork), with the original's kinds.
// An error in an added line is reported against it, at its column: as
// `--with "LINE":1:COL`.
func (s *Scenario) With(lines []string) (*Scenario, error) {
	for i, l := range lines {
		if strings.ContainsAny(l, "\n\r") {
			return nil, &Error{File: withName(l), Line: 1, Col: strings.IndexAny(l, "\n\r") + 1,
				Msg: "a --with line is one line", Hint: fmt.Sprintf("give each line its own --with (line %d)", i+1)}
		}
	}
	src := s.forked(lines)
	first := strings.Count(src, "\n") - len(lines) + 1 // the first added line's number
	f, err := s.reg.Parse(s.File, src)
	var pe *Error
	if errors.As(err, &pe) && pe.Line >= first && pe.Line < first+len(lines) {
		e := *pe
		e.File, e.Line = withName(lines[pe.Line-first]), 1
		return nil, &e
	}
	if err != nil {
		return nil, err
	}
	f.ID, f.WhatIf, f.whatIfLine, f.withArgs = s.ID, lines, first, true
	f.Summary = "what if: " + strings.Join(lines, "; ")
	if s.Teaching != "" { // it tells of the original's run: say so before it
		f.Teaching = "What if: " + strings.Join(lines, "; ") + " added to " + s.ID +
			". The original's paragraph, which tells of the run without them:\n\n" + s.Teaching
	}
	f.CompareWith = ""
	return f, nil
}

// whatIfMark is the comment before a what-if's added lines, in the text
// forked writes: a file written by the TUI's W is a what-if when it is read
// back, and tells its story as the TUI did (the original's narration left out
// from the added fault on).
const whatIfMark = "# What if:"

// whatIfPart finds a forked text's added lines: those after its last
// whatIfMark line, and the first one's line number.
func whatIfPart(src string) ([]string, int) {
	lines := strings.Split(Normalize(src), "\n")
	mark := -1
	for i, l := range lines {
		if strings.TrimSpace(l) == whatIfMark {
			mark = i
		}
	}
	if mark < 0 {
		return nil, 0
	}
	var added []string
	for _, l := range lines[mark+1:] {
		if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
			added = append(added, l)
		}
	}
	if len(added) == 0 {
		return nil, 0
	}
	return added, mark + 2
}

// withName is how an error names an added line.
func withName(line string) string { return "--with " + quote(line) }

// Title is how displays name the scenario: its id, and for a what-if, what was
// added ("redlock-clock-jump + at 2.2s pause c1 for=15s").
func (s *Scenario) Title() string {
	if len(s.WhatIf) == 0 {
		return s.ID
	}
	return s.ID + " + " + strings.Join(s.WhatIf, " + ")
}

// retell makes a what-if's narration honest: from the first added line's
// moment on, the run is the class's own, and the original's narration (its
// comments, notes and questions) told of a run that no longer happens (3PC's
// "p1 coordinates and decides COMMIT" under an added partition that makes p2
// and p3 abort). Narration that first shows before that moment stays: up to it
// the two runs are the same run. The first added line says so where the story
// leaves the original.
func (s *Scenario) retell(tr *sim.Trace) {
	tr.Actions = slices.Clone(tr.Actions) // the trace's own: a reused world keeps its slice
	first := make([]sim.Time, len(tr.Actions))
	seen := make([]bool, len(tr.Actions))
	from, added := sim.Time(-1), -1
	for i := range tr.Len() {
		e := tr.Event(i)
		if a := int(e.Action); a >= 0 && a < len(tr.Actions) && !seen[a] {
			seen[a], first[a] = true, e.At
			if tr.Actions[a].Line >= s.whatIfLine && from < 0 {
				from, added = e.At, a
			}
		}
	}
	if from < 0 {
		return // no added line happened within the run
	}
	for a := range tr.Actions {
		if seen[a] && first[a] >= from && tr.Actions[a].Line < s.whatIfLine {
			tr.Actions[a].Narration, tr.Actions[a].Question = "", ""
			if tr.Actions[a].Kind == sim.ActNote { // a note is nothing but its text: say why it is empty
				tr.Actions[a].Narration = "(The original's note here is left out: it told of the run without the what-if.)"
			}
		}
	}
	tr.Actions[added].Narration = "What if: " + strings.Join(s.WhatIf, "; ") + ". From here the run is the class's own: " +
		"the original's narration stops, as it told of a run that no longer happens."
}
