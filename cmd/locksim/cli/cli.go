// Package cli is locksim's command line, importable: cmd/locksim's main is
// cli.Main(), and a program of your own that registers its process kinds gets
// the whole tool for them (run, verify, list, the TUI, explore with templates,
// the exports) with its own catalogue:
//
//	func main() {
//		cli.Main(cli.WithName("example-lock"), cli.WithKinds(sessionlock.Kinds()...), cli.WithCatalogue(catalogue))
//	}
//
// The commands, as locksim names them:
//
//	locksim                    browse the catalogue (TUI); without a terminal, print it
//	locksim tui ID|FILE        open one scenario in the terminal UI
//	locksim list               the catalogue: id, protocol, expected verdict, summary
//	locksim run ID|FILE        run one scenario: events, timeline, verdicts
//	locksim verify [ID|FILE]   run scenarios and compare them with their expectations
//	locksim explore TARGET     random fault schedules, shrunk to a replayable scenario
//	locksim check TARGET       every fault schedule within a bound, the shortest counterexample first
//	locksim grade EX ANSWER    grade an answer to an exercise (docs/exercises.md)
//	locksim playground         write the browser playground (one HTML file, offline)
//
// Exit codes: 0 every expectation held; 1 an expectation failed; 2 bad input or usage;
// 3 the output could not be written, or locksim failed inside (a bug to report);
// 4 (check) the budget ran out before the bound was exhausted.
//
// May import: everything in the module but another command; it is the edge
// where files, the terminal and the wall clock are used.
package cli

import (
	"bytes"
	"flag"
	"fmt"
	"github.com/locksim/locksim/scenarios"
	"io"
	"os"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/pkg/errors"
)

// Exit codes, as docs/architecture.md fixes them.
const (
	exitOK       = 0
	exitFail     = 1
	exitUsage    = 2
	exitInternal = 3 // the output could not be written, or a bug
)

// usageError is bad input or usage: exit 2.
type usageError struct{ error }

func usagef(format string, a ...any) error { return usageError{errors.Errorf(format, a...)} }

type subcommand struct {
	name    string
	summary string
	run     func(args []string, stdout, stderr io.Writer) error
}

func subcommands() []subcommand {
	return []subcommand{
		{"list", "list the catalogue: id, protocol, expected verdict, summary", cmdList},
		{"run", "run one scenario and print its events, timeline and verdicts", cmdRun},
		{"verify", "run scenarios (all of the catalogue by default) and check their expectations", cmdVerify},
		{"tui", "open one scenario in the terminal UI (needs a terminal)", cmdTUI},
		{"explore", "draw random fault schedules, shrink a failure to a scenario file", cmdExplore},
		{"check", "run every fault schedule of up to K faults; the shortest counterexample first", cmdCheck},
		{"grade", "grade a student's answer to an exercise: passed or not, and why", cmdGrade},
		{"playground", "write the browser playground: one HTML file, offline, nothing to install", cmdPlayground},
	}
}

// Main runs the command line with the process's arguments and exits with its
// exit code. It runs it in a child process of the same binary (supervise.go),
// so that a Go runtime fatal error exits 3, a bug, and never 2, bad input.
func Main(opts ...Option) {
	if code, ok := supervise(); ok {
		os.Exit(code)
	}
	code := Run(os.Args[1:], os.Stdout, os.Stderr, opts...)
	reportExit(code)
	os.Exit(code)
}

// Run is Main without the process: it runs the command line on args (without
// the program's name) and returns the exit code.
func Run(args []string, stdout, stderr io.Writer, opts ...Option) int {
	a, err := newApp(opts...)
	if err != nil {
		fmt.Fprintf(stderr, "%s: %v\n", a.name, err)
		return exitInternal
	}
	old := app
	app = a
	defer func() { app = old }()
	return run(args, stdout, stderr)
}

// run is main without the process: it returns the exit code. Whatever the
// subcommand, an output that could not be written ends with exit 3, and so does a
// panic, which is a bug: it is reported with what to send, without a goroutine
// dump unless LOCKSIM_DEBUG is set.
func run(args []string, stdout, stderr io.Writer) (code int) {
	defer func() {
		if r := recover(); r != nil {
			code = report(internalError{r, debug.Stack(), args}, stderr)
		}
	}()
	out := &checkedWriter{w: stdout}
	err := dispatch(args, out, stderr)
	if out.err != nil {
		err = outputError{out.err}
	}
	return report(err, stderr)
}

// dispatch runs what args ask for: a subcommand, the help, or the browser.
func dispatch(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		if terminal() {
			return browse()
		}
		if err := cmdList(nil, stdout, stderr); err != nil {
			return err
		}
		fmt.Fprintln(stdout)
		usage(stdout)
		return nil
	}
	switch args[0] {
	case "-h", "--help", "help":
		usage(stdout)
		return nil
	}
	for _, c := range subcommands() {
		if c.name == args[0] {
			return c.run(args[1:], stdout, stderr)
		}
	}
	fmt.Fprintf(stderr, "%s: unknown command %q\n", app.name, args[0])
	usage(stderr)
	return usageShown{}
}

