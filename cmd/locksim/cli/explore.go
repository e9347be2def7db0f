package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/pkg/errors"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/scenarios/explore"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/sim/fault"
)

// exploreOptions are explore's flags.
type exploreOptions struct {
	faults, invariants, shard, out, format string
	runs, maxFaults, shrinkRuns, workers   int
	maxDrift                               int64
	budget                                 time.Duration
	seed                                   uint64
	liveness, swarm, determinism           bool
}

// exploreSummary is the final report, as JSON prints it (docs/explore.md).
type exploreSummary struct {
	Target      string           `json:"target"`
	Faults      []string         `json:"faults"`
	Shard       string           `json:"shard"`
	FirstSeed   uint64           `json:"first_seed"`
	LastSeed    uint64           `json:"last_seed"`
	Runs        int              `json:"runs"`
	ElapsedS    float64          `json:"elapsed_s"`
	RunsPerS    float64          `json:"runs_per_s"`
	Violations  []foundViolation `json:"violations"`
	Mismatches  []uint64         `json:"determinism_mismatches"`
	StoppedBy   string           `json:"stopped_by"`
	Determinism bool             `json:"determinism_checked"`
	Workers     int              `json:"workers"`
}

type foundViolation struct {
	Seed         uint64   `json:"seed"`
	Broken       []string `json:"broken"`
	Detail       string   `json:"detail"`
	FaultsBefore int      `json:"faults_before"`
	Faults       int      `json:"faults"`
	ShrinkRuns   int      `json:"shrink_runs"`
	ShrinkS      float64  `json:"shrink_s"`
	File         string   `json:"file"`
	Replays      bool     `json:"replays"`
}

