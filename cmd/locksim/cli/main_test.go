package cli

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/locksim/locksim/scenarios"
)

// The acceptance points of issue 2, checked the way a user meets them.

func locksim(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var o, e bytes.Buffer
	code = run(args, &o, &e)
	return code, o.String(), e.String()
}

type runJSON struct {
	SchemaVersion int    `json:"schema_version"`
	Scenario      string `json:"scenario"`
	Seed          uint64 `json:"seed"`
	Events        int    `json:"events"`
	EndMs         float64
	TraceSHA256   string `json:"trace_sha256"`
	Verdict       string `json:"verdict"`
	Invariants    []struct {
		Name       string `json:"name"`
		Holds      *bool  `json:"holds"`
		Violations []struct {
			AtMs      float64  `json:"at_ms"`
			Processes []string `json:"processes"`
			Detail    string   `json:"detail"`
		} `json:"violations"`
	} `json:"invariants"`
	Expectations []struct {
		Text string `json:"text"`
		Met  bool   `json:"met"`
	} `json:"expectations"`
	Metrics map[string]float64 `json:"metrics"`
}

func runJSONOf(t *testing.T, args ...string) runJSON {
	t.Helper()
	code, out, errs := locksim(t, append([]string{"run"}, append(args, "--format", "json")...)...)
	if code != 0 {
		t.Fatalf("run %v: exit %d: %s", args, code, errs)
	}
	var r runJSON
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("run %v: bad JSON: %v\n%s", args, err, out)
	}
	return r
}

func (r runJSON) status(name string) string {
	for _, i := range r.Invariants {
		if i.Name == name {
			switch {
			case i.Holds == nil:
				return "n/a"
			case *i.Holds:
				return "holds"
			}
			return "violated"
		}
	}
	return "missing"
}

func TestListShowsTheCatalogue(t *testing.T) {
	code, out, _ := locksim(t, "list")
	for _, id := range []string{"redis-happy", "redis-setnx-expire-crash", "redis-del-after-expiry", "redis-restart-no-persistence"} {
		if !strings.Contains(out, id) {
			t.Errorf("list does not show %s:\n%s", id, out)
		}
	}
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	_, js, _ := locksim(t, "list", "--format", "json")
	var list struct {
		SchemaVersion int              `json:"schema_version"`
		Scenarios     []map[string]any `json:"scenarios"`
	}
	if err := json.Unmarshal([]byte(js), &list); err != nil || len(list.Scenarios) < 4 || list.SchemaVersion != scenarios.SchemaVersion {
		t.Fatalf("list --format json: %v %s", err, js)
	}
}

func TestVerifyMatchesTheCatalogue(t *testing.T) {
	cat, err := scenarios.Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	code, out, _ := locksim(t, "verify")
	if want := fmt.Sprintf("%d of %d scenarios match", len(cat), len(cat)); code != 0 || !strings.Contains(out, want) {
		t.Fatalf("verify: exit %d\n%s", code, out)
	}
}

func TestVerdictsOfTheCatalogue(t *testing.T) {
	r := runJSONOf(t, "redis-del-after-expiry")
	if r.Verdict != "UNSAFE" || r.status("grant-exclusive") != "violated" || r.status("mutex-belief") != "violated" {
		t.Errorf("redis-del-after-expiry: %s, grant-exclusive %s, mutex-belief %s", r.Verdict, r.status("grant-exclusive"), r.status("mutex-belief"))
	}
	if r.status("resource-safe") != "n/a" {
		t.Errorf("no resource is protected, so resource-safe must be null (n/a), got %s", r.status("resource-safe"))
	}
	if r = runJSONOf(t, "redis-setnx-expire-crash"); r.Verdict != "STUCK" || r.status("deadlock-free") != "violated" {
		t.Errorf("redis-setnx-expire-crash: %s, deadlock-free %s", r.Verdict, r.status("deadlock-free"))
	}
	if r = runJSONOf(t, "redis-happy"); r.Verdict != "SAFE" {
		t.Errorf("redis-happy: %s", r.Verdict)
	}
	if r = runJSONOf(t, "redis-restart-no-persistence"); r.Verdict != "UNSAFE" {
		t.Errorf("redis-restart-no-persistence: %s", r.Verdict)
	}
	if r.SchemaVersion != scenarios.SchemaVersion || r.Events == 0 || len(r.TraceSHA256) != 64 || len(r.Expectations) == 0 || r.Metrics == nil {
		t.Errorf("JSON misses fields: %+v", r)
	}
}

func TestSameSeedSameTraceHash(t *testing.T) {
	for _, seed := range []string{"1", "7"} {
		a := runJSONOf(t, "redis-happy", "--seed", seed)
		b := runJSONOf(t, "redis-happy", "--seed", seed)
		if a.TraceSHA256 != b.TraceSHA256 || a.Seed != b.Seed {
			t.Errorf("seed %s: %s vs %s", seed, a.TraceSHA256, b.TraceSHA256)
		}
	}
}

func TestTextRunShowsLogTimelineAndVerdicts(t *testing.T) {
	code, out, _ := locksim(t, "run", "redis-del-after-expiry")
	for _, want := range []string{"Events (true time", "wall 12.000s mono 12.000s", "Timeline", "┃", "◆",
		"Verdict: UNSAFE", "grant-exclusive    violated", "Reproduce: locksim run redis-del-after-expiry --seed 1"} {
		if !strings.Contains(out, want) {
			t.Errorf("run text output lacks %q", want)
		}
	}
	if code != 0 {
		t.Errorf("exit %d", code)
	}
}

