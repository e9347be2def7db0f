package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"time"

	"github.com/pkg/errors"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/scenarios/explore"
	"github.com/locksim/locksim/sim/fault"
)

// exitUnfinished is check's exit code when its budget ran out before the bound
// was exhausted and nothing was found: it proved nothing (docs/check.md).
const exitUnfinished = 4

// unfinishedError is a check stopped by its budget: exit 4.
type unfinishedError struct{ error }

// checkOptions are check's flags.
type checkOptions struct {
	faults, invariants, shard, out, format, points string
	certificate, compare, envelope                 string
	menu                                           []string
	maxFaults, workers, shrinkRuns                 int
	maxDrift                                       int64
	budget, resolution                             time.Duration
	seed                                           uint64
	liveness, countOnly, noDeadlines, exercise     bool
}

// checkSummary is check's final report, as JSON prints it
// (docs/check-summary.schema.json). Only elapsed_ms and schedules_per_s change
// from run to run.
type checkSummary struct {
	SchemaVersion   int                    `json:"schema_version"`
	Target          string                 `json:"target"`
	TemplateSHA256  string                 `json:"template_sha256"`
	Seed            uint64                 `json:"seed"`
	Shard           string                 `json:"shard"`
	Bound           explore.CertBound      `json:"bound"`
	Invariants      []string               `json:"invariants"`
	Liveness        bool                   `json:"liveness"`
	Levels          []explore.CertTier     `json:"levels"`
	Schedules       int                    `json:"schedules"`
	Exhausted       bool                   `json:"exhausted"`
	Result          string                 `json:"result"`
	Counterexamples int                    `json:"counterexamples"`
	Shortest        *checkCounterexample   `json:"shortest"`
	Coverage        checkCoverage          `json:"coverage"`
	Certificate     string                 `json:"certificate,omitempty"`
	Compared        *certificateComparison `json:"compared,omitempty"`
	ElapsedMs       int64                  `json:"elapsed_ms"`
	SchedulesPerS   float64                `json:"schedules_per_s"`
}

// checkCounterexample is the shortest counterexample in the summary.
type checkCounterexample struct {
	Faults     []string `json:"faults"`       // as found, in time order
	Shrunk     []string `json:"shrunk"`       // its sizes shrunk, as written
	Broken     []string `json:"broken"`       // what it breaks
	Detail     string   `json:"detail"`       // the first violation
	AtMs       float64  `json:"at_ms"`        // when
	ShrinkRuns int      `json:"shrink_runs"`  // runs the shrinking took
	File       string   `json:"file"`         // the scenario written
	Replays    bool     `json:"replays"`      // the file replays the violation
	Replay     string   `json:"replay"`       // the command that replays it
	TUI        string   `json:"tui"`          // the command that steps through it
	LevelDone  bool     `json:"level_done"`   // every schedule of its level ran
	FewerTried int      `json:"fewer_faults"` // schedules with fewer faults, none broken
}

// checkCoverage compares the check's points with event points: how many
// one-fault schedules each gives, so that a coarser check says how much less
// it proves.
type checkCoverage struct {
	Points   string `json:"points"`
	OneFault int    `json:"one_fault_schedules"`
	AtEvents int    `json:"at_event_points"`
}

type certificateComparison struct {
	File   string   `json:"file"`
	Proves bool     `json:"proves_at_least_as_much"`
	Why    []string `json:"why"`
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, " ") }
func (m *multiFlag) Set(s string) error { *m = append(*m, s); return nil }

