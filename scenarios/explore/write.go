package explore

import (
	"fmt"
	"slices"
	"strings"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// Found is how a failing schedule was found and shrunk, for the file's header.
type Found struct {
	Command    string // the command line that found it
	Runs       int    // runs until it was found
	Original   int    // faults before shrinking
	ShrinkRuns int    // runs the shrinking took
	// Program is the command that replays the file: "locksim" when empty; a
	// user's own binary that registers its kinds ("go run ./cmd/example-lock").
	Program string
	// Checked, when set, says how an exhaustive check found it, in place of the
	// lines on runs and shrinking: the bound, and that no schedule with fewer
	// faults broke.
	Checked []string
}

// Scenario writes a failing outcome as a scenario file: a narration that names
// each fault and what breaks, the template, the faults, and expect lines that
// pin the violation. Replaying it reproduces the run exactly.
func (c *Config) Scenario(o Outcome, f Found, file string) string {
	var b strings.Builder
	line := func(format string, a ...any) {
		b.WriteString(strings.TrimRight("# "+fmt.Sprintf(format, a...), " ") + "\n")
	}
	if f.Checked != nil {
		line("%s breaks %s: found by an exhaustive check, %d fault(s).", scenarios.Shown(c.Template.Name), strings.Join(o.Broken, " and "), len(o.Schedule))
		line("")
		for _, l := range f.Checked {
			line("%s", l)
		}
	} else {
		line("%s breaks %s: found by exploration, shrunk to %d fault(s).", scenarios.Shown(c.Template.Name), strings.Join(o.Broken, " and "), len(o.Schedule))
		line("")
		line("Found by `%s` after %d run(s) (seed %d), shrunk from %d faults in %d more runs.", f.Command, f.Runs, o.Seed, f.Original, f.ShrinkRuns)
	}
	line("The workload is the %s template's; the faults are these:", scenarios.Shown(c.Template.Name))
	cast := c.Template.Cast()
	cast.Empty = c.restartsEmpty(o)
	for _, ft := range o.Schedule.InTimeOrder() {
		line("  - %s;", ft.Say(cast))
	}
	at := o.At.String()
	line("and at %s, %s.", at, o.Detail)
	if c.Liveness {
		line("Every fault drawn is over by the heal at %s (crashed processes restarted, pauses ended, links restored and partitions healed; clock jumps and drifts stay), so a lack of progress after it is the protocol's.", ms(c.Template.Horizon))
	}
	line("")
	prog := f.Program
	if prog == "" {
		prog = "locksim"
	}
	line("Replay it: %s run %s", prog, scenarios.ShellWord(file))
	line("Step through it: %s tui %s", prog, scenarios.ShellWord(file))
	b.WriteString("\n")
	body := c.source(o.Seed, o.Schedule, cast, true)
	b.WriteString(body)
	for _, inv := range o.Broken {
		fmt.Fprintf(&b, "expect violated %s\n", inv)
	}
	fmt.Fprintf(&b, "expect verdict %s\n", o.Verdict)
	return b.String()
}

// restartsEmpty lists the processes that came back from a crash in o's run with
// nothing read back from disk (a Redis node without persistence, a client), by
// replaying it (a run is a function of its seed and schedule) and reading the
// kernel's note on each restart: the narration then says "restarts empty".
func (c *Config) restartsEmpty(o Outcome) []string {
	sc, err := c.Template.reg.Parse(c.Template.Name, c.Source(o.Seed, o.Schedule, false))
	if err != nil {
		return nil // Try parsed the same text; the narration just stays general
	}
	tr := scenarios.Run(sc, scenarios.RunOptions{}).Trace
	var out []string
	for i := range tr.Len() {
		e := tr.Event(i)
		var n int
		if e.Kind != sim.EvRestart {
			continue
		}
		if _, err := fmt.Sscanf(tr.Note(e), sim.NoteRecovers, &n); err == nil && n == 0 && !slices.Contains(out, tr.Name(e.Proc)) {
			out = append(out, tr.Name(e.Proc))
		}
	}
	return out
}

// Says is each fault of o's schedule in words, in time order, as the file
// written for it says them (a process that came back with nothing "restarts
// empty").
func (c *Config) Says(o Outcome) []string {
	cast := c.Template.Cast()
	cast.Empty = c.restartsEmpty(o)
	out := []string{}
	for _, f := range o.Schedule.InTimeOrder() {
		out = append(out, f.Say(cast))
	}
	return out
}
