package simtest

import (
	"fmt"
	"testing"

	"pgregory.net/rapid"
)

// Check runs a property that must hold over rounds of rapid checks: each round
// is rapid's -rapid.checks cases (100 by default; rapid itself runs a fifth of
// them under -short). Rounds are subtests, so a failure names its round and
// rapid's seed replays it.
func Check(t *testing.T, rounds int, prop func(*rapid.T)) {
	t.Helper()
	if rounds <= 1 {
		rapid.Check(t, prop)
		return
	}
	for i := range rounds {
		t.Run(fmt.Sprintf("round%d", i), func(t *testing.T) { rapid.Check(t, prop) })
	}
}