func cmdCheck(args []string, stdout, stderr io.Writer) error {
	var o checkOptions
	fs := newFlagSet("check", "check PRESET|FILE [flags]", `
Runs every fault schedule of up to --max-faults faults over a preset
(`+strings.Join(app.presets(), ", ")+`) or a scenario file used as a template
(as explore reads it), and judges each with the checker. Schedules run by
number of faults, then in order of each fault's (time, kind, target, size),
so the first counterexample is the shortest and, among those, the earliest;
the level that holds it is finished, and the check stops: no schedule with
fewer faults breaks.

What a bound proves: only the schedules it names. Faults fall at --points
(events: one instant between every two steps of the process hit, so no
instant is left out for an instant fault; observations: only between the
instants where observations are reported, coarser; at=: only where you say).
A fault that lasts ends a size from the menu after it starts (--menu); a
clock jump is also tried just past each wall-clock deadline pending where it
falls. Every run has the same --seed. docs/check.md says what is proved and
what is not.

Exit 0: no counterexample within the bound; 1: a counterexample, written to
--out; 2: bad input; 4: --budget ran out first ("not exhausted": nothing is
proved).`)
	fs.StringVar(&o.faults, "faults", "", "fault kinds, comma-separated: "+fault.KindList(fault.Kinds, ",")+" (default: all the template has targets for)")
	fs.IntVar(&o.maxFaults, "max-faults", 2, "every schedule of up to this many faults")
	fs.Int64Var(&o.maxDrift, "max-drift-ppm", DefaultMaxDriftPPM, "the menu's drift sizes are -this and +this ppm (1 to 100000; 2000 is 0.2%, inside Redlock's 1% allowance); --menu drift=... overrides")
	fs.StringVar(&o.points, "points", "events", "where faults fall: events, observations, or at=T1,T2,...")
	fs.Var((*multiFlag)(&o.menu), "menu", "a kind's sizes, KIND=SIZE,SIZE (repeatable), e.g. pause=1s,5s,15s; "+strings.ReplaceAll(explore.MenuHelp, "\n", " "))
	fs.BoolVar(&o.noDeadlines, "no-deadline-jumps", false, "do not try clock jumps sized just past pending wall-clock deadlines")
	fs.StringVar(&o.invariants, "invariants", "", "invariants to check, comma-separated (default: those that decide the verdict)")
	fs.BoolVar(&o.liveness, "liveness", false, "add a heal phase after the faults and demand progress within the bound")
	fs.Uint64Var(&o.seed, "seed", 1, "the seed of every run")
	fs.IntVar(&o.workers, "workers", runtime.NumCPU(), "run on this many cores (the result is the same as with 1)")
	fs.StringVar(&o.out, "out", ".", "directory to write the shortest counterexample to")
	fs.StringVar(&o.format, "format", "text", "summary format: text or json")
	fs.DurationVar(&o.budget, "budget", 0, "stop after this much wall-clock time (0: run until the bound is exhausted); a stopped check exits 4")
	fs.StringVar(&o.shard, "shard", "1/1", "run shard i of n: every level's jobs (one per first fault) i, i+n, ...")
	fs.BoolVar(&o.countOnly, "count-only", false, "print each level's number of schedules and an estimate of its time, and run nothing more")
	fs.StringVar(&o.certificate, "certificate", "", "write what was proved to this JSON file (docs/check-certificate.schema.json)")
	fs.StringVar(&o.compare, "compare-certificate", "", "fail (exit 1) when this run proves less than the certificate in this file")
	fs.StringVar(&o.envelope, "envelope", "", "KIND:PROC: find the largest size of one fault kind on one process that keeps the invariants")
	fs.DurationVar(&o.resolution, "resolution", time.Millisecond, "with --envelope: how fine the size is found")
	fs.BoolVar(&o.exercise, "exercise", false, "the target is an exercise (docs/exercises.md): check exactly its budget (its kinds, counts, processes and sizes) against its goal; --faults, --max-faults, --menu and --invariants come from it")
	fs.IntVar(&o.shrinkRuns, "shrink-runs", 1000, "at most this many runs to shrink the counterexample's sizes")
	pos, err := parseFlags(fs, args, stdout, stderr)
	if err != nil {
		return err
	}
	defer exploreGC()()
	if len(pos) != 1 {
		return usagef("check needs one target: a preset (%s) or a scenario file", strings.Join(app.presets(), ", "))
	}
	if err := checkFormat(o.format, "text", "json"); err != nil {
		return err
	}
	switch {
	case o.maxFaults < 0 || o.maxFaults > 10:
		return usagef("--max-faults %d: expected 0 to 10", o.maxFaults)
	case o.workers < 1:
		return usagef("--workers %d: expected 1 or more", o.workers)
	case o.budget < 0:
		return usagef("--budget %s: expected 0 (no budget) or more", o.budget)
	case o.shrinkRuns < 0:
		return usagef("--shrink-runs %d: expected 0 (no shrinking) or more", o.shrinkRuns)
	case o.resolution <= 0:
		return usagef("--resolution %s: expected more than 0", o.resolution)
	}
	o.workers = clampWorkers("check", o.workers, stderr)
	if err := checkMaxDrift(o.maxDrift); err != nil {
		return err
	}
	shard, of, err := parseShard(o.shard)
	if err != nil {
		return err
	}
	target := pos[0]
	var cfg *explore.Config
	var bound explore.Bound
	if o.exercise {
		ex, err := scenarios.LoadExercise(target)
		if err != nil {
			return usageError{err}
		}
		if cfg, bound, err = explore.Budget(ex); err != nil {
			return usageError{err}
		}
		o.seed, o.maxFaults, o.menu, o.shrinkRuns = ex.Seed, bound.MaxFaults, nil, 0 // no shrinking: a size off the menu is no answer
		cfg.Stop = nil
	} else {
		cfg, err = exploreConfig(target, &exploreOptions{faults: o.faults, invariants: o.invariants, liveness: o.liveness, maxFaults: max(o.maxFaults, 1), maxDrift: o.maxDrift})
		if err != nil {
			return err
		}
		bound = explore.Bound{MaxFaults: o.maxFaults, Menu: explore.DefaultMenu(o.maxDrift), NoDeadlines: o.noDeadlines}
	}
	if bound.Points, err = explore.ParsePoints(o.points); err != nil {
		return usageError{errors.Errorf("%v%s", err, didYouMean(o.points, []string{"events", "observations"}))}
	}
	for _, m := range o.menu {
		if bound.Menu, err = explore.ParseMenu(bound.Menu, m); err != nil {
			kind, _, _ := strings.Cut(m, "=")
			return usageError{errors.Errorf("%v%s", err, didYouMean(kind, kindNames()))}
		}
	}
	var old *explore.Certificate
	if o.compare != "" {
		if old, err = readCertificate(o.compare); err != nil {
			return usageError{err}
		}
	}
	e, err := cfg.Exhaustive(o.seed, bound, shard, of)
	if err != nil {
		return err
	}
	if o.envelope != "" {
		return checkEnvelope(cfg, e, &o, target, stdout)
	}
	if o.countOnly {
		return countOnly(cfg, e, &o, target, stdout)
	}
	if err := writableDir(o.out); err != nil {
		return err
	}
	if o.certificate != "" {
		if err := writableDir(filepath.Dir(o.certificate)); err != nil {
			return usageError{errors.Wrap(err, "--certificate "+o.certificate)}
		}
	}
	if e.Bound().Points.Mode == explore.PointsAt && o.maxFaults > 0 && len(e.Roots()) == 0 {
		return usagef("--points %s: no fault can fall at these instants before the horizon (%s)", o.points, cfg.Template.Horizon)
	}
	return runCheck(cfg, e, &o, target, old, stdout, stderr)
}

