package proptest

import (
	"cmp"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/scenarios/explore"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/sim/fault"
	"github.com/locksim/locksim/sim/simtest"
)

// Config is a property test over a template: which faults rapid draws, which
// invariants must hold, where a failure is written and how it is replayed.
type Config struct {
	// Template is the path of the scenario file the faults are drawn over,
	// relative to the test's package directory.
	Template string
	// Kinds are your own process kinds, registered besides the built-in ones,
	// for a template that declares them.
	Kinds []scenarios.Kind
	// Faults is the menu (nil: every kind the template has something to hit
	// with, as explore's default).
	Faults []fault.Kind
	// MaxFaults is at most how many faults a schedule has (0: 4).
	MaxFaults int
	// MaxDriftPPM bounds the drift faults: rapid draws |ppm| up to it, and the
	// exhaustive search's default menu tries -MaxDriftPPM and +MaxDriftPPM
	// (0: 2000, explore's default, inside Redlock's 1% allowance; at most
	// sim.MaxDriftPPM, as a scenario's clock-drift). Widen it to find a drift
	// margin that is too small for the clocks a design really runs on.
	MaxDriftPPM int64
	// Invariants must hold (nil: every invariant that decides the verdict:
	// safety, and liveness too with Liveness). Names as docs/invariants.md.
	Invariants []string
	// Liveness adds a heal phase after the faults and demands progress within
	// the template's bound after it.
	Liveness bool
	// Dir is where a failing scenario is written ("": $LOCKSIM_FOUND_DIR, else
	// testdata/locksim-found).
	Dir string
	// Program is the command that replays a written file: "locksim" when empty;
	// your own binary when the template uses kinds you registered
	// ("go run ./cmd/example-lock").
	Program string

	// CheckFaults bounds the exhaustive search (Exhaustive, and Find before it
	// draws at random): every schedule of up to this many faults (0: 1), in the
	// order `locksim check` runs them.
	CheckFaults int
	// Points is where the exhaustive search places faults (zero: event points).
	Points explore.Points
	// Menu is the sizes the exhaustive search tries (nil: explore.DefaultMenu).
	Menu explore.Menu
	// Seed is every exhaustive run's seed, and the first random one's (0: 1).
	Seed uint64
	// Runs is how many random schedules Find draws, from Seed on, once the
	// exhaustive search has found nothing (0: 1000), and how many Check draws
	// (0: simtest.Cases(2)).
	Runs int
}

// Failure is what a failing property found: the shrunk run, and the file that
// replays it.
type Failure struct {
	File     string         // the written scenario's absolute path
	Broken   []string       // the invariants it breaks
	Detail   string         // the first violation, in words
	Schedule fault.Schedule // the shrunk faults
	Message  string         // the test's failure message: the file and the replay command
}

// DefaultDir is where failing scenarios go when neither Config.Dir nor
// $LOCKSIM_FOUND_DIR says: under the test's package, next to rapid's own
// testdata/rapid.
const DefaultDir = "testdata/locksim-found"

// EnvDir names the environment variable that overrides DefaultDir: CI sets it
// and uploads the folder as an artifact (docs/ci.md).
const EnvDir = "LOCKSIM_FOUND_DIR"

// Check requires that the template's runs keep the invariants under a fixed
// set of drawn schedules: Config.Runs of them (0: simtest.Cases(2), 20 by
// default and 200 under -tags long), drawn from Config.Seed on as
// `locksim explore --seed` draws them, so two runs of a test try the same
// schedules. On a failure the schedule is shrunk, the shrunk run is written as
// a scenario file, and the test fails with a message that names the file, the
// seed and the command that steps through it. For a guarantee over every
// schedule within a bound, use Exhaustive.
func Check(t *testing.T, c Config) {
	t.Helper()
	run := newRunner(t, c, t.Name())
	n := cmp.Or(c.Runs, simtest.Cases(2))
	f, err := run.random(n)
	if err != nil {
		t.Fatalf("locksim: %v", err)
	}
	if f != nil {
		t.Errorf("locksim: %s", f.Message)
		if err := run.replays(); err != nil {
			t.Errorf("locksim: %v", err)
		}
		return
	}
	t.Logf("locksim: %d schedules drawn from seed %d on, none broke %s", n, run.seed(), run.judged())
}

