package cli

import (
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/scenarios/explore"
	"github.com/locksim/locksim/sim"
)

// Hostile input at the command line (issue 32, items 5-8): a reliability review
// found file names that wrote to the terminal, a found file a name could add a
// line to, exit codes that called a bug a violation, and a flag that ran the
// machine out of memory.

// evilName has an OSC 52 sequence (it sets the clipboard), a clear-screen, and
// a newline followed by a working scenario line.
const evilName = "evil\x1b]52;c;cHduZWQ=\a\x1b[2J\nnote at 0s \"INJECTED\" #.scn"

// copyAs writes the catalogue scenario id to dir under name.
func copyAs(t *testing.T, dir, name, id string) string {
	t.Helper()
	src, ok := scenarios.CatalogueSource(id)
	if !ok {
		t.Fatalf("no catalogue scenario %s", id)
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// noControl fails when s holds a control character other than newline and tab.
func noControl(t *testing.T, what, s string) {
	t.Helper()
	for i, r := range s {
		if r < 0x20 && r != '\n' && r != '\t' || r == 0x7f {
			t.Errorf("%s writes control character %U at byte %d: %q", what, r, i, s[max(0, i-20):min(len(s), i+20)])
			return
		}
	}
}

func TestFileNamesReachNoTerminalRaw(t *testing.T) {
	dir := t.TempDir()
	good := copyAs(t, dir, evilName, "redis-happy")
	bad := filepath.Join(dir, "bad\x1b[2J.scn")
	if err := os.WriteFile(bad, []byte("protocol redis\nnode r1 redis\nfoo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"run", good}, {"verify", good}, {"run", good, "--format", "mermaid"}, {"run", good, "--format", "html"},
		{"run", good, "--format", "svg"}, {"run", bad}, {"verify", bad}, {"run", filepath.Join(dir, "missing\x1b[2J.scn")},
	} {
		_, out, errs := locksim(t, args...)
		noControl(t, strings.Join(args[:1], " ")+" "+strings.Join(args[2:], " "), out+errs)
		if args[0] == "run" && len(args) == 2 && args[1] == good && !strings.Contains(out, "Reproduce: locksim run $'") {
			t.Errorf("the Reproduce line does not quote the path for a shell:\n%s", out)
		}
		if len(args) == 4 && args[3] == "svg" {
			if err := xml.Unmarshal([]byte(out), new(struct{})); err != nil {
				t.Errorf("the SVG of a scenario with an escape in its name is not well-formed XML: %v", err)
			}
		}
	}
	_, _, errs := locksim(t, "run", bad)
	if !strings.Contains(errs, `"`+strings.ReplaceAll(bad, "\x1b", `\x1b`)+`":3:1: unknown command "foo"`) {
		t.Errorf("a scenario error names its file quoted: %s", errs)
	}
}

// The Reproduce line is a command a shell runs as written: the path is one word.
func TestShellWordQuotesForAShell(t *testing.T) {
	for in, want := range map[string]string{
		"a/b.scn":            "a/b.scn",
		"my scenario.scn":    "'my scenario.scn'",
		"it's.scn":           `'it'\''s.scn'`,
		"$(rm -rf ~).scn":    "'$(rm -rf ~).scn'",
		"e\x1b[2J\n.scn":     `$'e\x1b[2J\x0a.scn'`,
		"q'\a\\.scn":         `$'q\'\x07\\.scn'`,
		"":                   "''",
		"at 2s pause c1":     "'at 2s pause c1'",
		"bad\xffutf8.scn":    `$'bad\xffutf8.scn'`,
		"caf\u00e9 \u2028.s": `$'café \xe2\x80\xa8.s'`,
	} {
		if got := scenarios.ShellWord(in); got != want {
			t.Errorf("ShellWord(%q) = %s, want %s", in, got, want)
		}
	}
}

// Explore and check write a found scenario named after the template: no
// character of the template's name reaches the file's lines or its name raw.
func TestAFoundFileTakesNoLineFromItsTemplatesName(t *testing.T) {
	dir := t.TempDir()
	src, _ := os.ReadFile(filepath.Join("..", "..", "..", "scenarios", "explore", "presets", "redlock.scn"))
	tpl := filepath.Join(dir, evilName)
	if err := os.WriteFile(tpl, src, 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, stdout, errs := locksim(t, "explore", tpl, "--faults", "restart-empty", "--budget", "30s", "--out", out)
	if code != exitFail {
		t.Fatalf("explore: exit %d: %s", code, errs)
	}
	noControl(t, "explore", stdout+errs)
	files, _ := filepath.Glob(filepath.Join(out, "*"))
	if len(files) != 1 {
		t.Fatalf("found files %v", files)
	}
	if base := filepath.Base(files[0]); strings.ContainsAny(base, "\x1b\a\n\" ") {
		t.Errorf("the found file's name keeps the template's raw characters: %q", base)
	}
	found, _ := os.ReadFile(files[0])
	for _, l := range strings.Split(string(found), "\n") {
		if strings.Contains(l, "INJECTED") && !strings.HasPrefix(l, "#") {
			t.Errorf("the template's name added a line to the found file: %q", l)
		}
	}
	noControl(t, "the found file", string(found))
	if code, out, errs := locksim(t, "run", files[0]); code != exitOK || !strings.Contains(out, "ok    expect verdict UNSAFE") {
		t.Errorf("the found file does not replay its violation: exit %d %s\n%s", code, errs, out)
	}
}

// A found scenario that does not replay is a bug in locksim: exit 3, not 1
// ("violation found"). An outcome that claims a violation its schedule does not
// cause (no fault at all, on a safe preset) makes a file that does not replay.
func TestAFoundFileThatDoesNotReplayIsABug(t *testing.T) {
	o := exploreOptions{out: t.TempDir(), shrinkRuns: 10, maxFaults: 4}
	cfg, err := exploreConfig("redlock", &o)
	if err != nil {
		t.Fatal(err)
	}
	claimed := explore.Outcome{Seed: 1, Broken: []string{"grant-exclusive"}, Detail: "nothing", At: sim.Time(time.Second)}
	_, err = shrinkAndWrite(cfg, claimed, &o, "redlock", 1, io.Discard)
	var bug internalError
	if !errors.As(err, &bug) || report(err, io.Discard) != exitInternal {
		t.Fatalf("a found file that does not replay: %v (%T), want an internal error (exit 3)", err, err)
	}
}

// --workers above what the machine can use is clamped, and said: a million
// workers ran the machine out of memory.
func TestWorkersAreClampedToWhatCanRun(t *testing.T) {
	for _, cmd := range [][]string{
		{"explore", "redis", "--runs", "20", "--workers", "1000000", "--format", "json"},
		{"check", "2pc", "--max-faults", "0", "--workers", "1000000"},
	} {
		code, out, errs := locksim(t, cmd...)
		if code != exitOK && code != exitFail {
			t.Fatalf("%v: exit %d: %s", cmd, code, errs)
		}
		want := fmt.Sprintf("--workers 1000000 is more than this machine can use (%d cores); running %d", runtime.NumCPU(), maxWorkers())
		if !strings.Contains(errs, want) {
			t.Errorf("%v: stderr %q, want %q", cmd, errs, want)
		}
		if cmd[0] == "explore" && !strings.Contains(out, fmt.Sprintf(`"workers": %d`, maxWorkers())) {
			t.Errorf("the summary does not report the workers that ran: %s", out)
		}
	}
}

// failing is an output that cannot be written (a full disk).
type failing struct{}

func (failing) Write([]byte) (int, error) { return 0, errors.New("no space left on device") }

// Help that cannot be written is an output error (exit 3), as any output is:
// `locksim run --help >/dev/full` exited 0.
func TestHelpThatCannotBeWrittenExitsThree(t *testing.T) {
	for _, args := range [][]string{{"run", "--help"}, {"explore", "-h"}, {"--help"}} {
		var e strings.Builder
		if code := run(args, failing{}, &e); code != exitInternal || !strings.Contains(e.String(), "cannot write the output") {
			t.Errorf("%v to a full disk: exit %d, %q", args, code, e.String())
		}
	}
	var o, e strings.Builder
	if code := run([]string{"run", "--help"}, &o, &e); code != exitOK || !strings.HasPrefix(o.String(), "Usage: locksim run") || e.Len() != 0 {
		t.Errorf("run --help: exit %d, stdout %.40q, stderr %q: want the help on stdout", code, o.String(), e.String())
	}
}

// An output that exists and is not a regular file is written through, never
// replaced: a rename over a symbolic link or a device put a plain file there
// (`playground --out /dev/full` replaced the system's /dev/full).
func TestAnOutputThatIsALinkOrADeviceIsWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "target.json")
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "link.json")
	if err := os.Symlink(target, link); err != nil {
		t.Skip(err)
	}
	if err := writeFileAtomic(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Lstat(link); st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced by a %v", st.Mode())
	}
	if b, _ := os.ReadFile(target); string(b) != "new" {
		t.Errorf("the link's target holds %q, want new", b)
	}
	if _, err := os.Stat("/dev/null"); err == nil {
		null := filepath.Join(dir, "null")
		os.Symlink("/dev/null", null)
		if code, _, errs := locksim(t, "check", "2pc", "--max-faults", "0", "--certificate", null); code != exitOK {
			t.Errorf("a certificate into /dev/null: exit %d %s", code, errs)
		}
		if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&os.ModeDevice == 0 {
			t.Fatalf("/dev/null is no longer a device: %v %v", st.Mode(), err)
		}
	}
}

// The --out folder's name reaches the found scenario's comments as one shell
// word: a newline in it added a line to the scenario.
func TestAnOutFolderAddsNoLineToTheFoundFile(t *testing.T) {
	out := filepath.Join(t.TempDir(), "inj\nnode r9 redis\n#\x1b[2J")
	code, stdout, errs := locksim(t, "explore", "redlock", "--faults", "restart-empty", "--budget", "30s", "--out", out)
	if code != exitFail {
		t.Fatalf("explore: exit %d: %s", code, errs)
	}
	noControl(t, "explore", stdout+errs)
	entries, _ := os.ReadDir(out) // not Glob: the folder's name holds a '['
	if len(entries) != 1 {
		t.Fatalf("found files %v", entries)
	}
	files := []string{filepath.Join(out, entries[0].Name())}
	found, _ := os.ReadFile(files[0])
	for _, l := range strings.Split(string(found), "\n") {
		if strings.HasPrefix(l, "node r9") {
			t.Errorf("the folder's name added a line: %q", l)
		}
	}
	if code, out, errs := locksim(t, "run", files[0]); code != exitOK || !strings.Contains(out, "ok    expect verdict UNSAFE") {
		t.Errorf("the found file does not replay: exit %d %s", code, errs)
	}
}

// explore and check say why a target cannot be read, as run does; a flag
// with an escape sequence is quoted; a certificate is read with the limits of
// a scenario file.
func TestExploreAndCheckSayWhyATargetCannotBeRead(t *testing.T) {
	dir := t.TempDir()
	loop := filepath.Join(dir, "loop.scn")
	os.Symlink("loop.scn", loop)
	for _, args := range [][]string{{"explore", loop}, {"check", loop}} {
		code, out, errs := locksim(t, args...)
		if code != exitUsage || !strings.Contains(errs, "is a symbolic link that leads back to itself") {
			t.Errorf("%v: exit %d %s%s", args, code, out, errs)
		}
	}
	for _, args := range [][]string{{"run", "--\x1b[2J"}, {"explore", "no\x1b[2Jx"}, {"check", "no\x1b[2Jx"}} {
		code, out, errs := locksim(t, args...)
		if code != exitUsage {
			t.Errorf("%q: exit %d", args, code)
		}
		noControl(t, strings.Join(args, " "), out+errs)
	}
	if _, err := os.Stat("/dev/zero"); err == nil {
		code, _, errs := locksim(t, "check", "2pc", "--max-faults", "0", "--compare-certificate", "/dev/zero")
		if code != exitUsage || !strings.Contains(errs, "does not end within 4MB") {
			t.Errorf("--compare-certificate /dev/zero: exit %d %s", code, errs)
		}
	}
}