// writableDir makes sure --out can be written before hours are spent.
func writableDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageError{errors.Wrapf(err, "--out %s", dir)}
	}
	probe, err := os.CreateTemp(dir, ".locksim-check-*")
	if err != nil {
		return usageError{errors.Wrapf(err, "--out %s is not writable", dir)}
	}
	probe.Close()
	return os.Remove(probe.Name())
}

// runCheck runs the check level by level on o.workers cores, and reports.
func runCheck(cfg *explore.Config, e *explore.Exhaustive, o *checkOptions, target string, old *explore.Certificate, stdout, stderr io.Writer) error {
	text := o.format == "text"
	prog := newCheckProgress(stderr, isTerminal(os.Stderr))
	start := time.Now()
	res := explore.Result{Levels: []explore.Tally{{}}}
	over := func() bool { return o.budget > 0 && time.Since(start) >= o.budget }
	perWorker := make([]*explore.Config, o.workers) // each reuses its runs' memory
	for w := range perWorker {
		perWorker[w] = cfg.Worker()
		perWorker[w].Stop = over // a job ends between two schedules once the budget is spent
	}
	var failed error
	stopped := false
	for !res.Exhausted && !stopped {
		if over() {
			stopped = true
			break
		}
		k := len(res.Levels) - 1
		jobs := e.Jobs(k)
		n, exact := e.Estimate(k)
		if text {
			prog.clear()
			fmt.Fprintf(stdout, "level %d: %s, %s\n", k, scheduleCount(n, exact), etaWords(n, res.Schedules(), time.Since(start), o.workers))
		}
		prog.level(k, n, exact)
		done := 0
		if jobs > 0 {
			inOrder(o.workers, func(w int, j uint64) (t tallied) {
				if j >= uint64(jobs) {
					return t
				}
				t.Tally, t.err = e.Job(perWorker[w], k, int(j))
				return t
			}, func(t tallied) bool {
				if t.err != nil && !errors.Is(t.err, explore.ErrStopped) {
					failed = t.err
					return false
				}
				res.Levels[k].Add(t.Tally) // a stopped job counts what it ran
				done++
				prog.update(res.Levels[k].Schedules, res.Schedules(), time.Since(start))
				if t.err != nil || over() && done < jobs {
					stopped = true
					return false
				}
				return done < jobs
			})
		}
		if failed != nil {
			return failed
		}
		if !stopped {
			e.LevelDone(&res)
		}
		if text {
			prog.clear()
			fmt.Fprintf(stdout, "  %d schedule(s) run, %d broke %s\n", res.Levels[k].Schedules, res.Levels[k].Counterexamples, judgedWords(cfg))
		}
	}
	prog.clear()
	elapsed := time.Since(start)
	sum := checkSummary{SchemaVersion: explore.CertificateVersion, Target: target, TemplateSHA256: cfg.Template.TemplateHash(),
		Seed: o.seed, Shard: o.shard, Bound: e.BoundWords(), Invariants: cfg.Invariants, Liveness: cfg.Liveness,
		Schedules: res.Schedules(), Exhausted: res.Exhausted, ElapsedMs: elapsed.Milliseconds()}
	if sum.Invariants == nil {
		sum.Invariants = []string{}
	}
	if elapsed > 0 {
		sum.SchedulesPerS = float64(sum.Schedules) / elapsed.Seconds()
	}
	for k, t := range res.Levels {
		sum.Levels = append(sum.Levels, explore.CertTier{Faults: k, Schedules: t.Schedules, Counterexamples: t.Counterexamples,
			Finished: k < len(res.Levels)-1 || res.Exhausted})
	}
	sum.Coverage = checkCoverage{Points: e.Bound().Points.String(), OneFault: len(e.Roots()), AtEvents: len(e.Roots())}
	if e.Bound().Points.Mode != explore.PointsEvents {
		b := e.Bound()
		b.Points = explore.Points{Mode: explore.PointsEvents}
		if fine, err := cfg.Exhaustive(o.seed, b, 1, 1); err == nil {
			sum.Coverage.AtEvents = len(fine.Roots())
		}
	}
	shortest, count := res.Shortest()
	sum.Counterexamples = count
	switch {
	case shortest != nil:
		sum.Result = explore.ResultFound
		cx, err := writeShortest(cfg, e, *shortest, &res, o, target, stderr)
		if err != nil {
			return err
		}
		sum.Shortest = &cx
	case res.Exhausted:
		sum.Result = explore.ResultNone
	default:
		sum.Result = explore.ResultUnproved
	}
	cert := certificateOf(&sum, cfg)
	var certErr error
	if o.certificate != "" && sum.Result != explore.ResultUnproved {
		if certErr = writeJSONFile(o.certificate, cert); certErr == nil {
			sum.Certificate = o.certificate
		}
	}
	if old != nil {
		why := explore.CompareCertificates(old, cert)
		if sum.Result == explore.ResultUnproved {
			why = append(why, "this check did not finish (--budget): it proved nothing")
		}
		sum.Compared = &certificateComparison{File: o.compare, Proves: len(why) == 0, Why: why}
		if sum.Compared.Why == nil {
			sum.Compared.Why = []string{}
		}
	}
	if err := writeCheckSummary(stdout, &sum, o.format); err != nil {
		return err
	}
	if certErr != nil { // the summary is out: say what could not be written
		return outputError{errors.Wrap(certErr, "--certificate")}
	}
	switch {
	case sum.Compared != nil && !sum.Compared.Proves:
		return failError{errorf("this check proves less than %s: %s", o.compare, strings.Join(sum.Compared.Why, "; "))}
	case sum.Result == explore.ResultFound:
		n := fmt.Sprint(count)
		if !res.Exhausted {
			n = "at least " + n // --budget stopped the level
		}
		return failError{errorf("check found %s counterexample(s) with %d fault(s)", n, len(shortest.Schedule))}
	case sum.Result == explore.ResultUnproved:
		return unfinishedError{errorf("check stopped by --budget %s after %d schedules: not exhausted, nothing proved", o.budget, sum.Schedules)}
	}
	return nil
}

