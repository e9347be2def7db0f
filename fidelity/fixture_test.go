package fidelity

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// fixtureDir holds the recordings: one file per server and version.
const fixtureDir = "../testdata/fidelity"

// Step timing, the same on both sides: a step starts 1 ms after the previous
// one ended; a command unanswered after blockWait counts as blocked (its answer
// is listed under the step during which it comes); after its own answer a step
// waits grace more when other connections still await theirs, so that what its
// command set free (a row lock passed on, a watch fired) is listed under it.
const (
	stepGap   = time.Millisecond
	blockWait = 300 * time.Millisecond
	grace     = 100 * time.Millisecond
)

// A fcase is one comparison: a script run against the real server and the model.
type fcase struct {
	name   string
	config string // the servers and their settings, in the system's words
	script string
	// timing: the case depends on timing or on what differs between runs, so
	// the live suite records it but does not fail when one run differs (the
	// fixture test still holds the model to the recording).
	timing  bool
	differs []difference
}

// A difference is a deliberate one: where the real server answers real, the
// model answers model instead (each a block of transcript lines), for why (a
// section of docs/fidelity.md).
type difference struct {
	real, model string
	why         string
}

// A configServer is one server of a case's config: its name and settings.
type configServer struct {
	name string
	set  map[string]string
}

// parseConfig reads a config: servers separated by ";", each a name and then
// key=value settings, of the keys known.
func parseConfig(config string, known ...string) ([]configServer, error) {
	var out []configServer
	for _, part := range strings.Split(config, ";") {
		words := strings.Fields(part)
		if len(words) == 0 {
			return nil, fmt.Errorf("config %q: an empty server", config)
		}
		s := configServer{name: words[0], set: map[string]string{}}
		for _, w := range words[1:] {
			k, v, ok := strings.Cut(w, "=")
			if !ok || !slices.Contains(known, k) {
				return nil, fmt.Errorf("config %q: %s is not one of %s=...", config, w, strings.Join(known, "=..., "))
			}
			s.set[k] = v
		}
		out = append(out, s)
	}
	return out, nil
}

// dur is a duration setting, or def when it is not set.
func (s configServer) dur(key string, def time.Duration) (time.Duration, error) {
	v, ok := s.set[key]
	if !ok {
		return def, nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("%s=%s: %v", key, v, err)
	}
	return d, nil
}

// A step is one line of a script.
type step struct {
	text string        // the line as written
	conn string        // a command's connection: "c1", or "c1@r2" for c1's connection to r2
	cmd  string        // a command, in the server's words
	verb string        // an action: sleep, crash, restart, shutdown, pause, resume, close
	arg  string        // the action's process
	dur  time.Duration // a sleep's length
}

var verbs = []string{"sleep", "crash", "restart", "shutdown", "pause", "resume", "close"}

// parseScript reads a script: "conn> command" lines and action lines.
func parseScript(script string) ([]step, error) {
	var steps []step
	for i, line := range strings.Split(strings.TrimSpace(script), "\n") {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if conn, cmd, ok := strings.Cut(line, "> "); ok && !strings.Contains(conn, " ") {
			steps = append(steps, step{text: line, conn: conn, cmd: cmd})
			continue
		}
		verb, arg, _ := strings.Cut(line, " ")
		if !slices.Contains(verbs, verb) || arg == "" {
			return nil, fmt.Errorf("line %d: %q is neither \"conn> command\" nor one of %s PROCESS", i+1, line, strings.Join(verbs, ", "))
		}
		s := step{text: line, verb: verb, arg: arg}
		if verb == "sleep" {
			d, err := time.ParseDuration(arg)
			if err != nil {
				return nil, fmt.Errorf("line %d: %v", i+1, err)
			}
			s.dur = d
		}
		steps = append(steps, s)
	}
	return steps, nil
}

// server is the server a connection talks to: "r2" for "c1@r2", else def.
func (s step) server(def string) string {
	if _, srv, ok := strings.Cut(s.conn, "@"); ok {
		return srv
	}
	return def
}

// A result is one step and what came back during it: "c1: +OK", in order of
// arrival per connection, the stepping connection's first.
type result struct {
	step    string
	replies []string
}

type transcript []result

// String is the transcript as a fixture holds it.
func (t transcript) String() string {
	var b strings.Builder
	for _, r := range t {
		b.WriteString(r.step + "\n")
		for _, x := range r.replies {
			b.WriteString("  " + x + "\n")
		}
	}
	return b.String()
}

// arrival collects what arrives during a step and orders it for the transcript.
type arrival struct {
	own  string // the stepping connection
	seen []string
}

func (a *arrival) add(conn, text string) { a.seen = append(a.seen, conn+": "+text) }

func (a *arrival) replies() []string {
	out := slices.Clone(a.seen)
	rank := func(s string) string {
		conn, _, _ := strings.Cut(s, ": ")
		if conn == a.own {
			return ""
		}
		return conn
	}
	slices.SortStableFunc(out, func(x, y string) int { return strings.Compare(rank(x), rank(y)) })
	return out
}

// A recording is one case as a fixture holds it.
type recording struct {
	name, config, script string
	transcript           string
}

// A fixture is one recorded file: the server's version line and its cases.
type fixture struct {
	path, version string
	cases         []recording
}

