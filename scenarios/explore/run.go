package explore

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/sim/fault"
)

// Config is what an exploration checks, and how.
type Config struct {
	Template *Template // what the faults are drawn over
	// Space is the menu, MaxFaults, MaxDrift and swarm mode; the template gives
	// the targets and the end (its horizon).
	Space fault.Space
	// Invariants to check; empty: whatever decides the verdict (safety, and
	// liveness with Liveness).
	Invariants []string
	// Liveness adds a heal phase after the faults and judges progress within the
	// bound after it.
	Liveness bool
	// Hash records each run's trace hash (for the determinism check; it costs
	// more than the run).
	Hash bool
	// FullTrace records each run's whole trace. Without it (and without Hash) a
	// run records only what the checker reads (scenarios.RunOptions.CheckerOnly):
	// the verdict is the same, and a failing seed is run again in full where it
	// is shown (the written scenario replays it).
	FullTrace bool

	// Stop, when set, is asked between the schedules of an exhaustive check's
	// job: when it says so, the job ends early with ErrStopped (a budget; this
	// package keeps no wall time of its own).
	Stop func() bool

	parsed  *parsed    // the template, parsed once (Try)
	targets *targets   // what each fault kind can hit in the template, found once (Draw)
	reuse   *sim.Reuse // with Worker: each run records into the memory of the last
}

// targets is Template.Targets for every kind, found at once for one template:
// every run draws from them, and once made the table is only read (copies of
// a Config made by Worker share it).
type targets struct {
	of  *Template
	all map[fault.Kind]fault.Targets
}

// Worker returns a copy of c for one goroutine: each of its runs records its
// trace into the memory the previous one left (sim.Reuse), which a Config that
// several goroutines share cannot do. The outcomes are the same.
func (c *Config) Worker() *Config {
	w := *c
	w.reuse = sim.NewReuse()
	return &w
}

// Outcome is one run of one schedule.
type Outcome struct {
	Seed     uint64         // the world's seed
	Schedule fault.Schedule // the faults
	Broken   []string       // the invariants it broke (empty: none)
	Detail   string         // the first violation, in words
	At       sim.Time       // when
	Verdict  check.Verdict  // the run's verdict
	Hash     string         // the trace's hash, with Config.Hash
	Events   int            // how many trace events the run had
}

// Failed reports whether the run broke what the exploration checks.
func (o *Outcome) Failed() bool { return len(o.Broken) > 0 }

// end is where a run stops: the template's horizon, or with liveness, the bound
// after it (within the longest run there is).
func (c *Config) end() time.Duration {
	if c.Liveness {
		return min(c.Template.Horizon+c.Template.Bound+time.Second, sim.MaxRunTime)
	}
	return c.Template.Horizon
}

// Source is the scenario text of a run of schedule s with seed: the template, the
// faults, the heal phase, the end.
func (c *Config) Source(seed uint64, s fault.Schedule, comments bool) string {
	return c.source(seed, s, c.Template.Cast(), comments)
}

func (c *Config) source(seed uint64, s fault.Schedule, cast fault.Cast, comments bool) string {
	var b strings.Builder
	b.WriteString(c.Template.Body)
	fmt.Fprintf(&b, "\nseed %d\n", seed)
	if len(s) > 0 {
		b.WriteString("\n")
	}
	b.WriteString(s.Text(cast, comments))
	if c.Liveness {
		// Every drawn fault has ended by the horizon (crashes restarted, pauses
		// over, links restored); the heal makes sure no partition is left. Clock
		// jumps and drifts stay: a protocol must make progress on wrong clocks.
		if comments {
			b.WriteString("\n# The heal phase: every fault drawn is over by now; from here the run must make progress.\n")
		}
		b.WriteString("at " + ms(c.Template.Horizon) + " heal\n")
	}
	if c.end() > sim.DefaultLimits().MaxTime { // the template's limit line is gone
		fmt.Fprintf(&b, "\nlimit time=%s", ms(c.end()))
	}
	fmt.Fprintf(&b, "\nrun until=%s\n", ms(c.end()))
	return b.String()
}

// Try runs schedule s with seed and judges it. The template (Source with no
// faults) is parsed once and kept; each run applies the schedule to its world as
// kernel actions (fault.Schedule.Apply), which make the same run, event for
// event, as the scenario text Source writes with the schedule in it
// (TestTheScheduleTextAndTheKernelActionsMakeTheSameRun), without parsing that
// text for every run. The first call fills the cache: a Config used from several
// goroutines (explore --workers) is tried once before they start.
func (c *Config) Try(seed uint64, s fault.Schedule) (Outcome, error) {
	return c.try(seed, s, nil)
}