func cmdExplore(args []string, stdout, stderr io.Writer) error {
	var o exploreOptions
	fs := newFlagSet("explore", "explore PRESET|FILE [flags]", `
Draws random fault schedules over a preset (`+strings.Join(app.presets(), ", ")+`)
or over a scenario file used as a template (its topology, parameters and
workload; its own faults are dropped), runs each, and checks the invariants.
When a run breaks one, the schedule is shrunk to the faults that matter and
written to --out as a scenario file you can replay with locksim run or tui.
Exit 0 when nothing broke, 1 when a violation (or a determinism mismatch) was
found, 2 on bad input.`)
	fs.StringVar(&o.faults, "faults", "", "faults to draw, comma-separated: "+fault.KindList(fault.Kinds, ",")+" (default: all the template has targets for)")
	fs.IntVar(&o.runs, "runs", 0, "number of runs (0: until the budget)")
	fs.DurationVar(&o.budget, "budget", 10*time.Second, "wall-clock time to explore for (with --runs 0)")
	fs.Uint64Var(&o.seed, "seed", 1, "the first seed")
	fs.StringVar(&o.invariants, "invariants", "", "invariants to check, comma-separated (default: those that decide the verdict)")
	fs.BoolVar(&o.liveness, "liveness", false, "add a heal phase after the faults and demand progress within the bound")
	fs.BoolVar(&o.swarm, "swarm", false, "swarm mode: each seed draws its own fault mix and count first")
	fs.IntVar(&o.maxFaults, "max-faults", 4, "at most this many faults per schedule")
	fs.Int64Var(&o.maxDrift, "max-drift-ppm", DefaultMaxDriftPPM, maxDriftHelp)
	fs.StringVar(&o.shard, "shard", "1/1", "run shard i of n: seeds first+i-1, first+i-1+n, ...")
	fs.IntVar(&o.workers, "workers", runtime.NumCPU(), "run this many seeds at once, one per core (the result is the same as with 1)")
	fs.StringVar(&o.out, "out", ".", "directory to write found scenarios to")
	fs.StringVar(&o.format, "format", "text", "summary format: text or json")
	fs.IntVar(&o.shrinkRuns, "shrink-runs", 1000, "at most this many runs to shrink a failure")
	fs.BoolVar(&o.determinism, "check-determinism", false, "run every seed twice and compare the trace hashes")
	pos, err := parseFlags(fs, args, stdout, stderr)
	if err != nil {
		return err
	}
	defer exploreGC()()
	if len(pos) != 1 {
		if app.catalogue != nil {
			return usagef("explore needs one target: a scenario file, or one of the catalogue's (%s list)", app.name)
		}
		return usagef("explore needs one target: a preset (%s) or a scenario file", strings.Join(app.presets(), ", "))
	}
	if err := checkFormat(o.format, "text", "json"); err != nil {
		return err
	}
	if err := checkMaxDrift(o.maxDrift); err != nil {
		return err
	}
	cfg, err := exploreConfig(pos[0], &o)
	if err != nil {
		return err
	}
	// A template that breaks on its own would make every schedule "fail".
	if alone, err := cfg.Try(o.seed, nil); err != nil {
		return err
	} else if alone.Failed() {
		return usagef("%s breaks %s with no fault at all (%s): explore needs a template that holds on its own",
			pos[0], strings.Join(alone.Broken, ", "), alone.Detail)
	}
	shard, of, err := parseShard(o.shard)
	if err != nil {
		return err
	}
	switch {
	case o.runs < 0:
		return usagef("--runs %d: expected 0 (until the budget) or more", o.runs)
	case o.runs == 0 && o.budget <= 0:
		return usagef("--budget %s: expected more than 0 (or give --runs N)", o.budget)
	case o.maxFaults < 1 || o.maxFaults > 100:
		return usagef("--max-faults %d: expected 1 to 100", o.maxFaults)
	case o.workers < 1:
		return usagef("--workers %d: expected 1 or more", o.workers)
	case o.shrinkRuns < 0:
		return usagef("--shrink-runs %d: expected 0 (no shrinking) or more", o.shrinkRuns)
	}
	o.workers = clampWorkers("explore", o.workers, stderr)
	// --out must be writable before hours are spent exploring.
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return usageError{errors.Wrapf(err, "--out %s", o.out)}
	}
	probe, err := os.CreateTemp(o.out, ".locksim-explore-*")
	if err != nil {
		return usageError{errors.Wrapf(err, "--out %s is not writable", o.out)}
	}
	probe.Close()
	os.Remove(probe.Name())
	sum := exploreSummary{Target: pos[0], Shard: o.shard, FirstSeed: o.seed + uint64(shard-1), Determinism: o.determinism,
		Violations: []foundViolation{}, Mismatches: []uint64{}, Workers: o.workers}
	for _, k := range cfg.Space.Menu {
		sum.Faults = append(sum.Faults, string(k))
	}
	prog := newProgress(stderr, isTerminal(os.Stderr), o)
	start := time.Now()
	// Seeds run on o.workers cores; inOrder hands the outcomes back in seed order,
	// so what follows is the same loop as with one worker.
	type tried struct {
		out, again explore.Outcome
		err        error
	}
	var failed error
	var found *explore.Outcome
	var wrote error                                 // what writing the found file went wrong with
	perWorker := make([]*explore.Config, o.workers) // each reuses its runs' memory
	for w := range perWorker {
		perWorker[w] = cfg.Worker()
	}
	inOrder(o.workers, func(w int, i uint64) (t tried) {
		cfg := perWorker[w]
		if o.runs > 0 && i >= uint64(o.runs) {
			return t // never seen: the loop stops at --runs first
		}
		seed := sum.FirstSeed + i*uint64(of)
		if t.out, t.err = cfg.Explore(seed); t.err == nil && o.determinism {
			t.again, t.err = cfg.Explore(seed)
		}
		return t
	}, func(t tried) bool {
		if o.runs > 0 && sum.Runs >= o.runs {
			sum.StoppedBy = "runs"
			return false
		}
		if o.runs == 0 && time.Since(start) >= o.budget {
			sum.StoppedBy = "budget"
			return false
		}
		if t.err != nil {
			failed = t.err
			return false
		}
		out := t.out
		sum.Runs++
		sum.LastSeed = out.Seed
		if o.determinism && t.again.Hash != out.Hash {
			sum.Mismatches = append(sum.Mismatches, out.Seed)
			fmt.Fprintf(stderr, "%s explore: seed %d is not deterministic: trace %s then %s\n", app.name, out.Seed, out.Hash[:12], t.again.Hash[:12])
		}
		prog.update(sum.Runs, len(sum.Violations), time.Since(start))
		if out.Failed() {
			found, sum.StoppedBy = &out, "violation"
			return false
		}
		return true
	})
	if failed != nil {
		return failed
	}
	if found != nil { // shrunk once the workers have stopped
		v, err := shrinkAndWrite(cfg, *found, &o, pos[0], sum.Runs, stderr)
		wrote = err // the find is still reported below, then this error ends the command
		sum.Violations = append(sum.Violations, v)
	}
	prog.done()
	sum.ElapsedS = time.Since(start).Seconds()
	if sum.ElapsedS > 0 {
		sum.RunsPerS = float64(sum.Runs) / sum.ElapsedS
	}
	if err := writeSummary(stdout, &sum, o.format); err != nil {
		return err
	}
	if wrote != nil { // a found file that could not be written, or a bug: exit 3, not 1
		return wrote
	}
	if len(sum.Violations) > 0 || len(sum.Mismatches) > 0 {
		return failError{errorf("explore found %d violation(s) and %d determinism mismatch(es)", len(sum.Violations), len(sum.Mismatches))}
	}
	return nil
}

