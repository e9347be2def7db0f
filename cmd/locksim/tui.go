package main

import (
	"io"
	"os"

	"charm.land/lipgloss/v2"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/tui"
)

// terminal reports whether locksim talks to a person at a terminal. Tests replace
// it; CI and pipes have none.
var terminal = func() bool { return tui.IsTerminal(os.Stdin) && tui.IsTerminal(os.Stdout) }

func uiOptions() tui.Options {
	plain := os.Getenv("NO_COLOR") != "" // no-color.org: set and not empty
	return tui.Options{Plain: plain, Dark: plain || lipgloss.HasDarkBackground(os.Stdin, os.Stdout)}
}

// browse opens the catalogue browser.
func browse(stdout io.Writer) error {
	cat, err := scenarios.Catalogue()
	if err != nil {
		return err
	}
	opt := uiOptions()
	opt.Catalogue = cat
	return tui.Run(opt, os.Stdin, stdout)
}

func cmdTUI(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("tui", "tui ID|FILE [--seed N] [--walk]", `
Opens one scenario in the terminal UI: the timeline, the narration of each step,
the state of a process and every clock at the cursor. Needs a terminal; without
one, use locksim run, which prints the same timeline as plain text.`)
	var seed seedFlag
	fs.Var(&seed, "seed", "seed to run with (default: the scenario's own)")
	walk := fs.Bool("walk", false, "play stops at each narrated step (for workshops)")
	pos, err := parseFlags(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("tui needs one scenario: locksim tui ID|FILE (see locksim list)")
	}
	if !terminal() {
		return usagef("locksim tui needs a terminal; without one, run: locksim run %s", pos[0])
	}
	s, err := scenarios.Load(pos[0])
	if err != nil {
		return usageError{err}
	}
	opt := uiOptions()
	opt.Result = scenarios.Run(s, scenarios.RunOptions{Seed: seed.ptr(), Snapshots: true})
	opt.Walk = *walk
	return tui.Run(opt, os.Stdin, stdout)
}
