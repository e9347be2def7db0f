package export_test

import (
	"testing"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/tui/internal/fixture"
)

// The package's tests share one parse of the catalogue and one run of each
// scenario (tui/internal/fixture, shared with tui's tests). A run with
// snapshots (the goldens', as the UI makes them) and one without (the
// catalogue-wide checks') are kept apart: each test draws exactly what it drew
// before.

// catRun is catalogue scenario id's run without snapshots, made once.
func catRun(t testing.TB, id string) *scenarios.Result { return fixture.Run(t, id, false) }

// catalogueRuns is every catalogue scenario with its run (no snapshots), in
// the catalogue's order; under -short, a sample that covers every protocol.
func catalogueRuns(t testing.TB) ([]*scenarios.Scenario, []*scenarios.Result) {
	return fixture.Sweep(t, false)
}

// long reports whether the long forms run (-tags long), and logs which
// form this test runs.
func long(t *testing.T, short, full string) bool { t.Helper(); return fixture.Long(t, short, full) }