// exploreConfig loads the target and reads the flags that shape the search.
func exploreConfig(target string, o *exploreOptions) (*explore.Config, error) {
	var tpl *explore.Template
	st, err := os.Stat(target)
	if err != nil && !errors.Is(err, fs.ErrNotExist) && !slices.Contains(app.presets(), target) {
		_, err = scenarios.ReadSource(target) // a link loop, a path through a file, no permission: says which
		return nil, usageError{err}
	}
	if err == nil && (!st.IsDir() || !slices.Contains(app.presets(), target)) {
		src, err := scenarios.ReadSource(target)
		if err != nil {
			return nil, usageError{err}
		}
		if tpl, err = app.template(target, src); err != nil {
			return nil, usageError{err}
		}
	} else if app.catalogue != nil {
		src, ok := app.catalogueSource(target)
		if !ok {
			return nil, usagef("%s is neither a file nor a scenario of the catalogue (%s list)", scenarios.Shown(target), app.name)
		}
		if tpl, err = app.template(target, src); err != nil {
			return nil, usageError{err}
		}
	} else if src, ok := scenarios.CatalogueSource(target); ok && !slices.Contains(app.presets(), target) {
		// A built-in catalogue scenario, its faults dropped (the TUI's check
		// names one in the command it writes).
		if tpl, err = app.template(target, src); err != nil {
			return nil, usageError{err}
		}
	} else if tpl, err = explore.Preset(target); err != nil {
		return nil, usageError{errors.Errorf("%s is neither a file, a preset nor a catalogue id: %v\n  hint: give one of the presets, or the path of a %s file%s", scenarios.Shown(target), err, scenarios.Ext, didYouMean(target, app.presets()))}
	}
	cfg := &explore.Config{Template: tpl, Liveness: o.liveness, Hash: o.determinism,
		Space: fault.Space{Menu: fault.Kinds, MaxFaults: o.maxFaults, MaxDrift: o.maxDrift, Swarm: o.swarm}}
	if o.faults != "" {
		menu, err := fault.ParseKinds(o.faults)
		if err != nil {
			return nil, usageError{errors.Errorf("--faults: %v%s", err, eachDidYouMean(o.faults, kindNames()))}
		}
		cfg.Space.Menu = menu
	}
	usable := cfg.Usable()
	if len(usable) == 0 {
		return nil, usagef("--faults %s: the template has nothing these faults can hit", o.faults)
	}
	if o.faults != "" {
		for _, k := range cfg.Space.Menu {
			if !slices.Contains(usable, k) {
				fmt.Fprintf(os.Stderr, "%s explore: %s has nothing a %s fault can hit; it is left out\n", app.name, tpl.Name, k)
			}
		}
	}
	cfg.Space.Menu = usable
	if o.invariants != "" {
		for _, n := range strings.Split(o.invariants, ",") {
			if !slices.Contains(check.Names(), n) {
				return nil, usagef("--invariants: unknown invariant %q%s (invariants are: %s)", n, didYouMean(n, check.Names()), strings.Join(check.Names(), ", "))
			}
			if slices.Contains(check.LivenessNames(), n) && !o.liveness {
				return nil, usagef("--invariants %s: a liveness invariant is judged only with --liveness (the heal phase and the bound after it)", n)
			}
			cfg.Invariants = append(cfg.Invariants, n)
		}
		slices.Sort(cfg.Invariants) // a set: the order given changes nothing judged
		cfg.Invariants = slices.Compact(cfg.Invariants)
	}
	return cfg, nil
}

