package scenarios

import (
	"sync"
	"testing"

	"github.com/locksim/locksim/sim/simtest"
)

// catalogue is every catalogue scenario, parsed, for the tests that go through
// them all.
func catalogue(t testing.TB) []*Scenario {
	t.Helper()
	cat, err := Catalogue()
	if err != nil {
		t.Fatal(err)
	}
	if len(cat) == 0 {
		t.Fatal("the catalogue is empty")
	}
	return simtest.Sample(cat, func(s *Scenario) string { return s.Protocol })
}

// ranCatalogue is the catalogue run once for the whole package, with
// snapshots, at each scenario's own seed: the tests that judge a run (its
// golden, its JSON, its walk, its hash) share it instead of each running the
// catalogue again (issue 32). Results are only read.
var ranCatalogue struct {
	once sync.Once
	runs []*Result
	err  error
}

// catalogueRuns is every catalogue scenario's run, in catalogue order; under
// -short (the race run), a sample that covers every protocol (simtest.Sample).
func catalogueRuns(t testing.TB) []*Result {
	return simtest.Sample(allCatalogueRuns(t), func(r *Result) string { return r.Scenario.Protocol })
}

// allCatalogueRuns is every catalogue scenario's run, even under -short: for
// the tests whose claim is about the whole catalogue.
func allCatalogueRuns(t testing.TB) []*Result {
	t.Helper()
	ranCatalogue.once.Do(func() {
		cat, err := Catalogue()
		if err != nil {
			ranCatalogue.err = err
			return
		}
		for _, s := range cat {
			ranCatalogue.runs = append(ranCatalogue.runs, Run(s, RunOptions{Snapshots: true}))
		}
	})
	if ranCatalogue.err != nil {
		t.Fatal(ranCatalogue.err)
	}
	if len(ranCatalogue.runs) == 0 {
		t.Fatal("the catalogue is empty")
	}
	return ranCatalogue.runs
}

// catalogueRun is one catalogue scenario's shared run, by id.
func catalogueRun(t testing.TB, id string) *Result {
	t.Helper()
	for _, r := range catalogueRuns(t) {
		if r.Scenario.ID == id {
			return r
		}
	}
	s, err := Load(id) // outside the -short sample
	if err != nil {
		t.Fatal(err)
	}
	return Run(s, RunOptions{Snapshots: true})
}
