package cli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// The acceptance points of issue 27 (locksim check), checked as a user meets
// them. Sources: Skeen (1981) and Bernstein et al. (1987) for 3PC and 2PC.

// checkRun runs `locksim check ARGS --format json` and returns its JSON, with
// the two timing fields taken out (the rest is the same on every run).
func checkRun(t *testing.T, wantCode int, args ...string) (map[string]any, string) {
	t.Helper()
	code, out, errs := locksim(t, append([]string{"check", "--format", "json"}, args...)...)
	if code != wantCode {
		t.Fatalf("check %v: exit %d, want %d: %s\n%s", args, code, wantCode, errs, out)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatalf("bad JSON: %v\n%s", err, out)
	}
	validate(t, "check-summary.schema.json", out)
	if _, ok := m["elapsed_ms"]; !ok {
		t.Error("no elapsed_ms")
	}
	delete(m, "elapsed_ms")
	delete(m, "schedules_per_s")
	return m, errs
}

// validate checks a document against one of docs/' schemas.
func validate(t *testing.T, schemaFile, doc string) {
	t.Helper()
	c := jsonschema.NewCompiler()
	for _, file := range []string{"check-summary.schema.json", "check-certificate.schema.json"} {
		f, err := os.Open(filepath.Join("..", "..", "..", "docs", file))
		if err != nil {
			t.Fatal(err)
		}
		d, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", file, err)
		}
		if err := c.AddResource("https://github.com/locksim/locksim/docs/"+file, d); err != nil {
			t.Fatal(err)
		}
	}
	sch, err := c.Compile("https://github.com/locksim/locksim/docs/" + schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("not as %s says: %v\n%s", schemaFile, err, doc)
	}
}

// `locksim check 3pc --max-faults 1` finds the one-fault counterexample; the
// file it writes replays UNSAFE with commit-agreement violated.
func TestCheckFindsThe3PCCounterexampleAndItReplays(t *testing.T) {
	dir := t.TempDir()
	m, _ := checkRun(t, exitFail, "3pc", "--max-faults", "1", "--out", dir)
	sh := m["shortest"].(map[string]any)
	if m["result"] != "counterexample" || len(sh["faults"].([]any)) != 1 || sh["replays"] != true {
		t.Fatalf("summary %v", m)
	}
	file := sh["file"].(string)
	code, out, _ := locksim(t, "run", file)
	if code != exitOK || !strings.Contains(out, "commit-agreement   violated") || !strings.Contains(out, "Verdict: UNSAFE") {
		t.Fatalf("locksim run %s: exit %d\n%s", file, code, out)
	}
	// At observation points the summary says how much less it proves.
	code, txt, _ := locksim(t, "check", "3pc", "--max-faults", "1", "--points", "observations", "--out", dir)
	if code != exitFail || !strings.Contains(txt, "this check proves less than one at event points") {
		t.Errorf("--points observations: exit %d\n%s", code, txt)
	}
}