// parseShard reads --shard i/n.
func parseShard(s string) (int, int, error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, usagef("--shard %q: expected i/n with 1 <= i <= n, like 1/4", s)
	}
	return i, n, nil
}

// shrinkAndWrite shrinks a failure, writes it as a scenario, and checks that the
// file replays to the same violation.
func shrinkAndWrite(cfg *explore.Config, out explore.Outcome, o *exploreOptions, target string, runs int, stderr io.Writer) (foundViolation, error) {
	start := time.Now()
	small, shrinkRuns, err := cfg.Shrink(out, o.shrinkRuns)
	if err != nil {
		return foundViolation{}, err
	}
	v := foundViolation{Seed: out.Seed, Broken: small.Broken, Detail: small.Detail, FaultsBefore: len(out.Schedule),
		Faults: len(small.Schedule), ShrinkRuns: shrinkRuns, ShrinkS: time.Since(start).Seconds()}
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return v, errors.Wrapf(err, "creating --out %s", o.out)
	}
	v.File = filepath.Join(o.out, fmt.Sprintf("found-%s-seed%d%s", fileStem(target), out.Seed, scenarios.Ext))
	// Every flag that shapes the draw or the verdict, so the command finds it again.
	cmd := fmt.Sprintf("%s explore %s --seed %d --runs 1", app.name, scenarios.ShellWord(target), out.Seed)
	if o.faults != "" {
		cmd += " --faults " + o.faults
	}
	if o.maxFaults != 4 {
		cmd += fmt.Sprintf(" --max-faults %d", o.maxFaults)
	}
	if o.maxDrift != DefaultMaxDriftPPM {
		cmd += fmt.Sprintf(" --max-drift-ppm %d", o.maxDrift)
	}
	if o.swarm {
		cmd += " --swarm"
	}
	if o.invariants != "" {
		cmd += " --invariants " + o.invariants
	}
	if o.liveness {
		cmd += " --liveness"
	}
	src := cfg.Scenario(small, explore.Found{Command: cmd, Runs: runs, Original: len(out.Schedule), ShrinkRuns: shrinkRuns, Program: app.name}, v.File)
	if err := writeFileAtomic(v.File, []byte(src)); err != nil {
		return v, outputError{errors.Wrapf(err, "writing %s", scenarios.Shown(v.File))}
	}
	if v.Replays, err = replays(cfg, small, v.File, src); err != nil {
		return v, internalError{value: err.Error()}
	}
	if !v.Replays {
		return v, internalError{value: fmt.Sprintf("explore: %s does not reproduce its violation on replay", scenarios.Shown(v.File))}
	}
	return v, nil
}

func writeSummary(w io.Writer, s *exploreSummary, format string) error {
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	seeds := fmt.Sprintf("seeds %d..%d", s.FirstSeed, s.LastSeed)
	if s.Runs == 0 {
		seeds = "no seed run"
	}
	fmt.Fprintf(w, "explore %s: %d runs in %.1fs (%.0f runs/s), %s (shard %s), faults %s\n",
		scenarios.Shown(s.Target), s.Runs, s.ElapsedS, s.RunsPerS, seeds, s.Shard, strings.Join(s.Faults, ","))
	if s.Determinism {
		fmt.Fprintf(w, "determinism: %d seed(s) gave different traces on a second run\n", len(s.Mismatches))
	}
	if len(s.Violations) == 0 {
		fmt.Fprintln(w, "no violation found")
		return nil
	}
	for _, v := range s.Violations {
		fmt.Fprintf(w, "VIOLATION at seed %d: %s\n  %s\n", v.Seed, strings.Join(v.Broken, ", "), v.Detail)
		fmt.Fprintf(w, "shrunk from %d to %d fault(s) in %d runs (%.2fs)\n", v.FaultsBefore, v.Faults, v.ShrinkRuns, v.ShrinkS)
		fmt.Fprintf(w, "wrote %s\nreplay: %s run %s\n        %s tui %s\n", scenarios.Shown(v.File), app.name, scenarios.ShellWord(v.File), app.name, scenarios.ShellWord(v.File))
	}
	return nil
}

