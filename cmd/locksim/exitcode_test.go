package main

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
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

// The built binary, as a shell meets it: a full disk, a directory, a device that
// never ends.
func TestBuiltBinaryExitCodesOnHostileInput(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "locksim")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skip("no /dev/full here")
	}
	defer full.Close()
	for _, tc := range []struct {
		args []string
		out  *os.File
		code int
		want string
	}{
		{[]string{"verify"}, full, 3, "cannot write the output"},
		{[]string{"explore", "redis", "--runs", "1", "--out", t.TempDir()}, full, 3, "cannot write the output"},
		{[]string{"run", t.TempDir()}, nil, 2, "is a directory"},
		{[]string{"run", "/dev/zero"}, nil, 2, "does not end within 8MB"},
	} {
		cmd := exec.Command(bin, tc.args...)
		var errs bytes.Buffer
		cmd.Stdout, cmd.Stderr = tc.out, &errs
		err := cmd.Run()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		if code != tc.code || !strings.Contains(errs.String(), tc.want) || strings.Contains(errs.String(), "goroutine ") {
			t.Errorf("locksim %v: exit %d, want %d and %q; stderr:\n%s", tc.args, code, tc.code, tc.want, errs.String())
		}
	}
}
