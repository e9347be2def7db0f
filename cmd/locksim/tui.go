package main

import (
	"errors"
	"io"
	"os"

	tea "charm.land/bubbletea/v2"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/tui"
)

// terminal reports whether locksim talks to a person at a terminal. Tests replace
// it; CI and pipes have none.
var terminal = func() bool { return tui.IsTerminal(os.Stdin) && tui.IsTerminal(os.Stdout) }

// uiOptions are the UI's options on this terminal. The background colour is asked
// of the terminal by the UI itself, never before it starts: a terminal that does
// not answer queries would hold the start for seconds and swallow the keys typed.
func uiOptions() tui.Options {
	plain := os.Getenv("NO_COLOR") != "" // no-color.org: set and not empty
	return tui.Options{Plain: plain, Dark: true, AskBackground: !plain}
}

// browse opens the catalogue browser.
func browse() error {
	cat, err := scenarios.Catalogue()
	if err != nil {
		return err
	}
	opt := uiOptions()
	opt.Catalogue = cat
	return runUI(opt)
}

// runUI runs the UI on the terminal (locksim's own stdin and stdout, which
// terminal() checked). A panic inside it is a bug, like one anywhere else (Bubble
// Tea has restored the terminal and printed where it failed).
func runUI(opt tui.Options) error {
	err := tui.Run(opt, os.Stdin, os.Stdout)
	if errors.Is(err, tea.ErrProgramPanic) {
		return internalError{value: "the terminal UI panicked", args: os.Args[1:]}
	}
	return err
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
	useBudget(s)
	opt := uiOptions()
	opt.Result = scenarios.Run(s, scenarios.RunOptions{Seed: seed.ptr(), Snapshots: true})
	opt.Walk = *walk
	return runUI(opt)
}