// Exhaustive requires that every fault schedule within the bound (up to
// Config.CheckFaults faults at Config.Points, sizes from Config.Menu) keeps
// the invariants, as `locksim check` proves it: the same schedules, in the
// same order, every time. On a failure the shortest counterexample is written
// as a scenario file, and the test fails with a message that names it.
// It returns what was checked.
func Exhaustive(t *testing.T, c Config) explore.Result {
	t.Helper()
	run := newRunner(t, c, t.Name())
	res, found, err := run.exhaustive()
	if err != nil {
		t.Fatalf("locksim: %v", err)
	}
	if found != nil {
		t.Errorf("locksim: %s", found.Message)
		if err := run.replays(); err != nil {
			t.Errorf("locksim: %v", err)
		}
		return res
	}
	t.Logf("locksim: %d schedules of up to %d fault(s) at %s points, none broke %s", res.Schedules(), run.checkFaults(), run.points(), run.judged())
	return res
}

// Find requires that a schedule breaks the invariants, for a design you know
// to be broken (a client without its validity timer), and returns the
// failure, written as Check would write it. It searches without chance: first
// every schedule within the bound, shortest first (Exhaustive's search); only
// if none breaks, Config.Runs random schedules drawn from Config.Seed on, the
// first failure shrunk. The same test gives the same answer on every run. It
// fails the test when nothing is found, and when the written file does not
// replay the violation.
func Find(t *testing.T, c Config) Failure {
	t.Helper()
	run := newRunner(t, c, t.Name())
	res, found, err := run.exhaustive()
	if err != nil {
		t.Fatalf("locksim: %v", err)
	}
	if found == nil {
		if found, err = run.random(run.runs()); err != nil {
			t.Fatalf("locksim: %v", err)
		}
	}
	if found == nil {
		t.Fatalf("locksim: no schedule breaks %s: %d schedules of up to %d fault(s) at %s points, then %d drawn from seed %d (a design the literature calls broken must break)",
			run.judged(), res.Schedules(), run.checkFaults(), run.points(), run.runs(), run.seed())
	}
	if err := run.replays(); err != nil {
		t.Fatalf("locksim: %v", err)
	}
	t.Logf("locksim: found: %s", found.Message)
	return *found
}

// exhaustive runs the bound's every schedule, and writes the shortest
// counterexample, if any.
func (r *runner) exhaustive() (explore.Result, *Failure, error) {
	b := explore.Bound{MaxFaults: r.checkFaults(), Menu: r.c.Menu, Points: r.c.Points}
	e, err := r.cfg.Exhaustive(r.seed(), b, 1, 1)
	if err != nil {
		return explore.Result{}, nil, err
	}
	res, err := e.Run(r.cfg)
	if err != nil {
		return res, nil, err
	}
	o, n := res.Shortest()
	if o == nil {
		return res, nil, nil
	}
	small, runs, err := r.cfg.ShrinkSizes(*o, 1000)
	if err != nil {
		return res, nil, err
	}
	fewer := 0
	for _, t := range res.Levels[:len(o.Schedule)] {
		fewer += t.Schedules
	}
	f, err := r.write(small, explore.Found{Command: r.command, Program: cmp.Or(r.c.Program, "locksim"), Checked: []string{
		fmt.Sprintf("Found by `%s`, which searches every schedule of up to %d fault(s) (%s points, seed %d):", r.command, r.checkFaults(), r.points(), r.seed()),
		fmt.Sprintf("the first of %d counterexample(s) with %d fault(s); none of the %d schedule(s) with fewer faults broke.", n, len(o.Schedule), fewer),
		fmt.Sprintf("Its sizes were shrunk in %d more runs.", runs)}})
	if err != nil {
		return res, nil, err
	}
	r.last = &f
	return res, &f, nil
}

// random draws n schedules from Config.Seed on (explore's draws) and shrinks
// the first that breaks.
func (r *runner) random(n int) (*Failure, error) {
	for i := range n {
		seed := r.seed() + uint64(i)
		o, err := r.cfg.Explore(seed)
		if err != nil {
			return nil, err
		}
		if !o.Failed() {
			continue
		}
		small, runs, err := r.cfg.Shrink(o, 1000)
		if err != nil {
			return nil, err
		}
		f, err := r.write(small, explore.Found{Command: r.command, Runs: i + 1, Original: len(o.Schedule), ShrinkRuns: runs,
			Program: cmp.Or(r.c.Program, "locksim")})
		if err != nil {
			return nil, err
		}
		f.Message += fmt.Sprintf("\nfound at the schedule drawn from seed %d (the %d-th drawn from seed %d on)", seed, i+1, r.seed())
		r.last = &f
		return &f, nil
	}
	return nil, nil
}

func (r *runner) checkFaults() int { return cmp.Or(r.c.CheckFaults, 1) }
func (r *runner) seed() uint64     { return cmp.Or(r.c.Seed, 1) }
func (r *runner) runs() int        { return cmp.Or(r.c.Runs, 1000) }

