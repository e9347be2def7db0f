package simtest

import "os"

// Long reports whether LOCKSIM_LONG=1 asks for the long property runs. It is
// the one place under sim/ that reads the environment (layers_test.go allows
// this file "os"): simtest is test support, never part of a run, and how
// many cases a test tries changes no run's outcome, only how many runs.
func Long() bool { return os.Getenv(EnvLong) == "1" }
