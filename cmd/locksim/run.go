package main

import (
	"io"
	"runtime/debug"
	"strconv"

	"github.com/locksim/locksim/scenarios"
)

// seedFlag is an optional --seed: unset means the scenario's own.
type seedFlag struct {
	v   uint64
	set bool
}

func (s *seedFlag) String() string {
	if !s.set {
		return "the scenario's own"
	}
	return strconv.FormatUint(s.v, 10)
}

func (s *seedFlag) Set(v string) error {
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return err
	}
	s.v, s.set = n, true
	return nil
}

func (s *seedFlag) ptr() *uint64 {
	if !s.set {
		return nil
	}
	return &s.v
}

// useBudget tells Go's garbage collector the memory budget of the scenarios about
// to run (their limit memory=), so that it collects harder before the process
// grows past it instead of letting the heap double. The run itself stops at
// the budget (sim/memory.go); this keeps what the machine sees close to it.
func useBudget(ss ...*scenarios.Scenario) {
	var most int64
	for _, s := range ss {
		most = max(most, s.Limits.MaxMemory)
	}
	debug.SetMemoryLimit(most)
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", "run ID|FILE [--seed N] [--format text|json] [--full]", `
Runs one scenario (a catalogue id or a scenario file) and prints its events with
true time and each process's own clock, the timeline, the invariants' verdicts,
metrics and expectations. Exit 0 when every expectation holds, 1 when one fails.`)
	var seed seedFlag
	fs.Var(&seed, "seed", "seed to run with (default: the scenario's own)")
	format := fs.String("format", "text", "output format: text or json")
	full := fs.Bool("full", false, "text: show every event and timeline row of a long run")
	pos, err := parseFlags(fs, args, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("run needs one scenario: locksim run ID|FILE (see locksim list)")
	}
	if err := checkFormat(*format); err != nil {
		return err
	}
	s, err := scenarios.Load(pos[0])
	if err != nil {
		return usageError{err}
	}
	useBudget(s)
	res := scenarios.Run(s, scenarios.RunOptions{Seed: seed.ptr()}) // no snapshots: only the TUI shows them
	if *format == "json" {
		err = res.WriteJSON(stdout)
	} else {
		err = res.WriteText(stdout, scenarios.TextOptions{Full: *full})
	}
	if err != nil {
		return err
	}
	if !res.OK() {
		return failError{errorf("%s: an expectation failed; reproduce with: %s", s.ID, res.ReproduceCommand())}
	}
	return nil
}