func write(t *testing.T, name, src string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const typo = `# A typo.
protocol redis
node r1 redis
client c1 redis-lock server=r1
at 0s c1 acquire L tll=10s
`

func TestBadInputExitsTwoWithPosition(t *testing.T) {
	p := write(t, "typo.scn", typo)
	for _, args := range [][]string{{"run", p}, {"verify", p}} {
		code, _, errs := locksim(t, args...)
		if code != 2 || !strings.Contains(errs, p+":5:20: unknown argument tll for acquire") || !strings.Contains(errs, "hint: did you mean ttl=?") {
			t.Errorf("%v: exit %d, stderr:\n%s", args[0], code, errs)
		}
	}
	for _, args := range [][]string{{"run", "redis-hapy"}, {"run"}, {"frobnicate"}, {"run", "redis-happy", "--format", "xml"},
		{"run", "redis-happy", "--seed", "x"}, {"list", "extra"}} {
		code, _, errs := locksim(t, args...)
		if code != 2 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want 2 and a message", args, code, errs)
		}
	}
	if _, _, errs := locksim(t, "run", "redis-hapy"); !strings.Contains(errs, "did you mean redis-happy?") {
		t.Errorf("an unknown id should suggest the nearest: %s", errs)
	}
}

func TestFailedExpectationExitsOneWithReproduceCommand(t *testing.T) {
	src, _ := os.ReadFile("../../../scenarios/catalogue/redis-happy.scn")
	p := write(t, "wrong.scn", strings.Replace(string(src), "expect verdict SAFE", "expect verdict UNSAFE", 1))
	code, out, errs := locksim(t, "verify", p)
	if code != 1 || !strings.Contains(out, "FAIL") || !strings.Contains(out, "reproduce: locksim run "+p+" --seed 1") {
		t.Errorf("verify wrong: exit %d\n%s%s", code, out, errs)
	}
	if code, _, errs := locksim(t, "run", p); code != 1 || !strings.Contains(errs, "--seed 1") {
		t.Errorf("run wrong: exit %d %s", code, errs)
	}
}

func TestHelpOnEverySubcommand(t *testing.T) {
	for _, c := range []string{"list", "run", "verify"} {
		code, out, errs := locksim(t, c, "--help")
		if code != 0 || !strings.Contains(out, "Usage: locksim "+c) || errs != "" {
			t.Errorf("%s --help: exit %d, want the help on stdout\n%s\n%s", c, code, out, errs)
		}
	}
	if code, out, _ := locksim(t); code != 0 || !strings.Contains(out, "redis-happy") || !strings.Contains(out, "Usage:") {
		t.Errorf("bare locksim must show the catalogue and help: exit %d\n%s", code, out)
	}
}

// The real binary's exit codes (go run would turn every failure into 1).
func TestBuiltBinaryExitCodes(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "locksim")
	if out, err := exec.Command("go", "build", "-o", bin, "..").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	// Issue 15: a full disk, a directory, a device that never ends.
	full, _ := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if full != nil {
		defer full.Close()
	}
	for _, tc := range []struct {
		args      []string
		toDevFull bool
		code      int
		want      string
	}{
		{[]string{"verify"}, false, 0, ""},
		{[]string{"run", write(t, "typo.scn", typo)}, false, 2, "unknown argument tll"},
		{[]string{"run", "no-such-scenario"}, false, 2, "neither a catalogue id nor a file"},
		{[]string{"verify"}, true, 3, "cannot write the output"},
		{[]string{"explore", "redis", "--runs", "1", "--out", t.TempDir()}, true, 3, "cannot write the output"},
		{[]string{"run", t.TempDir()}, false, 2, "is a directory"},
		{[]string{"run", "/dev/zero"}, false, 2, "does not end within 4MB"},
	} {
		if tc.toDevFull && full == nil {
			continue // no /dev/full here
		}
		cmd := exec.Command(bin, tc.args...)
		var errs bytes.Buffer
		cmd.Stderr = &errs
		if tc.toDevFull {
			cmd.Stdout = full
		}
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

// run A --vs B prints the two runs side by side (issue 16); --vs pair takes the
// scenario's own compare-with.
func TestRunVersusPrintsBothRunsLinedUp(t *testing.T) {
	code, out, errOut := locksim(t, "run", "redlock-clock-jump", "--vs", "redlock-no-clock-jump")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"A redlock-clock-jump", "verdict UNSAFE", "B redlock-no-clock-jump", "verdict SAFE",
		"≠", "clock-jump C wall +15.000s"} {
		if !strings.Contains(out, want) {
			t.Errorf("run --vs lacks %q:\n%s", want, out)
		}
	}
	if code, pair, _ := locksim(t, "run", "redis-del-after-expiry", "--vs", "pair"); code != exitOK || !strings.Contains(pair, "B redis-cad-after-expiry") {
		t.Errorf("--vs pair: exit %d\n%s", code, pair)
	}
	if code, _, errOut := locksim(t, "run", "redis-happy", "--vs", "pair"); code != exitUsage || !strings.Contains(errOut, "compare-with") {
		t.Errorf("--vs pair without a pair: exit %d, %s", code, errOut)
	}
	if code, _, errOut := locksim(t, "run", "redis-happy", "--vs", "redis-hapy"); code != exitUsage || !strings.Contains(errOut, "did you mean redis-happy") {
		t.Errorf("--vs with a typo: exit %d, %s", code, errOut)
	}
	if code, _, errOut := locksim(t, "tui", "redlock-clock-jump", "--vs", "redlock-no-clock-jump"); code != exitUsage ||
		!strings.Contains(errOut, "locksim run redlock-clock-jump --vs redlock-no-clock-jump") {
		t.Errorf("tui --vs without a terminal: exit %d, %s", code, errOut)
	}
}
