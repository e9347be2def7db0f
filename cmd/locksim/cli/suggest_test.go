package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every flag value the command line refuses says what it may have meant (issue
// 28), as the scenario language does for its words.
func TestEveryRefusedFlagValueSaysWhatItMayHaveMeant(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "redlock-clock-jump", "--vs", "pari"}, "did you mean pair?"},
		{[]string{"run", "redlock-clock-jump", "--format", "jsn"}, "did you mean json?"},
		{[]string{"run", "redlok-clock-jump"}, "did you mean redlock-clock-jump?"},
		{[]string{"run", "redlock-clock-jump", "--by", "tiem"}, "did you mean time?"},
		{[]string{"explore", "redlok"}, "did you mean redlock?"},
		{[]string{"explore", "3pc", "--faults", "crash,pauze"}, "did you mean pause?"},
		{[]string{"explore", "3pc", "--invariants", "mutex-belif"}, "did you mean mutex-belief?"},
		{[]string{"check", "3pc", "--points", "event"}, "did you mean events?"},
		{[]string{"check", "3pc", "--menu", "pauze=1s"}, "did you mean pause?"},
		{[]string{"check", "3pc", "--envelope", "pauze:p1"}, "did you mean pause?"},
		{[]string{"check", "3pc", "--format", "jsno"}, "did you mean json?"},
	} {
		code, _, errs := locksim(t, tc.args...)
		if code != exitUsage || !strings.Contains(errs, tc.want) {
			t.Errorf("%v: exit %d, stderr %q: want exit 2 and %q", tc.args, code, errs, tc.want)
		}
	}
}

// An argument a kind requires, misspelt on the line, is named with the column
// of the misspelling ("client c1 redis-lock sever=r1").
func TestAMisspeltRequiredArgumentIsPointedAt(t *testing.T) {
	f := filepath.Join(t.TempDir(), "t.scn")
	if err := os.WriteFile(f, []byte("protocol redis\nnode r1 redis\nclient c1 redis-lock sever=r1\nat 1s c1 acquire L\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errs := locksim(t, "run", f)
	if code != exitUsage || !strings.Contains(errs, ":3:22: client needs server=") || !strings.Contains(errs, "did you mean server=?") {
		t.Errorf("exit %d: %s", code, errs)
	}
}
