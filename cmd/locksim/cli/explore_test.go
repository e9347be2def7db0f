package cli

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// The acceptance points of issue 9 (locksim explore), checked as a user meets them.

type exploreJSON struct {
	Runs       int    `json:"runs"`
	FirstSeed  uint64 `json:"first_seed"`
	LastSeed   uint64 `json:"last_seed"`
	Violations []struct {
		Broken  []string `json:"broken"`
		File    string   `json:"file"`
		Faults  int      `json:"faults"`
		Replays bool     `json:"replays"`
	} `json:"violations"`
	Mismatches []uint64 `json:"determinism_mismatches"`
}

func exploreOut(t *testing.T, wantCode int, args ...string) exploreJSON {
	t.Helper()
	code, out, errs := locksim(t, append([]string{"explore", "--format", "json"}, args...)...)
	if code != wantCode {
		t.Fatalf("explore %v: exit %d, want %d: %s", args, code, wantCode, errs)
	}
	var r exploreJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out)
	}
	return r
}

// `locksim explore redlock --faults restart-empty --budget 30s --out DIR` finds a
// grant-exclusive violation, writes a scenario, and `locksim run` reproduces it.
func TestExploreFindsShrinksAndWritesARedlockViolation(t *testing.T) {
	dir := t.TempDir()
	r := exploreOut(t, exitFail, "redlock", "--faults", "restart-empty", "--budget", "30s", "--out", dir)
	if len(r.Violations) != 1 {
		t.Fatalf("violations %+v", r.Violations)
	}
	v := r.Violations[0]
	if !strings.Contains(strings.Join(v.Broken, ","), "grant-exclusive") || !v.Replays {
		t.Fatalf("found %+v, want grant-exclusive, replaying", v)
	}
	if filepath.Dir(v.File) != dir {
		t.Fatalf("wrote %s, want it in %s", v.File, dir)
	}
	code, out, errs := locksim(t, "run", v.File)
	if code != exitOK || !strings.Contains(out, "grant-exclusive    violated") {
		t.Fatalf("locksim run %s: exit %d %s\n%s", v.File, code, errs, out)
	}
	src, _ := os.ReadFile(v.File)
	for _, want := range []string{"expect violated grant-exclusive", "# Replay it: locksim run", "locksim tui"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the found scenario lacks %q:\n%s", want, src)
		}
	}
}

// `locksim explore paxos` (persistent acceptors, safety only) finds nothing and exits 0.
func TestExplorePaxosFindsNothing(t *testing.T) {
	r := exploreOut(t, exitOK, "paxos", "--runs", "300", "--out", t.TempDir())
	if r.Runs != 300 || len(r.Violations) != 0 {
		t.Fatalf("%+v", r)
	}
}

// --shard 1/2 and --shard 2/2 cover disjoint seeds, together all of them.
func TestExploreShardsAreDisjoint(t *testing.T) {
	a := exploreOut(t, exitOK, "2pc", "--runs", "50", "--shard", "1/2")
	b := exploreOut(t, exitOK, "2pc", "--runs", "50", "--shard", "2/2")
	if a.FirstSeed != 1 || b.FirstSeed != 2 || a.LastSeed != 99 || b.LastSeed != 100 {
		t.Fatalf("shard 1/2 seeds %d..%d, shard 2/2 %d..%d; want odd 1..99 and even 2..100", a.FirstSeed, a.LastSeed, b.FirstSeed, b.LastSeed)
	}
}

func TestExploreChecksDeterminism(t *testing.T) {
	r := exploreOut(t, exitOK, "etcd", "--runs", "20", "--faults", "pause,crash,partition", "--invariants", "grant-exclusive", "--check-determinism")
	if len(r.Mismatches) != 0 {
		t.Fatalf("seeds %v are not deterministic", r.Mismatches)
	}
}