func report(err error, stderr io.Writer) int {
	switch e := err.(type) {
	case nil, helpShown:
		return exitOK
	case usageShown:
		return exitUsage
	case failError:
		fmt.Fprintln(stderr, app.name+": "+e.Error())
		return exitFail
	case outputError, internalError:
		fmt.Fprintln(stderr, app.name+": "+e.Error())
		return exitInternal
	case unfinishedError:
		fmt.Fprintln(stderr, app.name+": "+e.Error())
		return exitUnfinished
	default:
		fmt.Fprintln(stderr, app.name+": "+e.Error())
		return exitUsage
	}
}

// checkedWriter keeps the first error writing the output (a full disk, a closed
// pipe), so that no subcommand can lose its output and still exit 0.
type checkedWriter struct {
	w   io.Writer
	err error
}

func (c *checkedWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return 0, c.err
	}
	n, err := c.w.Write(p)
	c.err = err
	return n, err
}

// outputError is output that could not be written: exit 3.
type outputError struct{ err error }

func (e outputError) Error() string { return "cannot write the output: " + e.err.Error() }

// internalError is a panic inside locksim: exit 3, with what a bug report needs.
type internalError struct {
	value any
	stack []byte
	args  []string
}

func (e internalError) Error() string {
	args := e.args
	if args == nil { // an error found after the run, not a panic: the process's own command
		args = os.Args[1:]
	}
	words := make([]string, len(args))
	for i, a := range args {
		words[i] = scenarios.ShellWord(a)
	}
	s := fmt.Sprintf("internal error: %s\n  this is a bug in locksim. Please report it with the scenario file and this command\n  (its seed is the scenario's own unless --seed is given): %s %s",
		scenarios.Shown(fmt.Sprint(e.value)), app.name, strings.Join(words, " "))
	switch {
	case len(e.stack) == 0:
	case os.Getenv("LOCKSIM_DEBUG") != "":
		s += "\n\n" + string(e.stack)
	default:
		s += "\n  (set LOCKSIM_DEBUG=1 to print where it failed)"
	}
	return s
}

// usageShown is a usage error whose message is already printed: exit 2.
type usageShown struct{}

func (usageShown) Error() string { return "usage" }

// failError means an expectation failed: exit 1.
type failError struct{ error }

// helpShown means --help was asked for and printed.
type helpShown struct{ error }

func usage(w io.Writer) {
	fmt.Fprintln(w, app.name+": a deterministic simulator of distributed lock protocols.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage:")
	fmt.Fprintf(w, "  %-26s browse the catalogue (on a terminal; else print it and this help)\n", app.name)
	for _, c := range subcommands() {
		fmt.Fprintf(w, "  %-26s %s\n", app.name+" "+c.name+argsHint(c.name), c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run `"+app.name+" COMMAND --help` for a command's flags. Exit codes: 0 every")
	fmt.Fprintln(w, "expectation held, 1 an expectation failed, 2 bad input or usage, 3 the output")
	fmt.Fprintln(w, "could not be written or locksim failed inside (a bug: please report it), 4 check")
	fmt.Fprintln(w, "ran out of its --budget before it finished.")
	if app.catalogue == nil {
		fmt.Fprintln(w, "Docs: docs/README.md. Try: locksim run redis-del-after-expiry")
	}
}

func argsHint(name string) string {
	switch name {
	case "run":
		return " ID|FILE"
	case "verify":
		return " [ID|FILE...]"
	case "tui":
		return " ID|FILE"
	case "explore", "check":
		return " PRESET|FILE"
	case "grade":
		return " EX ANSWER"
	}
	return ""
}

// parseFlags parses flags that may come before or after the positional arguments
// (`locksim run ID --seed 3`), which the flag package alone does not allow.
//
// The help --help asks for goes to stdout, where a failed write ends with exit
// 3 (`locksim run --help >/dev/full`); the usage after a bad flag goes to stderr.
func parseFlags(fs *flag.FlagSet, args []string, stdout, stderr io.Writer) ([]string, error) {
	var said bytes.Buffer
	fs.SetOutput(&said)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				_, err = stdout.Write(said.Bytes())
				if err != nil {
					return nil, outputError{err}
				}
				return nil, helpShown{flag.ErrHelp}
			}
			io.WriteString(stderr, printableLines(said.String()))
			return nil, usageError{errors.New(fs.Name() + ": " + printableLines(err.Error()))}
		}
		args = fs.Args()
		if len(args) == 0 {
			return pos, nil
		}
		pos = append(pos, args[0])
		args = args[1:]
	}
}

func newFlagSet(name, synopsis, about string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.Usage = func() {
		w := fs.Output()
		fmt.Fprintf(w, "Usage: %s %s\n\n%s\n\nFlags:\n", app.name, synopsis, strings.TrimSpace(about))
		fs.PrintDefaults()
	}
	return fs
}

// checkFormat accepts one of a command's output formats.
func checkFormat(f string, formats ...string) error {
	if !slices.Contains(formats, f) {
		return usagef("--format %q: expected %s%s", f, strings.Join(formats, ", "), didYouMean(f, formats))
	}
	return nil
}

// printableLines is text with every control character but the newline written
// as its escape: what the flag package says quotes the user's flag as given,
// and a flag can hold an escape sequence.
func printableLines(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r != '\n' && r != '\t' && (r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0)) {
			fmt.Fprintf(&b, "\\x%02x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}
