package cli

import (
	"flag"
	"fmt"
	"io"

	"github.com/locksim/locksim/scenarios"
)

// strictFlag adds --strict: a warning (an action after run until=, a trigger
// that never fired, a process never used) becomes an error, exit 2.
func strictFlag(fs *flag.FlagSet) *bool {
	return fs.Bool("strict", false, "treat warnings (an action after until=, a trigger that never fired, an unused process) as errors")
}

// strictBefore refuses, with --strict, a scenario whose text has a warning,
// before anything runs.
func strictBefore(strict bool, ss ...*scenarios.Scenario) error {
	for _, s := range ss {
		if s != nil && strict && len(s.Warnings) > 0 {
			return usageError{s.Warnings[0].Err()}
		}
	}
	return nil
}

// warnAfter prints a run's warnings to stderr (the exit code is unchanged), or
// with --strict returns the first as an error.
func warnAfter(strict bool, stderr io.Writer, rs ...*scenarios.Result) error {
	for _, r := range rs {
		if r == nil {
			continue
		}
		ws := r.Warnings()
		if strict && len(ws) > 0 {
			return usageError{ws[0].Err()}
		}
		for _, w := range ws {
			fmt.Fprintln(stderr, app.name+": "+w.String())
		}
	}
	return nil
}