// The same check gives the same summary (but its timing), the same
// certificate and the same file, run again and on one or two workers.
func TestCheckIsTheSameAgainAndOnAnyNumberOfWorkers(t *testing.T) {
	dir := t.TempDir()
	var sums []string
	var certs, files [][]byte
	for i, workers := range []string{"1", "2", "2"} {
		cert := filepath.Join(dir, "cert"+workers+string(rune('a'+i))+".json")
		m, _ := checkRun(t, exitFail, "3pc", "--max-faults", "2", "--faults", "crash,partition", "--workers", workers,
			"--out", dir, "--certificate", cert)
		delete(m, "certificate") // its name differs, on purpose
		b, _ := json.Marshal(m)
		sums = append(sums, string(b))
		c, err := os.ReadFile(cert)
		if err != nil {
			t.Fatal(err)
		}
		validate(t, "check-certificate.schema.json", string(c))
		certs = append(certs, c)
		f, err := os.ReadFile(m["shortest"].(map[string]any)["file"].(string))
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for i := 1; i < len(sums); i++ {
		if sums[i] != sums[0] {
			t.Errorf("run %d's summary differs:\n%s\n%s", i, sums[0], sums[i])
		}
		if !bytes.Equal(certs[i], certs[0]) || !bytes.Equal(files[i], files[0]) {
			t.Errorf("run %d's certificate or file differs", i)
		}
	}
}

// A safe configuration: no counterexample, a certificate; comparing with it
// passes, and fails against one with a larger bound.
func TestCheckCertificatesAreComparedByWhatTheyProve(t *testing.T) {
	dir := t.TempDir()
	small, large := filepath.Join(dir, "small.json"), filepath.Join(dir, "large.json")
	m, _ := checkRun(t, exitOK, "2pc", "--max-faults", "1", "--invariants", "commit-agreement", "--certificate", small)
	if m["result"] != "no-counterexample" || m["exhausted"] != true {
		t.Fatalf("summary %v", m)
	}
	checkRun(t, exitOK, "2pc", "--max-faults", "2", "--invariants", "commit-agreement", "--certificate", large)
	if m, _ := checkRun(t, exitOK, "2pc", "--max-faults", "1", "--invariants", "commit-agreement", "--compare-certificate", small); m["compared"].(map[string]any)["proves_at_least_as_much"] != true {
		t.Errorf("the same check does not prove as much as its own certificate: %v", m["compared"])
	}
	m, errs := checkRun(t, exitFail, "2pc", "--max-faults", "1", "--invariants", "commit-agreement", "--compare-certificate", large)
	why := m["compared"].(map[string]any)["why"].([]any)
	if len(why) == 0 || !strings.Contains(why[0].(string), "fewer faults") || !strings.Contains(errs, "proves less") {
		t.Errorf("a smaller bound compared with a larger one: %v\n%s", why, errs)
	}
}

// A budget too short to finish: exit 4, and the words "not exhausted".
func TestCheckStoppedByItsBudgetSaysNotExhausted(t *testing.T) {
	code, out, errs := locksim(t, "check", "redlock", "--max-faults", "2", "--faults", "crash", "--budget", "1ms", "--out", t.TempDir())
	if code != exitUnfinished || !strings.Contains(out, "NOT EXHAUSTED") || !strings.Contains(errs, "not exhausted") {
		t.Fatalf("exit %d\n%s\n%s", code, out, errs)
	}
}

// --count-only prints each level's count, exact or marked as an estimate,
// and runs no level.
func TestCheckCountOnlyCountsEachLevel(t *testing.T) {
	for _, target := range []string{"redlock", "zookeeper"} {
		code, out, errs := locksim(t, "check", target, "--count-only")
		if code != exitOK || !strings.Contains(out, "level 1:") || !strings.Contains(out, "level 2:") || !strings.Contains(out, "(estimate)") {
			t.Errorf("%s --count-only: exit %d\n%s%s", target, code, out, errs)
		}
	}
}

// Bad input exits 2 with what was expected.
func TestCheckRefusesBadFlags(t *testing.T) {
	for _, args := range [][]string{
		{"check"},
		{"check", "3pc", "--points", "gaps"},
		{"check", "3pc", "--menu", "pause=soon"},
		{"check", "3pc", "--envelope", "pause"},
		{"check", "3pc", "--envelope", "drift:p1"},
		{"check", "3pc", "--max-faults", "-1"},
		{"check", "3pc", "--compare-certificate", "/nonexistent.json"},
	} {
		if code, _, errs := locksim(t, args...); code != exitUsage || errs == "" {
			t.Errorf("%v: exit %d, want 2 with a message: %q", args, code, errs)
		}
	}
}

// Found in review: an envelope with nowhere to put the fault, and a certificate
// that cannot be written, are bad input before anything runs.
func TestCheckRefusesWhatItCouldNotDoBeforeRunning(t *testing.T) {
	for _, args := range [][]string{
		{"check", "redlock", "--envelope", "pause:c1", "--points", "at=99s"},
		{"check", "3pc", "--max-faults", "1", "--certificate", "/dev/null/c.json"},
		{"check", "3pc", "--points", "at=99s"},
	} {
		if code, _, errs := locksim(t, append(args, "--out", t.TempDir())...); code != exitUsage {
			t.Errorf("%v: exit %d, want 2: %s", args, code, errs)
		}
	}
}

// Issue 31, item 12: --max-drift-ppm widens the drift that explore and check
// try. Redlock budgets 1% of the TTL for drift ("Distributed Locks with
// Redis"); a client clock 2% slow outlives its keys (Kleppmann 2016). The
// default ±2,000 ppm cannot show it; ±20,000 can, and the written file names
// the flag, so its command finds it again.
func TestMaxDriftPPMFindsATooSmallMargin(t *testing.T) {
	const tpl = "../../../scenarios/proptest/testdata/redlock-drift-margin.scn"
	args := []string{tpl, "--faults", "drift", "--max-faults", "1", "--points", "observations", "--workers", "1"}
	m, _ := checkRun(t, exitOK, append(args, "--out", t.TempDir())...)
	if m["counterexamples"] != float64(0) {
		t.Fatalf("the default range found %v", m["shortest"])
	}
	dir := t.TempDir()
	m, _ = checkRun(t, exitFail, append(args, "--out", dir, "--max-drift-ppm", "20000")...)
	cx, _ := m["shortest"].(map[string]any)
	file, _ := cx["file"].(string)
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("no counterexample file: %v (%v)", err, m)
	}
	for _, want := range []string{"--max-drift-ppm 20000", "clock-drift c1 -20000", "expect violated mutex-belief"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the counterexample lacks %q:\n%s", want, src)
		}
	}
	r := exploreOut(t, exitFail, tpl, "--faults", "drift", "--max-faults", "1", "--runs", "200", "--max-drift-ppm", "20000", "--out", t.TempDir())
	if len(r.Violations) == 0 || !r.Violations[0].Replays {
		t.Errorf("explore --max-drift-ppm 20000 found %+v, want a replaying violation", r.Violations)
	}
	exploreOut(t, exitOK, tpl, "--faults", "drift", "--max-faults", "1", "--runs", "200", "--out", t.TempDir())
	for _, cmd := range []string{"check", "explore"} {
		for _, bad := range []string{"0", "100001", "-5"} {
			code, _, errs := locksim(t, cmd, tpl, "--max-drift-ppm", bad)
			if code != exitUsage || !strings.Contains(errs, "--max-drift-ppm "+bad+": expected 1 to 100000") {
				t.Errorf("%s --max-drift-ppm %s: exit %d, %q", cmd, bad, code, errs)
			}
		}
	}
}

