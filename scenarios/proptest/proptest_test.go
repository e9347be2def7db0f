package proptest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/scenarios"
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
