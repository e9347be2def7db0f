package export_test

import (
	"os"
	"runtime"
	"slices"
	"sync"
	"testing"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim/simtest"
)

// The package's tests share one parse of the catalogue and one run of each
// scenario (issue 32: five tests each ran the whole catalogue, and each
// catalogue pair's control was found by parsing all 109 files again). Runs are
// deterministic and the exports only read them, so a shared run is the run
// each test used to make for itself, and the tests that share them run in
// parallel. A run with snapshots (the goldens', as the UI makes them) and one
// without (the catalogue-wide checks') are kept apart: each test draws exactly
// what it drew before.
var (
	catOnce sync.Once
	catList []*scenarios.Scenario
	catErr  error

	runsMu sync.Mutex
	runs   = map[runKey]*sharedRun{}

	catRunsOnce sync.Once
)

type runKey struct {
	id        string
	snapshots bool
}

type sharedRun struct {
	once sync.Once
	res  *scenarios.Result
	err  error
}

// catalogue is the embedded catalogue, parsed once; each caller gets its own
// slice.
func catalogue(t testing.TB) []*scenarios.Scenario {
	t.Helper()
	catOnce.Do(func() { catList, catErr = scenarios.Catalogue() })
	if catErr != nil {
		t.Fatal(catErr)
	}
	return simtest.Sample(slices.Clone(catList), func(s *scenarios.Scenario) string { return s.Protocol })
}

func sharedResult(id string, snapshots bool) (*scenarios.Result, error) {
	k := runKey{id, snapshots}
	runsMu.Lock()
	r := runs[k]
	if r == nil {
		r = &sharedRun{}
		runs[k] = r
	}
	runsMu.Unlock()
	r.once.Do(func() {
		catOnce.Do(func() { catList, catErr = scenarios.Catalogue() })
		var s *scenarios.Scenario
		for _, sc := range catList {
			if sc.ID == id {
				s = sc
			}
		}
		if s == nil {
			if s, r.err = scenarios.Load(id); r.err != nil {
				return
			}
		}
		r.res = scenarios.Run(s, scenarios.RunOptions{Snapshots: snapshots})
	})
	return r.res, r.err
}

// catRun is catalogue scenario id's run without snapshots, made once.
func catRun(t testing.TB, id string) *scenarios.Result {
	t.Helper()
	res, err := sharedResult(id, false)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// catalogueRuns is every catalogue scenario with its run (no snapshots), in
// the catalogue's order; the runs are made on every core, once.
func catalogueRuns(t testing.TB) ([]*scenarios.Scenario, []*scenarios.Result) {
	t.Helper()
	cat := catalogue(t)
	catRunsOnce.Do(func() {
		var wg sync.WaitGroup
		work := make(chan string)
		for range runtime.GOMAXPROCS(0) {
			wg.Go(func() {
				for id := range work {
					sharedResult(id, false) // an error is reported below, on the test's goroutine
				}
			})
		}
		for _, s := range cat {
			work <- s.ID
		}
		close(work)
		wg.Wait()
	})
	res := make([]*scenarios.Result, len(cat))
	for i, s := range cat {
		res[i] = catRun(t, s.ID)
	}
	return cat, res
}

// long reports whether the long forms run (LOCKSIM_LONG=1), and logs which
// form this test runs.
func long(t *testing.T, short, full string) bool {
	t.Helper()
	if os.Getenv("LOCKSIM_LONG") == "" {
		t.Logf("short form: %s (LOCKSIM_LONG=1 runs %s)", short, full)
		return false
	}
	t.Logf("long form (LOCKSIM_LONG=1): %s", full)
	return true
}
