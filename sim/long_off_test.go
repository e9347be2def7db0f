//go:build !long

package sim

// longTests: the tests were built without -tags long.
const longTests = false