// tallied is one job's tally, or why it failed.
type tallied struct {
	explore.Tally
	err error
}

func scheduleCount(n int, exact bool) string {
	if exact {
		return fmt.Sprintf("%d schedule(s)", n)
	}
	return fmt.Sprintf("about %d schedule(s) (an estimate: the points after each first fault depend on its run)", n)
}

// etaWords estimates a level's time from the rate so far (or says it cannot).
func etaWords(n, done int, elapsed time.Duration, workers int) string {
	if done == 0 || elapsed <= 0 {
		return "time not yet known"
	}
	rate := float64(done) / elapsed.Seconds()
	return "about " + roundDur(time.Duration(float64(n)/rate*float64(time.Second))) + fmt.Sprintf(" at %.0f schedules/s", rate)
}

func roundDur(d time.Duration) string {
	switch {
	case d < time.Second:
		return "under a second"
	case d < time.Minute:
		return d.Round(time.Second).String()
	case d < time.Hour:
		return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%.0f days", d.Hours()/24)
}

func judgedWords(cfg *explore.Config) string {
	if len(cfg.Invariants) > 0 {
		return strings.Join(cfg.Invariants, ", ")
	}
	if cfg.Liveness {
		return "an invariant that decides the verdict (safety and liveness)"
	}
	return "a safety invariant that decides the verdict"
}

// writeShortest shrinks the shortest counterexample's sizes, writes it as a
// scenario and checks that the file replays it.
func writeShortest(cfg *explore.Config, e *explore.Exhaustive, found explore.Outcome, res *explore.Result, o *checkOptions, target string, stderr io.Writer) (checkCounterexample, error) {
	k := len(found.Schedule)
	cx := checkCounterexample{Faults: cfg.Says(found), Broken: found.Broken, Detail: found.Detail, AtMs: found.At.Ms(),
		LevelDone: res.Exhausted}
	for _, t := range res.Levels[:k] {
		cx.FewerTried += t.Schedules
	}
	small, runs, err := cfg.ShrinkSizes(found, o.shrinkRuns)
	if err != nil {
		return cx, err
	}
	cx.ShrinkRuns = runs
	cx.Shrunk = cfg.Says(small)
	name := fileStem(target)
	cx.File = filepath.Join(o.out, fmt.Sprintf("check-%s-%dfault%s%s", name, k, plural(k), scenarios.Ext))
	cx.Replay = fmt.Sprintf("%s run %s", app.name, scenarios.ShellWord(cx.File))
	cx.TUI = fmt.Sprintf("%s tui %s", app.name, scenarios.ShellWord(cx.File))
	level := fmt.Sprintf("%d", res.Levels[k].Counterexamples)
	if !res.Exhausted {
		level = "at least " + level
	}
	checked := []string{
		fmt.Sprintf("Found by `%s`: the first, in the check's order, of %s counterexample(s)", checkCommand(target, o), level),
		fmt.Sprintf("with %d fault(s); none of the %d schedule(s) with fewer faults broke (seed %d, faults %s,", k, cx.FewerTried, e.Seed(), strings.Join(e.BoundWords().Faults, ",")),
		fmt.Sprintf("points %s, sizes from the menu). Its sizes were shrunk in %d more runs.", e.Bound().Points, runs),
		fmt.Sprintf("The workload is the %s template's; the faults are these:", cfg.Template.Name),
	}
	src := cfg.Scenario(small, explore.Found{Command: checkCommand(target, o), Program: app.name, Checked: checked[:3]}, cx.File)
	if err := writeFileAtomic(cx.File, []byte(src)); err != nil {
		return cx, outputError{errors.Wrapf(err, "writing %s", cx.File)}
	}
	if cx.Replays, err = replays(cfg, small, cx.File, src); err != nil {
		return cx, internalError{value: err.Error()}
	}
	if !cx.Replays {
		return cx, internalError{value: fmt.Sprintf("%s does not reproduce its violation on replay", cx.File)}
	}
	return cx, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func words(s fault.Schedule) []string {
	out := []string{}
	for _, f := range s.InTimeOrder() {
		out = append(out, f.String())
	}
	return out
}

// checkCommand is the command that runs this check again: every flag that
// shapes what is checked, and none that does not (workers, out, format).
func checkCommand(target string, o *checkOptions) string {
	cmd := fmt.Sprintf("%s check %s --max-faults %d", app.name, scenarios.ShellWord(target), o.maxFaults)
	if o.faults != "" {
		cmd += " --faults " + o.faults
	}
	if o.points != "events" {
		cmd += " --points " + o.points
	}
	if o.maxDrift != DefaultMaxDriftPPM && !o.exercise {
		cmd += fmt.Sprintf(" --max-drift-ppm %d", o.maxDrift)
	}
	for _, m := range o.menu {
		cmd += " --menu " + m
	}
	if o.noDeadlines {
		cmd += " --no-deadline-jumps"
	}
	if o.exercise {
		cmd += " --exercise"
	}
	if o.invariants != "" {
		cmd += " --invariants " + o.invariants
	}
	if o.liveness {
		cmd += " --liveness"
	}
	if o.seed != 1 {
		cmd += fmt.Sprintf(" --seed %d", o.seed)
	}
	if o.shard != "1/1" {
		cmd += " --shard " + o.shard
	}
	if o.shrinkRuns != 1000 {
		cmd += fmt.Sprintf(" --shrink-runs %d", o.shrinkRuns)
	}
	return cmd
}

// certificateOf is what the summary proves, without its timing.
func certificateOf(s *checkSummary, cfg *explore.Config) *explore.Certificate {
	c := &explore.Certificate{SchemaVersion: explore.CertificateVersion, Tool: app.name, Version: toolVersion(),
		Target: s.Target, TemplateSHA256: s.TemplateSHA256, Seed: s.Seed, Shard: s.Shard, Bound: s.Bound,
		Invariants: s.Invariants, Liveness: s.Liveness, Schedules: s.Schedules, Levels: s.Levels, Result: s.Result}
	if x := s.Shortest; x != nil {
		c.Counterexample = &explore.CertCase{Faults: x.Faults, Broken: x.Broken, Detail: x.Detail, AtMs: x.AtMs, Scenario: x.File}
	}
	return c
}

// toolVersion is the module's version as the Go build recorded it.
func toolVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" {
		return bi.Main.Version
	}
	return "(devel)"
}

