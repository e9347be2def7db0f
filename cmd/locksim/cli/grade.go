package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/scenarios/explore"
)

// gradeResult is grade's JSON (--format json), for a course's scripts.
type gradeResult struct {
	SchemaVersion int      `json:"schema_version"`
	Exercise      string   `json:"exercise"`
	Answer        string   `json:"answer"`
	Goal          string   `json:"goal"`
	Passed        bool     `json:"passed"`
	Sentence      string   `json:"sentence"`
	Violation     string   `json:"violation,omitempty"`
	Verdict       string   `json:"verdict,omitempty"`
	Schedules     int      `json:"schedules,omitempty"` // claim none: how many were checked
	Faults        []string `json:"faults,omitempty"`    // the answer's fault lines
	Found         []string `json:"found,omitempty"`     // claim none refuted: the answer that exists, in words
	Refused       string   `json:"refused,omitempty"`   // the answer is outside the budget (exit 2): why, at which line
	Replay        string   `json:"replay,omitempty"`
}

func cmdGrade(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("grade", "grade EXERCISE ANSWER [--format text|json]", `
Grades a student's answer to an exercise (docs/exercises.md): checks that it
stays within the exercise's budget (any other line is refused: exit 2), runs the
exercise with it, and says in one sentence whether it passed, with the violation
that proves it (or the one still there). EXERCISE is an exercise id (the embedded
ones: scenarios/exercises/) or a file; ANSWER is a file of fault lines (at, when),
set lines (goal safe, goal holds), or claim none (no answer exists within the
budget: every schedule within it is checked). Exit 0 passed, 1 not passed.`)
	format := fs.String("format", "text", "output format: text or json")
	pos, err := parseFlags(fs, args, stdout, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 2 {
		return usagef("grade takes an exercise and an answer (got %d arguments): locksim grade redlock-one-pause answer.scn", len(pos))
	}
	if err := checkFormat(*format, "text", "json"); err != nil {
		return err
	}
	ex, err := scenarios.LoadExercise(pos[0])
	if err != nil {
		return usageError{err}
	}
	src, err := scenarios.ReadSource(pos[1])
	if err != nil {
		return usageError{err}
	}
	w, ans, err := ex.Answer(pos[1], src)
	if err != nil {
		if *format == "json" { // a course's script gets JSON for a refused answer too
			b, _ := json.MarshalIndent(gradeResult{SchemaVersion: scenarios.SchemaVersion, Exercise: ex.ID, Answer: pos[1], Refused: err.Error()}, "", "  ")
			fmt.Fprintln(stdout, string(b))
		}
		return usageError{err}
	}
	target := ex.ID // how the command line names the exercise
	if !strings.HasPrefix(ex.File, "exercises/") {
		target = ex.File
	}
	g := ex.Exercise.Goal
	out := gradeResult{SchemaVersion: scenarios.SchemaVersion, Exercise: ex.ID, Answer: pos[1], Goal: strings.TrimSpace(g.Kind + " " + g.Invariant)}
	if ans.Claim {
		t, err := explore.NoAnswer(ex, nil)
		if err != nil {
			return usageError{err}
		}
		out.Schedules = t.Schedules
		if t.First == nil {
			out.Passed = true
			out.Sentence = fmt.Sprintf("Passed: no answer exists within this budget; every one of the %d schedules within it was run, and none %s.", t.Schedules, g.Sentence())
		} else {
			out.Sentence = fmt.Sprintf("Not passed: an answer exists within this budget, so %s can be made to fail: it %s.", ex.ID, g.Sentence())
			tpl, _ := explore.FromSource(ex.File, ex.Source)
			for _, f := range t.First.Schedule {
				out.Found = append(out.Found, f.Say(tpl.Cast()))
			}
			out.Violation = fmt.Sprintf("%s at %s: %s", strings.Join(t.First.Broken, ", "), t.First.At, t.First.Detail)
		}
		out.Replay = "locksim grade " + target + " " + pos[1]
	} else {
		res := scenarios.Run(w, scenarios.RunOptions{Program: app.name})
		gr := scenarios.Judge(ex, ans, res)
		out.Passed, out.Sentence, out.Violation, out.Verdict, out.Faults = gr.Passed, gr.Sentence, gr.Violation, gr.Verdict, ans.Faults
		out.Replay = replayCommand(ex, ans)
		if len(ans.Sets) > 0 {
			out.Replay = "locksim grade " + target + " " + pos[1]
		}
	}
	if *format == "json" {
		b, _ := json.MarshalIndent(out, "", "  ")
		fmt.Fprintln(stdout, string(b))
	} else {
		fmt.Fprintln(stdout, out.Sentence)
		if out.Violation != "" {
			fmt.Fprintln(stdout, "  "+out.Violation)
		}
		for _, f := range out.Found {
			fmt.Fprintln(stdout, "  - "+f)
		}
		fmt.Fprintln(stdout, "replay: "+out.Replay)
		if strings.HasPrefix(out.Replay, "locksim run ") {
			fmt.Fprintln(stdout, "        "+strings.Replace(out.Replay, "locksim run ", "locksim tui ", 1))
		}
	}
	if !out.Passed {
		return failError{fmt.Errorf("not passed")}
	}
	return nil
}

// replayCommand is the command that shows the exercise run with the answer.
func replayCommand(ex *scenarios.Scenario, ans *scenarios.Answer) string {
	target := ex.ID
	if !strings.HasPrefix(ex.File, "exercises/") {
		target = ex.File
	}
	cmd := "locksim run " + target
	for _, f := range ans.Faults {
		cmd += " --with " + shellQuote(f)
	}
	return cmd
}

func shellQuote(s string) string { return `"` + strings.ReplaceAll(s, `"`, `\"`) + `"` }
