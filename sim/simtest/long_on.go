//go:build long

package simtest

// long: the tests were built with -tags long (Long).
const long = true
