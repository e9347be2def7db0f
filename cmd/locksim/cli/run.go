package cli

import (
	"flag"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/tui/export"
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
		if s != nil {
			most = max(most, s.Limits.MaxMemory)
		}
	}
	debug.SetMemoryLimit(most)
}

func cmdRun(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("run", "run ID|FILE [--seed N] [--format text|json|mermaid|svg|html] [--full] [--width N] [--events] [--by time|row] [--quiet] [--from T] [--to T] [--stops DIR] [--walk] [--vs ID|FILE|pair] [--strict]", `
Runs one scenario (a catalogue id or a scenario file) and prints its events with
true time and each process's own clock, the timeline, the invariants' verdicts,
metrics and expectations. With --vs, runs a second scenario too and prints the two
timelines side by side on true time, the rows only one run has marked (--vs pair:
the scenario's own compare-with). Exit 0 when every expectation holds, 1 when one
fails.

The other formats export the run, or with --vs the two runs lined up
(docs/exports.md): json for scripts (with --events, every event), mermaid a
sequence diagram for Markdown, svg the timeline as an image for slides, html one
offline file that steps through the run. --quiet folds background traffic
(heartbeats, pings, keepalives) as the terminal UI's b does. --from and --to
cut an export to the rows of a stretch of true time; --stops DIR writes the
walk as one 16:9 SVG slide per stop; --walk opens the HTML in its walk.`)
	var seed seedFlag
	fs.Var(&seed, "seed", "seed to run with (default: the scenario's own)")
	format := fs.String("format", "text", "output format: text, json, mermaid, svg or html")
	full := fs.Bool("full", false, "text, mermaid, svg: keep every event and row of a long run")
	width := fs.Int("width", -1, "text: fit the timeline into N columns (default: the terminal's width; unlimited when piped)")
	events := fs.Bool("events", false, "json: add event_list, every event of the trace")
	by := fs.String("by", "time", "svg, html: space the rows by true time, or evenly by row")
	vs := fs.String("vs", "", "a second scenario to compare with, side by side (pair: the scenario's compare-with)")
	quiet := fs.Bool("quiet", false, "svg, mermaid, html: fold background traffic (heartbeats, pings, keepalives); html starts quiet and b switches")
	from := fs.String("from", "", "mermaid, svg, html: only the rows from this true time on (2s, 1.5s, 250ms)")
	to := fs.String("to", "", "mermaid, svg, html: only the rows up to this true time (2s, 1.5s, 250ms)")
	stops := fs.String("stops", "", "svg: write the walk into this directory, one 16:9 slide per stop (stop-01.svg, ...)")
	walk := fs.Bool("walk", false, "html: open in the walk: one stop of the story at a time, the verdict at the end")
	strict := strictFlag(fs)
	var with multiFlag
	fs.Var(&with, "with", "a line to add, as a what-if (repeatable): \"at 2.2s pause c1 for=15s\"; the scenario's expect lines are dropped, the verdict is reported, and the exit is 0 unless the input is bad (--vs pair: beside the original)")
	pos, err := parseFlags(fs, args, stdout, stderr)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("run needs one scenario: %s run ID|FILE (see %s list)", app.name, app.name)
	}
	if err := checkRunFlags(fs, *format, *by, *width); err != nil {
		return err
	}
	window, err := parseWindow(fs, *from, *to)
	if err != nil {
		return err
	}
	if *vs != "" && (*stops != "" || *walk) {
		return usagef("--stops and --walk follow one run's story; a comparison (--vs) has no walk: drop --vs, or open the pair with locksim tui %s --vs %s", pos[0], *vs)
	}
	if *stops != "" {
		if err := stopsDir(*stops); err != nil {
			return err
		}
	}
	var s, other *scenarios.Scenario
	if len(with) > 0 {
		s, other, err = loadWhatIf(pos[0], *vs, with)
	} else {
		s, other, err = loadPair(pos[0], *vs)
	}
	if err != nil {
		return err
	}
	if err := strictBefore(*strict, s, other); err != nil {
		return err
	}
	useBudget(s, other)
	res := scenarios.Run(s, scenarios.RunOptions{Seed: seed.ptr(), Program: app.name}) // no snapshots: only the TUI shows them
	opt := export.Options{Full: *full, ByRow: *by == "row", Quiet: *quiet, Window: window, Walk: *walk}
	if other != nil {
		ores := scenarios.Run(other, scenarios.RunOptions{Seed: seed.ptr(), Program: app.name})
		if err := windowHasRows(window, res, ores); err != nil {
			return err
		}
		if err := runCompare(res, ores, *format, *events, opt, stdout); err != nil {
			return err
		}
		return warnAfter(*strict, stderr, res, ores)
	}
	if err := windowHasRows(window, res); err != nil {
		return err
	}
	switch {
	case *stops != "":
		err = writeStops(res, opt, *stops, stdout)
	case *format == "json":
		err = res.WriteJSON(stdout, scenarios.JSONOptions{Events: *events})
	case *format == "mermaid":
		err = export.WriteMermaid(stdout, res, opt)
	case *format == "svg":
		err = export.WriteSVG(stdout, res, opt)
	case *format == "html":
		err = export.WriteHTML(stdout, res, opt)
	default:
		if f, ok := stdout.(*os.File); ok && *width < 0 {
			*width = terminalWidth(f)
		}
		err = export.WriteText(stdout, res, export.TextOptions{Full: *full, Width: *width})
	}
	if err != nil {
		return err
	}
	if err := warnAfter(*strict, stderr, res); err != nil {
		return err
	}
	if !res.OK() {
		return failError{errorf("%s: an expectation failed; reproduce with: %s", s.ID, res.ReproduceCommand())}
	}
	return nil
}

