// Command locksim simulates, checks and shows distributed lock protocols.
//
//	locksim                    browse the catalogue (TUI); without a terminal, print it
//	locksim tui ID|FILE        open one scenario in the terminal UI
//	locksim list               the catalogue: id, protocol, expected verdict, summary
//	locksim run ID|FILE        run one scenario: events, timeline, verdicts
//	locksim verify [ID|FILE]   run scenarios and compare them with their expectations
//	locksim explore TARGET     random fault schedules, shrunk to a replayable scenario
//
// Exit codes: 0 every expectation held; 1 an expectation failed; 2 bad input or usage.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/pkg/errors"
)

// Exit codes, as docs/architecture.md fixes them.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
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
	}
}

func main() { os.Exit(run(os.Args[1:], os.Stdout, os.Stderr)) }

// run is main without the process: it returns the exit code.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		if terminal() {
			return report(browse(stdout), stderr)
		}
		if err := cmdList(nil, stdout, stderr); err != nil {
			return report(err, stderr)
		}
		fmt.Fprintln(stdout)
		usage(stdout)
		return exitOK
	}
	switch args[0] {
	case "-h", "--help", "help":
		usage(stdout)
		return exitOK
	}
	for _, c := range subcommands() {
		if c.name == args[0] {
			return report(c.run(args[1:], stdout, stderr), stderr)
		}
	}
	fmt.Fprintf(stderr, "locksim: unknown command %q\n", args[0])
	usage(stderr)
	return exitUsage
}

func report(err error, stderr io.Writer) int {
	switch e := err.(type) {
	case nil:
		return exitOK
	case failError:
		fmt.Fprintln(stderr, "locksim: "+e.Error())
		return exitFail
	case helpShown:
		return exitOK
	default:
		fmt.Fprintln(stderr, "locksim: "+e.Error())
		return exitUsage
	}
}

// failError means an expectation failed: exit 1.
type failError struct{ error }

// helpShown means --help was asked for and printed.
type helpShown struct{ error }

func usage(w io.Writer) {
	fmt.Fprintln(w, "locksim: a deterministic simulator of distributed lock protocols.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Usage:")
	fmt.Fprintln(w, "  locksim                    browse the catalogue (on a terminal; else print it and this help)")
	for _, c := range subcommands() {
		fmt.Fprintf(w, "  locksim %-18s %s\n", c.name+argsHint(c.name), c.summary)
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Run `locksim COMMAND --help` for a command's flags. Exit codes: 0 every")
	fmt.Fprintln(w, "expectation held, 1 an expectation failed, 2 bad input or usage.")
	fmt.Fprintln(w, "Docs: docs/README.md. Try: locksim run redis-del-after-expiry")
}

func argsHint(name string) string {
	switch name {
	case "run":
		return " ID|FILE"
	case "verify":
		return " [ID|FILE...]"
	case "tui":
		return " ID|FILE"
	case "explore":
		return " PRESET|FILE"
	}
	return ""
}

// parseFlags parses flags that may come before or after the positional arguments
// (`locksim run ID --seed 3`), which the flag package alone does not allow.
func parseFlags(fs *flag.FlagSet, args []string, stderr io.Writer) ([]string, error) {
	fs.SetOutput(stderr)
	var pos []string
	for {
		if err := fs.Parse(args); err != nil {
			if err == flag.ErrHelp {
				return nil, helpShown{err}
			}
			return nil, usageError{errors.Wrap(err, fs.Name())}
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
		fmt.Fprintf(w, "Usage: locksim %s\n\n%s\n\nFlags:\n", synopsis, strings.TrimSpace(about))
		fs.PrintDefaults()
	}
	return fs
}

// checkFormat accepts one of a command's output formats.
func checkFormat(f string, formats ...string) error {
	if !slices.Contains(formats, f) {
		return usagef("--format %q: expected %s", f, strings.Join(formats, ", "))
	}
	return nil
}
