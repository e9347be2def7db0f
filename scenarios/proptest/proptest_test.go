package proptest_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/scenarios/explore"
	"github.com/locksim/locksim/scenarios/proptest"
	"github.com/locksim/locksim/sim/fault"
)

// Kleppmann 2016: a lock client that stops while it holds a Redis lock writes
// after its TTL ran out, over its successor's work, unless the resource checks a
// fencing token. Random pauses find it; the written file replays it.
func TestFindWritesAScenarioThatReplays(t *testing.T) {
	dir := t.TempDir()
	f := proptest.Find(t, proptest.Config{Template: "testdata/redis-unfenced.scn",
		Faults: []fault.Kind{fault.Pause}, Invariants: []string{"resource-safe"}, Dir: dir})
	if filepath.Dir(f.File) != dir || !strings.HasSuffix(f.File, "TestFindWritesAScenarioThatReplays.scn") {
		t.Errorf("written to %s, want %s/TestFindWritesAScenarioThatReplays.scn", f.File, dir)
	}
	for _, want := range []string{"breaks resource-safe", "scenario written to " + f.File, "step through it: locksim tui " + f.File} {
		if !strings.Contains(f.Message, want) {
			t.Errorf("the failure message does not say %q:\n%s", want, f.Message)
		}
	}
	if len(f.Schedule) != 1 || f.Schedule[0].Kind != fault.Pause || f.Schedule[0].Proc == "" {
		t.Errorf("shrunk to %v, want the one pause that matters", f.Schedule)
	}
	// The file a user opens: it names the command that steps through it and
	// pins the violation, which a run of it reproduces (scenarios.Load, as
	// locksim run reads it).
	src, err := os.ReadFile(f.File)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# Step through it: locksim tui " + f.File, "expect violated resource-safe"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the file does not say %q:\n%s", want, src)
		}
	}
	s, err := scenarios.Load(f.File)
	if err != nil {
		t.Fatal(err)
	}
	if r := scenarios.Run(s, scenarios.RunOptions{}); !r.OK() {
		t.Errorf("%s does not replay: its expectations fail", f.File)
	}
}

// The same workload with a fencing token the resource checks stays safe under
// every pause rapid draws.
func TestCheckPassesAFencedDesign(t *testing.T) {
	dir := t.TempDir()
	proptest.Check(t, proptest.Config{Template: "testdata/redis-fenced.scn",
		Faults: []fault.Kind{fault.Pause}, Invariants: []string{"resource-safe"}, Dir: dir})
	if entries, _ := os.ReadDir(dir); len(entries) != 0 {
		t.Errorf("a passing property wrote %d file(s)", len(entries))
	}
}

// Where files go: Config.Dir, else $LOCKSIM_FOUND_DIR, else testdata/locksim-found.
func TestTheFoundDirectoryComesFromTheEnvironment(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(proptest.EnvDir, dir)
	f := proptest.Find(t, proptest.Config{Template: "testdata/redis-unfenced.scn",
		Faults: []fault.Kind{fault.Pause}, Invariants: []string{"resource-safe"}, Program: "go run ./cmd/mylock"})
	if filepath.Dir(f.File) != dir {
		t.Errorf("written to %s, want under $%s=%s", f.File, proptest.EnvDir, dir)
	}
	if !strings.Contains(f.Message, "step through it: go run ./cmd/mylock tui "+f.File) {
		t.Errorf("the message does not name the program that replays:\n%s", f.Message)
	}
}

// Issue 31, item 12: a drift margin that is too small. Redlock budgets 1% of
// the TTL for clock drift ("Distributed Locks with Redis": drift factor 0.01);
// Kleppmann ("How to do distributed locking", 2016) points out that its safety
// rests on clocks drifting less than that. Within the default range (±2,000
// ppm, inside the allowance) every drift on any process keeps the lock
// exclusive; with MaxDriftPPM widened to ±20,000 (2%), a client clock that runs
// slow outlives the keys, and the search finds c2 holding while c1 believes.
func TestAWiderDriftRangeFindsATooSmallMargin(t *testing.T) {
	cfg := proptest.Config{Template: "testdata/redlock-drift-margin.scn",
		Faults: []fault.Kind{fault.Drift}, Invariants: []string{"mutex-belief", "grant-exclusive"},
		Dir: t.TempDir(), CheckFaults: 1, Points: explore.Points{Mode: explore.PointsObservations}}
	res := proptest.Exhaustive(t, cfg)
	if res.Schedules() == 0 {
		t.Fatal("the default range checked no schedule")
	}
	wide := cfg
	wide.MaxDriftPPM = 20_000
	f := proptest.Find(t, wide)
	if !slices.Contains(f.Broken, "mutex-belief") || len(f.Schedule) != 1 || f.Schedule[0].Kind != fault.Drift {
		t.Fatalf("found %v by %v, want mutex-belief by one drift", f.Broken, f.Schedule)
	}
	// The drift that breaks it is outside the default range, and slow (a
	// negative rate) on the client that holds: its validity timer runs late.
	if d := f.Schedule[0]; d.Proc != "c1" || d.Mag > -2000 {
		t.Errorf("the drift that breaks it is %+v, want c1's clock slower than -2000 ppm", d)
	}
}
