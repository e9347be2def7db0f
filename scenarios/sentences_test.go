package scenarios

import (
	"strings"
	"testing"
)

// Violation sentences say what happened, naming the right actor: a student reads
// them in `locksim run` and the TUI.

// A lease row on client time (lostinsoba, "Distributed locks: SQL") expires by the
// clock of the client that takes it over, not the database's.
func TestSentenceNamesTheClockThatExpiredTheLease(t *testing.T) {
	s, err := Load("db-lease-client-clock")
	if err != nil {
		t.Fatal(err)
	}
	r, _ := Run(s, RunOptions{}).Report.Result("grant-exclusive")
	if len(r.Violations) == 0 {
		t.Fatal("grant-exclusive holds; the catalogue says it is violated")
	}
	if d := r.Violations[0].Detail; !strings.Contains(d, "expired by c2's clock") {
		t.Errorf("the sentence should say the grant expired by c2's clock: %s", d)
	}
}
