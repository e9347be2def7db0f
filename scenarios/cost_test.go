package scenarios

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/locksim/locksim/sim/check"
)

// Small inputs cost little (issue 32, item 4: a reliability review found files
// of a few hundred kilobytes that kept a CPU busy for minutes). Cost is
// measured by what can be counted where possible (bytes allocated, which the
// runtime counts exactly); the one CPU-bound case has a deadline hundreds of
// times longer than it needs, so it fails on a cubic checker, never by chance.

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A bad list argument costs one error, whatever its length: the parser stops
// at the first bad name and quotes little of the line. It used to rebuild the
// message from the whole line for every entry: 80,000 commas took 48 s.
func TestABadListCostsOneError(t *testing.T) {
	for _, tc := range []struct{ name, line, want string }{
		{"empty names", "client c9 redlock nodes=r1" + strings.Repeat(",", 80_000), "leaves out a name"},
		{"one name many times", "client c9 redlock nodes=" + strings.TrimSuffix(strings.Repeat("r1,", 80_000), ","), "names r1 twice"},
		{"an ensemble of commas", "node z1 zookeeper ensemble=z1" + strings.Repeat(",", 80_000), "leaves out a name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := "protocol redlock\nnode r1 redis\n" + tc.line + "\n"
			var err error
			bytes := allocated(func() { _, err = Parse("t.scn", src) })
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.HasPrefix(err.Error(), "t.scn:3:") {
				t.Fatalf("got %v, want t.scn:3:...%s", err, tc.want)
			}
			if len(err.Error()) > 400 {
				t.Errorf("the error quotes %d bytes of the line", len(err.Error()))
			}
			// Linear: the line is split once (a string header per entry); the
			// quadratic parser allocated about 25 GB here.
			if limit := uint64(len(src)) * 100; bytes > limit {
				t.Errorf("parsing a %d-byte line allocated %d bytes, more than %d", len(src), bytes, limit)
			}
		})
	}
}

// short reads no more of a word than it shows.
func TestShortQuotesTheStartOfAWord(t *testing.T) {
	long := strings.Repeat("é", 1_000_000)
	if got := short(long); got != strings.Repeat("é", maxQuoted-1)+"…" {
		t.Errorf("short of a long word: %q", got)
	}
	// The old short converted the whole word to runes: 8 MB here. The bound
	// leaves room for whatever else the runtime allocates meanwhile (the
	// count is the process's), far below that.
	if bytes := allocated(func() { short(long) }); bytes > 256<<10 {
		t.Errorf("short of a 2 MB word allocated %d bytes", bytes)
	}
	for _, s := range []string{"", "r1", strings.Repeat("x", maxQuoted), strings.Repeat("é", maxQuoted)} {
		if short(s) != s {
			t.Errorf("short(%q) = %q, want it whole", s, short(s))
		}
	}
	if got := short(strings.Repeat("x", maxQuoted+1)); got != strings.Repeat("x", maxQuoted-1)+"…" {
		t.Errorf("short of %d characters: %q", maxQuoted+1, got)
	}
}

// 8,000 clients asking for one lock at one instant are checked in linear time:
// the progress checker and the wait metrics used to walk every trying client on
// every observation (4,000 clients took 32 s, 8,000 took 200 s; now about a
// quarter of a second). The deadline is a hang detector, 240 times the time
// the run needs on the project's 2-core machine.
func TestManyClientsAskingAtOneInstant(t *testing.T) {
	const n = 8000
	var b strings.Builder
	b.WriteString("protocol redis\nnode r1 redis\n")
	for i := range n {
		fmt.Fprintf(&b, "client c%d redis-lock server=r1\n", i)
	}
	for i := range n {
		fmt.Fprintf(&b, "at 0s c%d acquire L ttl=10s\n", i)
	}
	b.WriteString("run until=15s\n")
	s, err := Parse("many.scn", b.String())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := make(chan *Result, 1)
	go func() { done <- Run(s, RunOptions{}) }()
	select {
	case r := <-done:
		if got := r.Report.Verdict; got != check.SAFE {
			t.Errorf("one grant among %d clients: verdict %s, want SAFE", n, got)
		}
	case <-ctx.Done():
		t.Fatalf("checking %d clients asking at once did not finish in 60 s", n)
	}
}

// Why a file cannot be read, in words a person can act on.
func TestAnUnreadableFileSaysWhy(t *testing.T) {
	dir := t.TempDir()
	loop := filepath.Join(dir, "loop.scn")
	if err := os.Symlink("loop.scn", loop); err != nil {
		t.Skipf("symlink: %v", err)
	}
	if _, err := Load(loop); err == nil || !strings.Contains(err.Error(), "is a symbolic link that leads back to itself") {
		t.Errorf("a symlink loop: %v", err)
	}
	file := filepath.Join(dir, "file.scn")
	os.WriteFile(file, nil, 0o644)
	if _, err := Load(filepath.Join(file, "x.scn")); err == nil || !strings.Contains(err.Error(), "a folder in this path is a file") {
		t.Errorf("a path through a file: %v", err)
	}
	// Permission denied, whoever runs the test (root reads any file).
	err := fileError("secret.scn", &fs.PathError{Op: "open", Path: "secret.scn", Err: syscall.EACCES})
	if !strings.Contains(err.Error(), "secret.scn: permission denied") || !strings.Contains(err.Error(), "hint: check its permissions") {
		t.Errorf("permission denied: %v", err)
	}
}

// A memory budget above the machine's memory is warned about, at its column.
func TestAMemoryBudgetAboveTheMachinesIsWarnedAbout(t *testing.T) {
	m := machineMemory()
	if m == 0 || m >= 1_000_000_000_000 {
		t.Skipf("this machine's memory is unknown or above 1TB: %d", m)
	}
	s, err := Parse("t.scn", base+"limit memory=1TB\n")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, w := range s.Warnings {
		got = append(got, w.String())
	}
	if !slices.ContainsFunc(got, func(w string) bool {
		return strings.HasPrefix(w, "t.scn:5:7: warning: limit memory=1TB is more than this machine's memory")
	}) {
		t.Errorf("warnings: %q", got)
	}
	if s, _ := Parse("t.scn", base+"limit memory=1GB\n"); m > 1_000_000_000 && slices.ContainsFunc(s.Warnings, func(w Warning) bool { return strings.Contains(w.Msg, "memory") }) {
		t.Errorf("1GB on a machine with %d bytes: %v", m, s.Warnings)
	}
}
