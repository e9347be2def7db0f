package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Exit codes tell what happened (issue 15): 2 stays bad input or usage; 3 is an
// output that could not be written or an internal error, on every subcommand.

// fullDisk fails every write, as /dev/full does.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

func TestAnOutputThatCannotBeWrittenExitsThree(t *testing.T) {
	for _, args := range [][]string{
		{"list"}, {"list", "--format", "json"}, {"run", "redis-happy"}, {"run", "redis-happy", "--format", "json"},
		{"verify", "redis-happy"}, {"explore", "redis", "--runs", "1", "--out", t.TempDir()}, {"--help"}, {},
	} {
		var errs bytes.Buffer
		code := run(args, fullDisk{}, &errs)
		if code != 3 || !strings.Contains(errs.String(), "cannot write the output: no space left on device") {
			t.Errorf("locksim %v into a full disk: exit %d, want 3; stderr:\n%s", args, code, errs.String())
		}
	}
}

func TestAPanicIsABugToReportNotACrash(t *testing.T) {
	defer func(f func() bool) { terminal = f }(terminal)
	terminal = func() bool { panic("a broken invariant") }
	for _, debug := range []string{"", "1"} {
		t.Setenv("LOCKSIM_DEBUG", debug)
		code, _, errs := locksim(t)
		if code != 3 || !strings.Contains(errs, "internal error: a broken invariant") || !strings.Contains(errs, "Please report it") {
			t.Errorf("LOCKSIM_DEBUG=%q: exit %d, want 3 and a request for a bug report; stderr:\n%s", debug, code, errs)
		}
		if dump := strings.Contains(errs, "goroutine "); dump != (debug != "") {
			t.Errorf("LOCKSIM_DEBUG=%q: a goroutine dump is %v, want it only with LOCKSIM_DEBUG:\n%s", debug, dump, errs)
		}
	}
}

// Warnings (issue 19, item 19) leave the exit code as it is; --strict makes
// them bad input, exit 2, on run, verify and tui alike.
func TestWarningsKeepTheExitCodeAndStrictRefuses(t *testing.T) {
	file := filepath.Join(t.TempDir(), "late.scn")
	src := "protocol redis\nnode r1 redis\nclient c1 redis-lock server=r1\nat 1s c1 acquire L\nat 9s c1 release L\nrun until=5s\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := locksim(t, "run", file)
	if code != 0 || !strings.Contains(errs, "late.scn:5:4: warning: this line's time, 9s, is after run until=5s (line 6)") {
		t.Errorf("run: exit %d, want 0 and a warning naming line 5; stderr:\n%s", code, errs)
	}
	defer func(f func() bool) { terminal = f }(terminal)
	terminal = func() bool { return true } // tui refuses before it opens the screen
	for _, args := range [][]string{{"run", "--strict", file}, {"verify", "--strict", file}, {"tui", "--strict", file}} {
		code, _, errs := locksim(t, args...)
		if code != 2 || !strings.Contains(errs, "late.scn:5:4:") || !strings.Contains(errs, "(an error with --strict)") {
			t.Errorf("%v: exit %d, want 2 naming line 5; stderr:\n%s", args, code, errs)
		}
	}
}
