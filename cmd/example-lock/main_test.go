package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/cmd/locksim/cli"
)

// The example's binary, run in-process as `go run ./cmd/example-lock ARGS`
// would run it.
func exampleLock(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errs bytes.Buffer
	code := cli.Run(args, &out, &errs, cli.WithName("example-lock"), cli.WithKinds(Kinds()...), cli.WithCatalogue(catalogue()))
	return code, out.String(), errs.String()
}

// `go run ./cmd/example-lock verify`: every scenario of the example's catalogue
// meets its expectations.
func TestCatalogueMeetsItsExpectations(t *testing.T) {
	code, out, errs := exampleLock(t, "verify")
	if code != 0 || !strings.Contains(out, "5 of 5 scenarios match their expectations") {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errs)
	}
	for _, id := range []string{"happy", "paused-holder", "fenced", "broken", "validity"} {
		if !strings.Contains(out, "ok    "+id+" ") {
			t.Errorf("verify did not run %s:\n%s", id, out)
		}
	}
}

// `explore broken.scn` finds the stale write, exits 1 and writes a scenario
// that replays it; the replay command names the example's own program.
func TestExploreFindsTheBrokenClient(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := exampleLock(t, "explore", "scenarios/broken.scn", "--runs", "2000", "--out", dir)
	if code != 1 || !strings.Contains(out, "VIOLATION") || !strings.Contains(out, "resource-safe") {
		t.Fatalf("explore: exit %d, want 1 and a resource-safe violation\n%s%s", code, out, errs)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "found-broken-seed*.scn"))
	if len(files) != 1 {
		t.Fatalf("explore wrote %v, want one found-broken-seed*.scn", files)
	}
	if !strings.Contains(out, "replay: example-lock run "+files[0]) {
		t.Errorf("the summary does not name the example's program:\n%s", out)
	}
	src, _ := os.ReadFile(files[0])
	if !strings.Contains(string(src), "expect violated resource-safe") || !strings.Contains(string(src), "# Step through it: example-lock tui "+files[0]) {
		t.Errorf("the written scenario does not pin the violation or name the replay:\n%s", src)
	}
	code, out, errs = exampleLock(t, "run", files[0])
	if code != 0 || !strings.Contains(out, "UNSAFE") {
		t.Errorf("replaying %s: exit %d, want 0 (its expectations, the violation, met) and UNSAFE\n%s%s", files[0], code, out, errs)
	}
}

// The template with the validity timer stays safe for the resource under the
// same exploration, without delays.
func TestExploreFindsNothingWithTheValidityTimer(t *testing.T) {
	code, out, errs := exampleLock(t, "explore", "scenarios/validity.scn", "--runs", "300", "--out", t.TempDir(),
		"--faults", "pause,crash,restart-empty,clock-jump,drift,partition,loss", "--invariants", "resource-safe")
	if code != 0 || !strings.Contains(out, "no violation found") {
		t.Fatalf("explore: exit %d\n%s%s", code, out, errs)
	}
}

// A scenario of the example's kinds names its mistakes like a built-in one.
func TestABadArgumentIsExplained(t *testing.T) {
	p := filepath.Join(t.TempDir(), "typo.scn")
	os.WriteFile(p, []byte("node s session-server sesion=2s\nclient c1 session-lock server=s\nat 1s c1 acquire L\n"), 0o644)
	code, _, errs := exampleLock(t, "run", p)
	if code != 2 || !strings.Contains(errs, "sesion") || !strings.Contains(errs, "session") {
		t.Errorf("exit %d, want 2 and an error naming sesion and suggesting session:\n%s", code, errs)
	}
}
