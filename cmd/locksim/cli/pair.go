package cli

import (
	"fmt"

	"github.com/locksim/locksim/scenarios"
)

// loadPair loads a scenario and, when vs is set, the one to compare it with
// ("-" or "pair": the scenario's own compare-with).
func loadPair(arg, vs string) (*scenarios.Scenario, *scenarios.Scenario, error) {
	a, err := app.load(arg)
	if err != nil {
		return nil, nil, usageError{err}
	}
	if vs == "" {
		return a, nil, nil
	}
	var b *scenarios.Scenario
	if vs == "pair" {
		b, err = a.Control()
	} else {
		b, err = app.load(vs)
		if err != nil && didYouMean(vs, []string{"pair"}) != "" {
			err = fmt.Errorf("--vs %q: neither a scenario nor pair (did you mean pair? --vs pair compares with %s's own compare-with)", vs, a.ID)
		}
	}
	if err != nil {
		return nil, nil, usageError{err}
	}
	return a, b, nil
}
