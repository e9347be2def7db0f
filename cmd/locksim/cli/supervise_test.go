//go:build !js

package cli

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// A Go runtime fatal error exits 3 (a bug), never 2 (bad input), the status
// the Go runtime gives it (issue 32). The test binary plays both processes: run
// with LOCKSIM_TEST_PARENT it is the supervising parent, which starts itself
// again as the child; the child panics on a goroutine that no recover sees,
// which ends a Go program as a fatal error does: exit 2, no exit code reported.
func TestARuntimeCrashExitsThreeNotTwo(t *testing.T) {
	switch {
	case os.Getenv(supervisedEnv) != "": // the child
		go func() { panic("a crash on a goroutine that no recover sees") }()
		select {}
	case os.Getenv("LOCKSIM_TEST_PARENT") != "":
		asParent()
	}
	cmd := exec.Command(os.Args[0], "-test.run=^TestARuntimeCrashExitsThreeNotTwo$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LOCKSIM_TEST_PARENT=1")
	var errs bytes.Buffer
	cmd.Stderr = &errs
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	}
	if code != exitInternal || !strings.Contains(errs.String(), "crashed before it finished") || !strings.Contains(errs.String(), "this is a bug in locksim") {
		t.Fatalf("a crashed child: exit %d, want 3 and a bug report; stderr:\n%s", code, errs.String())
	}
	// And a child that ends well reports its own exit code, 2 included.
	cmd = exec.Command(os.Args[0], "-test.run=^TestAChildReportsItsExitCode$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LOCKSIM_TEST_PARENT=1")
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != exitUsage {
		t.Fatalf("a child that exits 2 on purpose: %v, want exit 2", err)
	}
}

// TestAChildReportsItsExitCode is the child of the test above that exits 2 on
// purpose, as bad input does; run on its own it does nothing.
func TestAChildReportsItsExitCode(t *testing.T) {
	switch {
	case os.Getenv(supervisedEnv) != "":
		reportExit(exitUsage)
		os.Exit(exitUsage)
	case os.Getenv("LOCKSIM_TEST_PARENT") != "":
		asParent()
	}
}

// asParent is the supervising parent: it runs this test again as its child,
// and exits as the child did.
func asParent() {
	code, ok := supervise()
	if !ok {
		os.Exit(99)
	}
	os.Exit(code)
}
