package proptest_test

import (
	"slices"
	"testing"

	"github.com/locksim/locksim/scenarios/proptest"
	"github.com/locksim/locksim/sim/fault"
)

// Issue 31, item 10b, as a property: with the data in the lock's own
// transaction (resource data in=db), no pause of either worker, at any point
// and of any size on the menu, lets a stale write take effect (PostgreSQL's
// idle_in_transaction_session_timeout ends the stopped holder's session and
// rolls its writes back; Kleppmann 2016: the store itself refuses the stale
// holder). The same workload over a store of its own breaks under one pause.
func TestDataInTheLocksTransactionSurvivesEveryPause(t *testing.T) {
	res := proptest.Exhaustive(t, proptest.Config{Template: "testdata/db-data-in-txn.scn",
		Faults: []fault.Kind{fault.Pause}, Invariants: []string{"resource-safe"}, Dir: t.TempDir()})
	if res.Schedules() < 100 {
		t.Errorf("only %d schedules checked", res.Schedules())
	}
	f := proptest.Find(t, proptest.Config{Template: "testdata/db-data-separate.scn",
		Faults: []fault.Kind{fault.Pause}, Invariants: []string{"resource-safe"}, Dir: t.TempDir()})
	if !slices.Contains(f.Broken, "resource-safe") || len(f.Schedule) != 1 {
		t.Errorf("over a separate store: found %v by %v, want resource-safe by one pause", f.Broken, f.Schedule)
	}
}