func readCertificate(file string) (*explore.Certificate, error) {
	src, err := scenarios.ReadSource(file) // at most 4 MB; a pipe nobody writes to is refused
	b := []byte(src)
	if err != nil {
		return nil, errors.Wrap(err, "--compare-certificate")
	}
	var c explore.Certificate
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, errors.Wrapf(err, "--compare-certificate %s is not a certificate", scenarios.Shown(file))
	}
	if c.SchemaVersion != explore.CertificateVersion {
		return nil, errors.Errorf("--compare-certificate %s: schema_version %d, this locksim reads %d", scenarios.Shown(file), c.SchemaVersion, explore.CertificateVersion)
	}
	return &c, nil
}

// writeJSONFile writes v as indented JSON, atomically.
func writeJSONFile(file string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(file, append(b, '\n'))
}

// writeFileAtomic writes a file through a temporary file and a rename, so
// that a reader never sees half of it.
//
// A target that exists and is not a regular file (a device such as /dev/null
// or /dev/full, a pipe, a symbolic link) is written through, never replaced:
// renaming over it would put a plain file where the device or the link was.
func writeFileAtomic(file string, b []byte) error {
	if st, err := os.Lstat(file); err == nil && !st.Mode().IsRegular() {
		f, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		if _, err := f.Write(b); err != nil {
			f.Close()
			return err
		}
		return f.Close()
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".locksim-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), file)
}

func writeCheckSummary(w io.Writer, s *checkSummary, format string) error {
	if len(s.Levels) == 0 {
		s.Levels = []explore.CertTier{}
	}
	if format == "json" {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	{
		fmt.Fprintf(w, "check %s: %d schedule(s) in %.1fs (%.0f schedules/s)\n", scenarios.Shown(s.Target), s.Schedules, float64(s.ElapsedMs)/1000, s.SchedulesPerS)
		menu := []string{}
		for _, k := range s.Bound.Faults {
			menu = append(menu, k+"="+strings.Join(s.Bound.Menu[k], ","))
		}
		deadlines := ""
		if s.Bound.Deadlines && slices.Contains(s.Bound.Faults, string(fault.ClockJump)) {
			deadlines = " (and clock jumps just past each pending wall-clock deadline)"
		}
		fmt.Fprintf(w, "bound: up to %d fault(s) at %s points, sizes %s%s; a fault that lasts ends a menu size after it starts; seed %d, shard %s\n",
			s.Bound.MaxFaults, s.Bound.Points, strings.Join(menu, " "), deadlines, s.Seed, s.Shard)
		if c := s.Coverage; c.Points != string(explore.PointsEvents) {
			fmt.Fprintf(w, "points %s: %d one-fault schedule(s), where event points give %d: this check proves less than one at event points\n  (it never places a fault %s)\n",
				c.Points, c.OneFault, c.AtEvents, coarserWords(c.Points))
		}
		switch s.Result {
		case explore.ResultNone:
			fmt.Fprintf(w, "no counterexample within this bound\n")
		case explore.ResultUnproved:
			fmt.Fprintf(w, "NOT EXHAUSTED: --budget ran out after %d schedule(s); nothing is proved beyond the levels finished\n", s.Schedules)
			for _, l := range s.Levels {
				if l.Finished {
					fmt.Fprintf(w, "  (finished: every schedule of %d fault(s), %d, none broken)\n", l.Faults, l.Schedules)
				}
			}
		case explore.ResultFound:
			x := s.Shortest
			fmt.Fprintf(w, "COUNTEREXAMPLE with %d fault(s): %s\n  %s\n", len(x.Faults), strings.Join(x.Broken, ", "), x.Detail)
			count := fmt.Sprintf("%d", s.Counterexamples)
			if !x.LevelDone {
				count = "at least " + count + " (--budget stopped the level)"
			}
			fmt.Fprintf(w, "  the first of %s counterexample(s) with %d fault(s); the %d schedule(s) with fewer faults all held\n", count, len(x.Faults), x.FewerTried)
			for _, f := range x.Shrunk {
				fmt.Fprintf(w, "  - %s\n", f)
			}
			fmt.Fprintf(w, "wrote %s\nreplay: %s\n        %s\n", scenarios.Shown(x.File), x.Replay, x.TUI)
		}
		if s.Certificate != "" {
			fmt.Fprintf(w, "certificate: %s\n", scenarios.Shown(s.Certificate))
		}
		if c := s.Compared; c != nil {
			if c.Proves {
				fmt.Fprintf(w, "compared with %s: proves at least as much\n", scenarios.Shown(c.File))
			} else {
				fmt.Fprintf(w, "compared with %s: PROVES LESS: %s\n", scenarios.Shown(c.File), strings.Join(c.Why, "; "))
			}
		}
	}
	return nil
}

// coarserWords says what a coarser check leaves out.
func coarserWords(points string) string {
	if points == string(explore.PointsObservations) {
		return "after a step that reports no observation: a forwarded message, a retry, a ping"
	}
	return "between the instants named, only at them"
}