// try is Try, with read given the trace before it is recycled (and the run
// keeping its wall-timer log for it): an exhaustive check finds where the next
// fault may fall from the run as the schedule's faults left it.
func (c *Config) try(seed uint64, s fault.Schedule, read func(*sim.Trace)) (Outcome, error) {
	sc, err := c.base()
	if err != nil {
		return Outcome{}, err
	}
	r := scenarios.RunWith(sc, scenarios.RunOptions{Seed: &seed, CheckerOnly: !c.Hash && !c.FullTrace, Reuse: c.reuse,
		VerdictOnly: true, WallTimers: read != nil},
		func(w *sim.World) { s.Apply(w, c.Template.Cast().Group) })
	if read != nil {
		read(r.Trace)
	}
	o := Outcome{Seed: seed, Schedule: s, Verdict: r.Report.Verdict, Events: r.Trace.Len()}
	if c.Hash {
		o.Hash = r.Trace.Hash()
	}
	for _, res := range c.judged(&r.Report) {
		o.Broken = append(o.Broken, res.Name)
		if o.Detail == "" {
			o.Detail, o.At = res.Violations[0].Detail, res.Violations[0].At
		}
	}
	if c.reuse != nil {
		r.Trace.Recycle() // the outcome keeps nothing of it
	}
	return o, nil
}

// parsed is the template as Try runs it: its text with no faults, parsed.
type parsed struct {
	tpl  *Template
	live bool
	sc   *scenarios.Scenario
}

// base is the parsed template, parsed again only when the settings that shape
// its text (the template, liveness) have changed since.
//
// The text is a function of those two alone, so they are what is compared:
// writing the text out for every run cost more than a small run's checking
// (fmt, a builder: a twentieth of explore's time in the browser's engine).
func (c *Config) base() (*scenarios.Scenario, error) {
	if c.parsed != nil && c.parsed.tpl == c.Template && c.parsed.live == c.Liveness {
		return c.parsed.sc, nil
	}
	src := c.Source(1, nil, false) // each run's seed overrides this one
	sc, err := c.Template.reg.Parse(c.Template.Name, src)
	if err != nil {
		return nil, fmt.Errorf("explore: the template does not parse (a bug): %w\n%s", err, src)
	}
	c.parsed = &parsed{c.Template, c.Liveness, sc}
	return sc, nil
}

// judged lists the violated results the exploration counts.
func (c *Config) judged(rep *check.Report) []check.Result {
	var out []check.Result
	if len(c.Invariants) > 0 {
		for _, r := range rep.Results {
			if len(r.Violations) > 0 && slices.Contains(c.Invariants, r.Name) {
				out = append(out, r)
			}
		}
		return out
	}
	for _, r := range rep.Deciding() {
		if r.Kind == check.Safety || c.Liveness {
			out = append(out, r)
		}
	}
	return out
}

// Explore draws and runs the schedule of seed.
func (c *Config) Explore(seed uint64) (Outcome, error) {
	return c.Try(seed, c.Draw(seed))
}

// Draw draws the schedule of seed, from the seed alone.
func (c *Config) Draw(seed uint64) fault.Schedule { return c.DrawFrom(fault.Seeded(seed)) }

// DrawFrom draws a schedule from src: a property test's rapid (simtest.Rapid),
// so that rapid shrinks the faults the explorer would draw.
func (c *Config) DrawFrom(src fault.Source) fault.Schedule { return c.space().Draw(src) }

// Usable is the menu without kinds that have nothing to hit in the template.
func (c *Config) Usable() []fault.Kind { return c.space().Usable() }

// space is the configured space over the template's targets, its faults over
// by its horizon.
func (c *Config) space() fault.Space {
	if c.targets == nil || c.targets.of != c.Template {
		t := &targets{of: c.Template, all: map[fault.Kind]fault.Targets{}}
		for _, k := range fault.Kinds {
			t.all[k] = c.Template.Targets(k)
		}
		c.targets = t
	}
	sp := c.Space
	sp.End = c.Template.Horizon
	all, tpl := c.targets.all, c.Template
	sp.Targets = func(k fault.Kind) fault.Targets {
		if t, ok := all[k]; ok {
			return t
		}
		return tpl.Targets(k) // a kind outside fault.Kinds: found each time
	}
	return sp
}

// ms writes a duration as the scenario language's whole milliseconds.
func ms(d time.Duration) string { return fmt.Sprintf("%dms", d.Milliseconds()) }
