package scenarios

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Hostile input (issue 15: 86 hand-made bad inputs, a parser fuzzed for five
// minutes): every input a student or a fuzzer can write either parses or gives
// an error with its position and a hint, and nothing it says reaches a terminal
// as anything but text.

// Every duration has a maximum, checked where it is written: 1000h for any
// duration, the run's time limit for at and run until=.
func TestDurationsHaveAMaximum(t *testing.T) {
	for _, tc := range []parseCase{
		{base + "network jitter=9223372036854775807ns\n", "t.scn:5:9: jitter=9223372036854775807ns is longer than 1000h", "at most 1000h"},
		{base + "network reorder=0.5 reorder-delay=1001h\n", "t.scn:5:21: reorder-delay=1001h is longer than 1000h", ""},
		{base + "network delay=2500000h jitter=1000000h\n", "t.scn:5:9: delay=2500000h is longer than 1000h", ""},
		{base + "at 1s link c1 r1 delay=1s extra-delay=1000000h\n", "t.scn:5:27: extra-delay=1000000h is longer than 1000h", ""},
		{base + "at 1s pause c1 for=1001h\n", "t.scn:5:16: for=1001h is longer than 1000h", ""},
		{base + "when c1 acquired after=1001h then crash r1\n", "t.scn:5:18: \"1001h\" is longer than 1000h", ""},
		{base + "bound 2000h\n", "t.scn:5:7: \"2000h\" is longer than 1000h", ""},
		{base + "client c2 redis-lock server=r1 ttl=1001h\n", "t.scn:5:32: ttl=1001h is longer than 1000h", ""},
		{base + "at 1s clock-jump r1 +1001h\n", "t.scn:5:21: \"+1001h\" is not a clock jump", "1000h"},
		{base + "node r2 redis offset=-1001h\n", "t.scn:5:15: offset=-1001h is not a duration within 1000h", ""},
		{base + "at 2h c1 acquire L\n", "t.scn:5:4: at 7200.000s is after the run's time limit of 3600.000s", "limit time=7200.000s"},
		{base + "at 25h c1 acquire L\nlimit time=24h\n", "t.scn:5:4: at 90000.000s is after the run's time limit", "at most 24h"},
		{base + "run until=90m\n", "t.scn:5:5: run until=5400.000s is after the run's time limit of 3600.000s", "limit time="},
		{base + "at 2h c1 acquire L\nlimit time=3h\nrun until=2h30m\n", "", ""},
		{base + "at 1s link c1 r1 delay=1000h extra-delay=1000h\n", "", ""}, // the sum saturates in the kernel
	} {
		tc.check(t)
	}
}

// The declared limits must fit in the memory budget; `limit memory=` changes it.
func TestLimitsMustFitTheMemoryBudget(t *testing.T) {
	for _, tc := range []parseCase{
		{base + "limit events=100000000\n", "t.scn:5:7: limit events=100000000 cannot fit: the run needs at least 16GB, and its memory budget is 4GB", "lower limit events= to at most"},
		{base + "limit memory=1MB\n", "t.scn:5:7: limit memory=1MB cannot fit", "raise the budget with limit memory="},
		{base + "limit memory=lots\n", "t.scn:5:7: memory=lots is not a size from 1MB to 1TB", "memory=4GB"},
		{base + "limit memory=NaNGB\n", "t.scn:5:7: memory=NaNGB is not a size", ""},
		{base + "limit events=100000000 memory=20GB\n", "", ""},
		{base + "limit events=1000 queue=1000 memory=1.5MB\n", "", ""},
	} {
		tc.check(t)
	}
	s, err := Parse("t.scn", base+"limit memory=512MB\n")
	if err != nil || s.Limits.MaxMemory != 512_000_000 {
		t.Fatalf("memory=512MB: %v, budget %d", err, s.Limits.MaxMemory)
	}
}

// A script is plain text: a byte-order mark is skipped, any line ending ends a
// line, and a character that prints nothing is refused wherever it stands.
func TestAScriptIsPlainText(t *testing.T) {
	for _, tc := range []parseCase{
		{"\ufeff" + base + "at 1s c1 acquire L\n", "", ""},
		{strings.ReplaceAll(base+"at 1s c1 acquire L\n", "\n", "\r"), "", ""},
		{strings.ReplaceAll(base+"at 1s c1 acquire L\n", "\n", "\r\n"), "", ""},
		{base + "at 1s c1 acquire \"\x1b[2J\x1b]0;pwned\x07X\"\n", "t.scn:5:19: the character U+001B prints nothing", "plain text"},
		{base + "# a comment that clears the screen \x1b[2J\nat 1s c1 acquire L\n", "t.scn:5:36: the character U+001B prints nothing", ""},
		{"# Summary \u202egnp.exe\n" + base, "t.scn:1:11: the character U+202E prints nothing", ""},
		{base + "at 1s c1 acquire L\x00\n", "t.scn:5:19: the character U+0000 prints nothing", ""},
		{base + "at 1s c1 acquire \xff\n", "t.scn:5:18: the file is not UTF-8 text", "UTF-8"},
		{base + "at 1s c1 acquire L\t# tabs are blanks\n", "", ""},
		{"# Un verrou \u00e9crit en fran\u00e7ais \U0001F512.\n" + base, "", ""},
	} {
		tc.check(t)
	}
	s, err := Parse("t.scn", strings.ReplaceAll("# One.\n# Two.\n\n"+base+"# Narrated.\nat 1s c1 acquire L\n", "\n", "\r"))
	if err != nil || s.Teaching != "One. Two." || len(s.steps) != 1 || s.steps[0].action.Narration != "Narrated." || s.steps[0].action.Line != 9 {
		t.Fatalf("CR-only lines: %v; teaching %q, steps %+v", err, s.Teaching, s.steps)
	}
}

// Names of locks, transactions, rows, values, keys, services and metrics are
// letters, digits and - _ . : # / @, so every name prints as itself.
func TestNamesAreSafeToPrint(t *testing.T) {
	long := strings.Repeat("L", 65)
	for _, tc := range []parseCase{
		{base + "at 1s c1 acquire \"my lock\"\n", "t.scn:5:18: lock name \"my lock\" is not a name", "letters, digits"},
		{base + "at 1s c1 acquire " + long + "\n", "t.scn:5:18: lock name \"" + long + "\" is not a name", "1 to 64"},
		{base + "at 1s c1 release L;M\n", "t.scn:5:18: lock name \"L;M\" is not a name", ""},
		{base + "when c1 acquired L! then crash r1\n", "t.scn:5:18: lock name \"L!\" is not a name", ""},
		{base + "expect metric \"a b\" 1\n", "t.scn:5:15: metric name \"a b\" is not a name", ""},
		{base + "node r2 redis preload=k=\"v w\"\n", "t.scn:5:15: preload=k=v w is not a list of KEY=VALUE", ""},
		{base + "node r2 redis service=\"s t\"\n", "t.scn:5:15: service=s t is not a name", ""},
		{base + "node r2 redis service=\n", "t.scn:5:15: service= names no service", ""},
		{agreeBase + "client pr paxos-proposer acceptors=a1 value=\"A B\"\n", "t.scn:5:39: value=A B is not a name", ""},
		{agreeBase + "at 1s co begin \"T 1\"\n", "t.scn:5:16: transaction name \"T 1\" is not a name", ""},
		{base + "node " + strings.Repeat("r", 65) + " redis\n", "t.scn:5:6: process name", "up to 64"},
		{base + "at 1s c1 acquire orders/42:v@eu#1.x_y-z\n", "", ""},
		{base + "at 1s c1 acquire verrou-\u00e9\n", "", ""},
	} {
		tc.check(t)
	}
}

// Error messages quote at most 80 characters of the offending word, and list at
// most a few processes, however long the input.
func TestErrorsQuoteLittleOfALongInput(t *testing.T) {
	word := strings.Repeat("x", 1_000_000)
	many := base
	for i := range 10_000 {
		many += fmt.Sprintf("node n%d redis\n", i)
	}
	for _, src := range []string{
		base + word + "\n",
		base + "at 1s " + word + "\n",
		base + "at 1s c1 " + word + " L\n",
		base + "at " + word + " crash r1\n",
		base + "at 1s crash " + word + "\n",
		base + "network delay=" + word + "\n",
		base + "network " + word + "=1\n",
		base + "when c1 acquired " + word + "=1 then crash r1\n",
		base + "node r2 redis persistence=" + word + "\n",
		base + "client c2 redlock nodes=r1," + word + "\n",
		base + "expect metric acquisitions " + word + "\n",
		base + "expect " + word + " x\n",
		base + "at 1s partition r1 | \"" + strings.Repeat("a b ", 250_000) + "\"\n",
		many + "at 1s crash nobody\n",
	} {
		_, err := Parse("t.scn", src)
		var pe *Error
		if !errors.As(err, &pe) {
			t.Fatalf("%.60q...: %v, want a positioned error", lastLine(src), err)
		}
		if len(err.Error()) > 400 {
			t.Errorf("%.60q...: a %d-byte error:\n%.600s", lastLine(src), len(err.Error()), err)
		}
	}
}

// Small fixes: numbers in expectations are numbers, a link joins two processes
// wherever it is written, and a list's hint names the processes that would fit.
func TestSmallMistakesGetTheRightError(t *testing.T) {
	for _, tc := range []parseCase{
		{base + "expect metric acquisitions NaN\n", "t.scn:5:28: \"NaN\" is not a number", ""},
		{base + "expect metric acquisitions -Inf\n", "t.scn:5:28: \"-Inf\" is not a number", ""},
		{base + "expect metric acquisitions infinity\n", "t.scn:5:28: \"infinity\" is not a number", ""},
		{base + "link c1 c1 delay=5ms\n", "t.scn:5:9: a link joins two processes", "two different"},
		{base + "link c1 -> c1 delay=5ms\n", "t.scn:5:12: a link joins two processes", ""},
		{base + "client c2 redlock nodes=\n", "t.scn:5:19: nodes= names no redis process", "declared redis processes: r1"},
		{base + "client c2 redlock nodes=r1,,r1\n", "t.scn:5:19: nodes=r1,,r1 leaves out a name", "r1"},
		{base + "client c2 redlock nodes=r9\n", "t.scn:5:19: unknown process \"r9\"", "did you mean r1? declared redis processes: r1"},
		{base + "client c2 redlock nodes=c1\n", "t.scn:5:19: nodes=c1: c1 is not a redis process", "node NAME redis"},
		{"# t\nclient c1 redlock nodes=\n", "t.scn:2:19: nodes= names no redis process", "declare one with: node NAME redis"},
	} {
		tc.check(t)
	}
}

// The loader reads files, refuses what is not one, and bounds what it reads.
func TestLoadRefusesWhatIsNotAScenarioFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, src string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	if s, err := Load(write("bom.scn", "\ufeff"+base)); err != nil || len(s.procs) != 2 {
		t.Errorf("a file with a byte-order mark: %v", err)
	}
	for _, tc := range []struct{ arg, want string }{
		{dir, "is a directory, not a scenario file"},
		{write("big.scn", strings.Repeat("# x\n", MaxSourceBytes/4+1)), "a scenario file may have at most 4MB"},
		{"/dev/zero", "does not end within 4MB: it is not a regular file"},
		{strings.Repeat("z", 500), "the path zzzzzzzz"}, // ENAMETOOLONG: no such file could exist
		{strings.Repeat("z", 200), "no scenario \"zzzzzzzz"},
	} {
		if tc.arg == "/dev/zero" {
			if _, err := os.Stat(tc.arg); err != nil {
				continue
			}
		}
		_, err := Load(tc.arg)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "hint:") || len(err.Error()) > 400 {
			t.Errorf("Load(%.40s): %v, want %q and a hint", tc.arg, err, tc.want)
		}
	}
}
