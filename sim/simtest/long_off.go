//go:build !long

package simtest

// long: the tests were built without -tags long (Long).
const long = false
