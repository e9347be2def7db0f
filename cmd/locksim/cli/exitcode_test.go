package cli

import (
	"bytes"
	"errors"
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