func TestExploreBadInput(t *testing.T) {
	notADir := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(notADir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"redlok"}, "neither a file, a preset nor a catalogue id"},
		{[]string{"redlock", "--faults", "meteor"}, `unknown fault "meteor"`},
		{[]string{"redlock", "--shard", "3/2"}, "expected i/n"},
		{[]string{"redlock", "--invariants", "safe"}, `unknown invariant "safe"`},
		{[]string{"2pc", "--faults", "failover"}, "nothing these faults can hit"},
		{[]string{}, "explore needs one target"},
		{[]string{"redis", "--invariants", "progress"}, "only with --liveness"},
		{[]string{"redis", "--max-faults", "0"}, "expected 1 to 100"},
		{[]string{"redis", "--out", notADir}, "--out"},
		{[]string{"../../../scenarios/catalogue/redis-setnx-expire-crash.scn"}, "with no fault at all"},
	} {
		code, _, errs := locksim(t, append([]string{"explore"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("explore %v: exit %d, %q; want exit 2 mentioning %q", tc.args, code, errs, tc.want)
		}
	}
}

// The command written into a found file finds it again, whatever flags shaped
// the search (--swarm here).
func TestExploreFoundFileNamesTheCommandThatFindsItAgain(t *testing.T) {
	dir := t.TempDir()
	r := exploreOut(t, exitFail, "redlock", "--swarm", "--runs", "500", "--out", dir)
	src, err := os.ReadFile(r.Violations[0].File)
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(string(src), "`locksim explore ")
	j := strings.Index(string(src)[i+1:], "`")
	cmd := strings.Fields(string(src)[i+1 : i+1+j])
	if !strings.Contains(strings.Join(cmd, " "), "--swarm") {
		t.Fatalf("the found file's command %q lacks --swarm", cmd)
	}
	again := exploreOut(t, exitFail, append(cmd[2:], "--out", t.TempDir())...)
	if len(again.Violations) != 1 || strings.Join(again.Violations[0].Broken, ",") != strings.Join(r.Violations[0].Broken, ",") {
		t.Fatalf("the command found %+v, the original %+v", again.Violations, r.Violations)
	}
}

// `--workers N` runs seeds in parallel but reports what one worker does: the
// same first failure by seed order, the same shrunk scenario (byte for byte, but
// for the directory it names), the same counts for a given --runs (issue 21).
func TestExploreWorkersGiveTheSameResultAsOne(t *testing.T) {
	cases := [][]string{
		{"redlock", "--faults", "restart-empty", "--runs", "500"}, // a violation, shrunk and written
		{"zookeeper", "--runs", "40", "--shard", "2/3"},           // nothing found: the counts
		{"etcd", "--runs", "12", "--faults", "pause,crash", "--check-determinism"},
	}
	for _, args := range cases {
		var first map[string]any
		var firstFiles map[string]string
		for _, workers := range []string{"1", "2", "3"} {
			dir := t.TempDir()
			_, out, errs := locksim(t, append([]string{"explore", "--format", "json", "--out", dir, "--workers", workers}, args...)...)
			var got map[string]any
			if err := json.Unmarshal([]byte(out), &got); err != nil {
				t.Fatalf("%v --workers %s: bad JSON %v: %s\n%s", args, workers, err, out, errs)
			}
			for _, timing := range []string{"elapsed_s", "runs_per_s", "workers"} {
				delete(got, timing)
			}
			for _, v := range got["violations"].([]any) {
				delete(v.(map[string]any), "shrink_s")
				delete(v.(map[string]any), "file")
			}
			files := map[string]string{}
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				b, _ := os.ReadFile(filepath.Join(dir, e.Name()))
				files[e.Name()] = strings.ReplaceAll(string(b), dir, "DIR")
			}
			if first == nil {
				first, firstFiles = got, files
				continue
			}
			a, _ := json.Marshal(first)
			b, _ := json.Marshal(got)
			if string(a) != string(b) {
				t.Errorf("%v: --workers %s reports\n%s\nbut --workers 1\n%s", args, workers, b, a)
			}
			if !maps.Equal(files, firstFiles) {
				t.Errorf("%v: --workers %s wrote other files than --workers 1: %v vs %v", args, workers, slices.Collect(maps.Keys(files)), slices.Collect(maps.Keys(firstFiles)))
			}
		}
		if args[0] == "redlock" && len(first["violations"].([]any)) != 1 {
			t.Errorf("%v: found %v, want one violation (the case must exercise shrinking)", args, first["violations"])
		}
	}
}
