package cli

import (
	"strings"
	"testing"
)

// What if, from the command line (issue 28): --with adds lines to a scenario,
// drops its expect lines, reports the verdict and exits 0 unless the input is
// bad; an error in a --with line points at its column; --vs pair shows the
// original beside it.
func TestRunWithAddsAWhatIf(t *testing.T) {
	code, out, errs := locksim(t, "run", "redlock-happy", "--with", "at 1s pause c1 for=15s")
	if code != exitOK || !strings.Contains(out, "Verdict: ") || strings.Contains(out, "Expectations:") {
		t.Fatalf("exit %d (want 0, the verdict, no expectations): %s\n%s", code, errs, out)
	}
	if !strings.Contains(out, `Reproduce: locksim run redlock-happy --with 'at 1s pause c1 for=15s' --seed 1`) {
		t.Errorf("the reproduce line does not name the added line:\n%s", out)
	}
	code, _, errs = locksim(t, "run", "redlock-happy", "--with", "at 1s pause c9 for=15s")
	if code != exitUsage || !strings.Contains(errs, `--with "at 1s pause c9 for=15s":1:13:`) {
		t.Errorf("a bad --with line: exit %d, %q; want exit 2 at its column 13", code, errs)
	}
	code, out, _ = locksim(t, "run", "redlock-clock-jump", "--with", "at 2.2s pause c1 for=15s", "--vs", "pair")
	if code != exitOK || !strings.Contains(out, "Compare: A redlock-clock-jump + at 2.2s pause c1 for=15s (seed 1) with B redlock-clock-jump (seed 1)") {
		t.Errorf("--with --vs pair: exit %d\n%s", code, out)
	}
}