func (r *runner) points() string {
	if r.c.Points.Mode == "" {
		return string(explore.PointsEvents)
	}
	return r.c.Points.String()
}

func (r *runner) judged() string {
	if len(r.c.Invariants) > 0 {
		return strings.Join(r.c.Invariants, ", ")
	}
	return "the invariants that decide the verdict"
}

// runner is one property test: the exploration config, and what was written.
type runner struct {
	cfg     *explore.Config
	c       Config
	reg     *scenarios.Registry
	file    string
	command string
	last    *Failure
}

func newRunner(t *testing.T, c Config, test string) *runner {
	t.Helper()
	src, err := scenarios.ReadSource(c.Template)
	if err != nil {
		t.Fatalf("locksim: %v", err)
	}
	reg, err := scenarios.Builtins().With(c.Kinds...)
	if err != nil {
		t.Fatalf("locksim: registering Kinds: %v", err)
	}
	tpl, err := explore.FromSourceIn(reg, c.Template, src)
	if err != nil {
		t.Fatalf("locksim: the template: %v", err)
	}
	menu := c.Faults
	if menu == nil {
		menu = fault.Kinds
	}
	cfg := &explore.Config{Template: tpl, Liveness: c.Liveness, Invariants: c.Invariants,
		Space: fault.Space{Menu: menu, MaxFaults: c.MaxFaults, MaxDrift: c.MaxDriftPPM}}
	if c.MaxDriftPPM < 0 || c.MaxDriftPPM > sim.MaxDriftPPM {
		t.Fatalf("locksim: MaxDriftPPM %d: expected 0 (the default, 2000) to %d", c.MaxDriftPPM, sim.MaxDriftPPM)
	}
	for _, n := range c.Invariants {
		if !slices.Contains(check.Names(), n) {
			t.Fatalf("locksim: unknown invariant %q (invariants are: %s)", n, strings.Join(check.Names(), ", "))
		}
	}
	if cfg.Space.Menu = cfg.Usable(); len(cfg.Space.Menu) == 0 {
		t.Fatalf("locksim: %s has nothing the faults %s can hit", c.Template, fault.KindList(c.Faults, ","))
	}
	dir := cmp.Or(c.Dir, os.Getenv(EnvDir), DefaultDir)
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	return &runner{cfg: cfg.Worker(), c: c, reg: reg, file: filepath.Join(dir, fileName(test)), // one goroutine: runs reuse memory
		command: fmt.Sprintf("go test -run '^%s$'", strings.Split(test, "/")[0])}
}

// fileName makes a test's name a file name: TestBroken/sub -> TestBroken_sub.scn.
func fileName(test string) string {
	return strings.Map(func(r rune) rune {
		if r == '/' || r == '\\' || r == ' ' || r == ':' {
			return '_'
		}
		return r
	}, test) + scenarios.Ext
}

// write writes outcome o as a scenario file and says where.
func (r *runner) write(o explore.Outcome, found explore.Found) (Failure, error) {
	prog := found.Program
	src := r.cfg.Scenario(o, found, r.file)
	if err := os.MkdirAll(filepath.Dir(r.file), 0o755); err != nil {
		return Failure{}, err
	}
	if err := os.WriteFile(r.file, []byte(src), 0o644); err != nil {
		return Failure{}, err
	}
	faults := "none"
	if len(o.Schedule) > 0 {
		faults = o.Schedule.String()
	}
	msg := fmt.Sprintf("%s breaks %s at %s: %s\nfaults: %s\nscenario written to %s\nstep through it: %s tui %s",
		r.c.Template, strings.Join(o.Broken, " and "), o.At, o.Detail, faults, r.file, prog, r.file)
	return Failure{File: r.file, Broken: o.Broken, Detail: o.Detail, Schedule: o.Schedule, Message: msg}, nil
}

// replays reads the last written file back and runs it as a user would: it
// must parse, and its own expect lines (the violation it pins) must hold.
func (r *runner) replays() error {
	src, err := os.ReadFile(r.last.File)
	if err != nil {
		return err
	}
	s, err := r.reg.Parse(r.last.File, string(src))
	if err != nil {
		return fmt.Errorf("the written scenario does not parse (a bug): %w", err)
	}
	res := scenarios.Run(s, scenarios.RunOptions{Program: r.c.Program})
	if !res.OK() {
		return fmt.Errorf("%s does not replay its violation (a bug): its expect lines fail", r.last.File)
	}
	for _, inv := range r.last.Broken {
		if v, _ := res.Report.Result(inv); len(v.Violations) == 0 {
			return fmt.Errorf("%s does not replay its violation of %s (a bug)", r.last.File, inv)
		}
	}
	return nil
}
