//go:build long

package sim

// longTests: the tests were built with -tags long, the long runs (README).
const longTests = true
