package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
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
	if code != 0 || !strings.Contains(out, "6 of 6 scenarios match their expectations") {
		t.Fatalf("verify: exit %d\n%s%s", code, out, errs)
	}
	for _, id := range []string{"happy", "paused-holder", "fenced", "broken", "validity", "renewed-token"} {
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

// Issue 31, item 13: a token that changes on renewal. A second telling of
// renewed-token.scn, in other timings (a 3 s session, a longer hold before the
// pause): the holder's stale write carries the token of its latest renewal,
// not the one it was granted, and the resource refuses it under the
// successor's newer token (Kleppmann 2016). With renew-token=off the same
// story fences with the token frozen at acquisition.
func TestTheHolderFencesWithItsLatestRenewalsToken(t *testing.T) {
	story := func(renew string) string {
		return `protocol sessionlock
node s session-server session=3s renew-token=` + renew + `
client a session-lock server=s validity-timer=off
client b session-lock server=s validity-timer=off retry=300ms
resource store fencing=on
at 50ms a acquire L
at 4s a write store
at 4100ms pause a for=6s
at 4200ms b acquire L
at 5s a write store
at 9s b write store
at 11s b release L
run until=12s
`
	}
	renewed := regexp.MustCompile(`renewed L as a#1: its fencing token is now (\d+)`)
	refused := regexp.MustCompile(`store REJECTS write by a under a#1 of L token (\d+) \(token \d+ < highest seen (\d+)\)`)
	for _, tc := range []struct {
		renew  string
		frozen bool
	}{{"on", false}, {"off", true}} {
		file := filepath.Join(t.TempDir(), "renew.scn")
		if err := os.WriteFile(file, []byte(story(tc.renew)), 0o644); err != nil {
			t.Fatal(err)
		}
		code, out, errs := exampleLock(t, "run", file)
		if code != 0 || !strings.Contains(out, "Verdict: SAFE") {
			t.Fatalf("renew-token=%s: exit %d, want SAFE\n%s%s", tc.renew, code, out, errs)
		}
		before, _, _ := strings.Cut(out, "pause a for")
		renewals := renewed.FindAllStringSubmatch(before, -1)
		m := refused.FindStringSubmatch(out)
		if m == nil {
			t.Fatalf("renew-token=%s: the stale write was not refused:\n%s", tc.renew, out)
		}
		switch {
		case tc.frozen && (len(renewals) != 0 || m[1] != "1"):
			t.Errorf("renew-token=off: %d renewals, the stale write under token %s; want none, and token 1", len(renewals), m[1])
		case !tc.frozen && len(renewals) < 3:
			t.Errorf("renew-token=on: %d renewals before the pause, want one per heartbeat (a third of 3 s) over 4 s", len(renewals))
		case !tc.frozen && m[1] != renewals[len(renewals)-1][1]:
			t.Errorf("renew-token=on: the stale write carries token %s, not its latest renewal's %s", m[1], renewals[len(renewals)-1][1])
		}
	}
}
