package simtest

import (
	"os"
	"testing"
)

// Long reports whether LOCKSIM_LONG=1 asks for the long property runs. It is
// the one place under sim/ that reads the environment (layers_test.go allows
// this file "os"): simtest is test support, never part of a run, and how
// many cases a test tries changes no run's outcome, only how many runs.
func Long() bool { return os.Getenv(EnvLong) == "1" }

// Sample is xs whole, or under -short (the race detector's run, ten times
// slower) a sample that still covers each group: the first item of every group
// (a protocol) and every sixth item. A sweep over the catalogue finds no more
// races for sweeping all of it; the default run sweeps all of it.
func Sample[T any](xs []T, group func(T) string) []T {
	if !testing.Short() {
		return xs
	}
	var out []T
	seen := map[string]bool{}
	for i, x := range xs {
		if g := group(x); !seen[g] || i%6 == 0 {
			seen[g] = true
			out = append(out, x)
		}
	}
	return out
}
