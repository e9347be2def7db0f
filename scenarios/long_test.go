package scenarios

import "github.com/locksim/locksim/sim/simtest"

// long reports whether the long form of the tests is asked for: -tags long
// (README, "Tests, benchmarks and longer runs"). The default run keeps enough
// of each to fail on the bug it guards; the long form checks every case.
func long() bool { return simtest.Long() }