func readFixture(path string) (fixture, error) {
	f := fixture{path: path}
	file, err := os.Open(path)
	if err != nil {
		return f, err
	}
	defer file.Close()
	sc := bufio.NewScanner(file)
	var cur *recording
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case n == 1:
			v, _, ok := strings.Cut(strings.TrimPrefix(line, "# "), " on loopback")
			if !ok {
				return f, fmt.Errorf("%s:1: the first line should name the server and version", path)
			}
			f.version = v
		case strings.HasPrefix(line, "#"), line == "" && cur == nil:
		case strings.HasPrefix(line, "== "):
			f.cases = append(f.cases, recording{name: strings.TrimPrefix(line, "== ")})
			cur = &f.cases[len(f.cases)-1]
		case cur == nil:
			return f, fmt.Errorf("%s:%d: a line before the first case", path, n)
		case strings.HasPrefix(line, "config: "):
			cur.config = strings.TrimPrefix(line, "config: ")
		case line == "":
		default:
			cur.transcript += line + "\n"
			if !strings.HasPrefix(line, "  ") && line != startStep {
				cur.script += line + "\n"
			}
		}
	}
	return f, sc.Err()
}

// expected is what the model must answer: the recording with the case's
// deliberate differences applied, each exactly once.
func expected(c fcase, recorded string) (string, error) {
	for _, d := range c.differs {
		if n := strings.Count(recorded, d.real); n != 1 {
			return "", fmt.Errorf("the real server's side of a deliberate difference (%s) is found %d times in the recording, not once:\n%s",
				d.why, n, d.real)
		}
		recorded = strings.Replace(recorded, d.real, d.model, 1)
	}
	return recorded, nil
}

// A system is one kind of server the suite compares.
type system struct {
	name  string // the fixtures' prefix: testdata/fidelity/<name>-<version>.txt
	cases []fcase
	// model runs a case on the model and returns its transcript.
	model func(c fcase, steps []step) (transcript, error)
}

var systems []system // each system's file registers itself

func (s system) find(name string) (fcase, bool) {
	for _, c := range s.cases {
		if c.name == name {
			return c, true
		}
	}
	return fcase{}, false
}

// TestFixtures replays every recorded case on the model: the model must answer
// what the real server answered, but for the case's deliberate differences.
func TestFixtures(t *testing.T) {
	for _, sys := range systems {
		t.Run(sys.name, func(t *testing.T) {
			files, _ := filepath.Glob(filepath.Join(fixtureDir, sys.name+"-*.txt"))
			if len(files) == 0 {
				t.Fatalf("no recording of %s in %s: record one with scripts/fidelity -update", sys.name, fixtureDir)
			}
			for _, path := range files {
				f, err := readFixture(path)
				if err != nil {
					t.Fatal(err)
				}
				checkRecording(t, sys, f)
			}
		})
	}
}

func checkRecording(t *testing.T, sys system, f fixture) {
	var names []string
	for _, r := range f.cases {
		names = append(names, r.name)
		c, ok := sys.find(r.name)
		if !ok {
			t.Errorf("%s: case %s is no longer defined: re-record with scripts/fidelity -update", f.path, r.name)
			continue
		}
		steps, err := parseScript(c.script)
		if err != nil {
			t.Fatalf("case %s: %v", c.name, err)
		}
		var script strings.Builder
		for _, s := range steps {
			script.WriteString(s.text + "\n")
		}
		if r.config != c.config || r.script != script.String() {
			t.Errorf("%s: case %s has changed since it was recorded: re-record with scripts/fidelity -update", f.path, r.name)
			continue
		}
		want, err := expected(c, r.transcript)
		if err != nil {
			t.Errorf("%s: case %s: %v", f.path, c.name, err)
			continue
		}
		got, err := sys.model(c, steps)
		if err != nil {
			t.Errorf("%s: case %s: %v", f.path, c.name, err)
			continue
		}
		if got.String() != want {
			t.Errorf("%s: the model differs from %s in case %s (run it: go test ./fidelity -run 'TestFixtures/%s' -v)\n%s",
				f.path, f.version, c.name, sys.name, diff(want, got.String()))
		}
	}
	for _, c := range sys.cases {
		if !slices.Contains(names, c.name) {
			t.Errorf("%s: case %s was never recorded: record it with scripts/fidelity -update", f.path, c.name)
		}
	}
}

// diff shows two transcripts side by side from their first difference.
func diff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	i := 0
	for i < len(wl) && i < len(gl) && wl[i] == gl[i] {
		i++
	}
	var b strings.Builder
	b.WriteString("expected (recorded, with deliberate differences) | the model\n")
	for j := max(i-3, 0); j < max(len(wl), len(gl)) && j < i+8; j++ {
		var w, g string
		if j < len(wl) {
			w = wl[j]
		}
		if j < len(gl) {
			g = gl[j]
		}
		mark := " "
		if w != g {
			mark = "!"
		}
		fmt.Fprintf(&b, "%s %-50s | %s\n", mark, w, g)
	}
	return b.String()
}

// The comparison must be able to fail: a case whose recording disagrees with the
// model, or whose deliberate difference names lines the recording lacks, is caught.
func TestTheComparisonCatchesDifferences(t *testing.T) {
	c := fcase{name: "x", script: "c1> GET L", differs: []difference{{real: "  c1: +OK\n", model: "  c1: (nil)\n", why: "test"}}}
	if _, err := expected(c, "c1> GET L\n  c1: (bulk) a\n"); err == nil {
		t.Error("a deliberate difference whose real side is not in the recording was accepted")
	}
	want, err := expected(c, "c1> GET L\n  c1: +OK\n")
	if err != nil || want != "c1> GET L\n  c1: (nil)\n" {
		t.Errorf("a deliberate difference was not applied: %q, %v", want, err)
	}
	if _, err := parseScript("c1 GET L"); err == nil {
		t.Error("a script line that is neither a command nor an action was accepted")
	}
}