// progress shows how the exploration goes: a live line on a terminal, a plain
// line every few seconds otherwise.
type progress struct {
	w        io.Writer
	live     bool
	last     time.Time
	budget   time.Duration
	runs     int
	lastLine int
}

func newProgress(w io.Writer, live bool, o exploreOptions) *progress {
	return &progress{w: w, live: live, last: time.Now(), budget: o.budget, runs: o.runs}
}

func (p *progress) update(runs, violations int, elapsed time.Duration) {
	every := 5 * time.Second
	if p.live {
		every = 200 * time.Millisecond
	}
	if time.Since(p.last) < every {
		return
	}
	p.last = time.Now()
	target := fmt.Sprintf("%s of %s", elapsed.Round(time.Second), p.budget)
	if p.runs > 0 {
		target = fmt.Sprintf("%d of %d runs", runs, p.runs)
	}
	line := fmt.Sprintf("explore: %d runs, %.0f runs/s, %d violation(s), %s", runs, float64(runs)/elapsed.Seconds(), violations, target)
	if p.live {
		fmt.Fprintf(p.w, "\r%-*s", p.lastLine, line)
		p.lastLine = len(line)
		return
	}
	fmt.Fprintln(p.w, line)
}

func (p *progress) done() {
	if p.live && p.lastLine > 0 {
		fmt.Fprintf(p.w, "\r%*s\r", p.lastLine, "")
	}
}

// replays reports whether a written scenario file reproduces what was found:
// it parses, its expectations hold, and its run is the outcome's own run, the
// same trace hash for hash.
func replays(cfg *explore.Config, o explore.Outcome, file, src string) (bool, error) {
	s, err := app.reg.Parse(file, src)
	if err != nil {
		return false, errors.Wrapf(err, "the written scenario %s does not parse", scenarios.Shown(file))
	}
	hashed := *cfg
	hashed.Hash = true
	again, err := hashed.Try(o.Seed, o.Schedule)
	if err != nil {
		return false, err
	}
	replay := scenarios.Run(s, scenarios.RunOptions{})
	return replay.OK() && replay.Trace.Hash() == again.Hash, nil
}

// kindNames is the fault kinds by name, for a did-you-mean.
func kindNames() []string {
	var out []string
	for _, k := range fault.Kinds {
		out = append(out, string(k))
	}
	return out
}

// fileStem is the part of a found file's name that comes from the target: its
// base name without the extension, with every character a shell or a terminal
// treats specially written as '_', so the name is safe to print and to type.
func fileStem(target string) string {
	stem := []rune(strings.TrimSuffix(filepath.Base(target), scenarios.Ext))
	for i, r := range stem {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.+", r)) {
			stem[i] = '_'
		}
	}
	return string(stem)
}

// DefaultMaxDriftPPM is --max-drift-ppm's default: explore and check draw
// drifts within ±2,000 ppm (0.2%), inside Redlock's 1% allowance, so that a
// design that budgets for drift is not failed by drift it was never meant to
// survive. A wider range (up to sim.MaxDriftPPM, as a scenario's clock-drift
// accepts) finds a margin that is too small for the clocks a design really has.
const DefaultMaxDriftPPM = 2000

const maxDriftHelp = "drift faults are drawn within ±this many ppm (1 to 100000; 2000 is 0.2%, inside Redlock's 1% allowance)"

// checkMaxDrift refuses a --max-drift-ppm no scenario could write.
func checkMaxDrift(ppm int64) error {
	if ppm < 1 || ppm > sim.MaxDriftPPM {
		return usagef("--max-drift-ppm %d: expected 1 to %d (a scenario's clock-drift range), like 20000 for 2%%", ppm, sim.MaxDriftPPM)
	}
	return nil
}
