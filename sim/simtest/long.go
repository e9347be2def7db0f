package simtest

import "testing"

// Long reports whether the long property runs were asked for, by building the
// tests with the tag long (`go test -tags long ./...`). A build tag, not an
// environment variable: sim/ reads nothing from its environment, test
// support included (the determinism contract), and how many cases a test
// tries changes no run's outcome, only how many runs.
func Long() bool { return long }

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
