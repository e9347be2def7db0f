//go:build !js

package cli

import (
	"errors"
	"io"
	"os"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/tui"
)

// terminal reports whether locksim talks to a person at a terminal. Tests replace
// it; CI and pipes have none.
var terminal = func() bool { return isTerminal(os.Stdin) && isTerminal(os.Stdout) }

func isTerminal(f *os.File) bool   { return tui.IsTerminal(f) }
func terminalWidth(f *os.File) int { return tui.TerminalWidth(f) }

// uiOptions are the UI's options on this terminal. The background colour is asked
// of the terminal by the UI itself, never before it starts: a terminal that does
// not answer queries would hold the start for seconds and swallow the keys typed.
func uiOptions() tui.Options {
	plain := os.Getenv("NO_COLOR") != "" // no-color.org: set and not empty
	return tui.Options{Plain: plain, Dark: true, AskBackground: !plain}
}

// browse opens the catalogue browser.
func browse() error {
	cat, err := app.scenarioCatalogue()
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
	fs := newFlagSet("tui", "tui ID|FILE [--seed N] [--walk] [--present] [--vs ID|FILE] [--with LINE...] [--strict]", `
Opens one scenario in the terminal UI: the timeline, the narration of each step,
the detail of the selected row, the state of a process and every clock at the
cursor. --walk follows the story one stop at a time without spoilers; --present
gives the timeline the whole width for a projector; --vs opens two runs side by
side on one true-time cursor (--vs with no scenario named: the scenario's own
compare-with). Needs a terminal; without one, use locksim run, which prints the
same timeline as plain text.`)
	var seed seedFlag
	fs.Var(&seed, "seed", "seed to run with (default: the scenario's own; with --vs, both runs')")
	walk := fs.Bool("walk", false, "follow the story: space goes to the next stop, rows below the cursor stay hidden")
	present := fs.Bool("present", false, "presentation mode: the timeline takes the width, background traffic folded")
	vs := fs.String("vs", "", "a second scenario (catalogue id or file) to compare with, side by side")
	var with multiFlag
	fs.Var(&with, "with", "a line to add, as a what-if (repeatable), as locksim run --with does")
	strict := strictFlag(fs)
	pos, err := parseFlags(fs, args, stdout, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("tui needs one scenario: %s tui ID|FILE (see %s list)", app.name, app.name)
	}
	if !terminal() {
		quoted := make([]string, len(args))
		for i, x := range args {
			quoted[i] = scenarios.ShellWord(x)
		}
		return usagef("%s tui needs a terminal; without one, run: %s run %s", app.name, app.name, strings.Join(quoted, " "))
	}
	a, b, err := loadPair(pos[0], *vs)
	if len(with) > 0 {
		a, b, err = loadWhatIf(pos[0], *vs, with)
	}
	if err != nil {
		return err
	}
	if err := strictBefore(*strict, a, b); err != nil {
		return err
	}
	useBudget(a, b)
	opt := uiOptions()
	opt.Result = scenarios.Run(a, scenarios.RunOptions{Seed: seed.ptr(), Snapshots: true, Program: app.name})
	if b != nil {
		opt.Versus = scenarios.Run(b, scenarios.RunOptions{Seed: seed.ptr(), Snapshots: true, Program: app.name})
	}
	if *strict { // refused before the screen opens
		if err := warnAfter(true, stderr, opt.Result, opt.Versus); err != nil {
			return err
		}
	}
	opt.Walk, opt.Present = *walk, *present
	if err := runUI(opt); err != nil {
		return err
	}
	return warnAfter(false, stderr, opt.Result, opt.Versus) // after the screen closes, where they stay readable
}