// runCompare writes two runs side by side, in any format; it fails when either
// run missed an expectation.
func runCompare(a, b *scenarios.Result, format string, events bool, opt export.Options, stdout io.Writer) error {
	var err error
	switch format {
	case "json":
		err = export.WriteCompareJSON(stdout, a, b, scenarios.JSONOptions{Events: events})
	case "mermaid":
		err = export.WriteCompareMermaid(stdout, a, b, opt)
	case "svg":
		err = export.WriteCompareSVG(stdout, a, b, opt)
	case "html":
		err = export.WriteCompareHTML(stdout, a, b, opt)
	default:
		err = export.WriteCompareText(stdout, a, b, export.TextOptions{Full: opt.Full})
	}
	if err != nil {
		return err
	}
	for _, r := range []*scenarios.Result{a, b} {
		if !r.OK() {
			return failError{errorf("%s: an expectation failed; reproduce with: %s", r.Scenario.ID, r.ReproduceCommand())}
		}
	}
	return nil
}

// checkRunFlags refuses a flag given for a format it does not shape.
func checkRunFlags(fs *flag.FlagSet, format, by string, width int) error {
	if err := checkFormat(format, "text", "json", "mermaid", "svg", "html"); err != nil {
		return err
	}
	if by != "time" && by != "row" {
		return usagef("--by %q: expected time or row%s", by, didYouMean(by, []string{"time", "row"}))
	}
	if width < -1 {
		return usagef("--width %d: expected a number of columns (0: unlimited)", width)
	}
	formats := map[string][]string{"events": {"json"}, "width": {"text"}, "by": {"svg", "html"}, "full": {"text", "mermaid", "svg"},
		"quiet": {"svg", "mermaid", "html"}, "from": {"mermaid", "svg", "html"}, "to": {"mermaid", "svg", "html"},
		"stops": {"svg"}, "walk": {"html"}}
	var err error
	fs.Visit(func(f *flag.Flag) {
		if want, ok := formats[f.Name]; ok && err == nil && !slices.Contains(want, format) {
			err = usagef("--%s shapes --format %s only, not %s", f.Name, strings.Join(want, " or "), format)
		}
	})
	return err
}

// loadWhatIf loads the scenario with the --with lines added, and what it is
// compared with: --vs pair is the original, as it was.
func loadWhatIf(arg, vs string, with []string) (*scenarios.Scenario, *scenarios.Scenario, error) {
	orig, other, err := loadPair(arg, strings.TrimPrefix(vs, "pair"))
	if err != nil {
		return nil, nil, err
	}
	s, err := orig.With(with)
	if err != nil {
		return nil, nil, usageError{err}
	}
	if vs == "pair" {
		other = orig
	}
	return s, other, nil
}