// Issue 31, item 11: a repeating workload in a template. c1 writes db every
// 200 ms while it holds L: wherever a delay falls, a write is on its way, and
// check finds the write sent just before c1's validity ended that lands after
// c2's (Kleppmann 2016: a delayed packet outlives the lease). The same clients
// writing at two fixed times give a delay nothing to meet; a fenced db
// refuses the late write. The found file keeps the every lines and replays.
func TestCheckFindsWhatARepeatingWorkloadExposes(t *testing.T) {
	const tpl = "../../../testdata/explore/lease-every-write.scn"
	args := []string{"--faults", "delay", "--max-faults", "1", "--workers", "1"}
	dir := t.TempDir()
	m, _ := checkRun(t, exitFail, append([]string{tpl, "--out", dir}, args...)...)
	cx, _ := m["shortest"].(map[string]any)
	file, _ := cx["file"].(string)
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("no counterexample file: %v (%v)", err, m)
	}
	for _, want := range []string{"every 200ms c1 write db while c1 holds L", "extra-delay=", "expect violated resource-safe"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the counterexample lacks %q:\n%s", want, src)
		}
	}
	if code, out, errs := locksim(t, "run", file); code != exitOK || !strings.Contains(out, "Verdict: UNSAFE") {
		t.Errorf("the counterexample does not replay: exit %d\n%s%s", code, out, errs)
	}
	r := exploreOut(t, exitFail, tpl, "--faults", "delay", "--runs", "300", "--workers", "1", "--out", t.TempDir())
	if len(r.Violations) == 0 || !r.Violations[0].Replays || !strings.Contains(strings.Join(r.Violations[0].Broken, ","), "resource-safe") {
		t.Errorf("explore found %+v, want a replaying resource-safe violation", r.Violations)
	}
	orig, err := os.ReadFile(tpl)
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{
		"fixed.scn": strings.NewReplacer("every 200ms c1 write db while c1 holds L", "at 500ms c1 write db\nat 1s c1 write db",
			"every 200ms from=300ms c2 write db while c2 holds L", "at 2500ms c2 write db\nat 3s c2 write db").Replace(string(orig)),
		"fenced.scn": strings.Replace(string(orig), "\nresource db\n", "\nresource db fencing=on\n", 1),
	} {
		f := filepath.Join(t.TempDir(), name)
		if text == string(orig) {
			t.Fatalf("%s: the template was not changed", name)
		}
		if err := os.WriteFile(f, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		if m, _ := checkRun(t, exitOK, append([]string{f, "--out", t.TempDir()}, args...)...); m["counterexamples"] != float64(0) {
			t.Errorf("%s: %v counterexamples, want none", name, m["counterexamples"])
		}
	}
}
