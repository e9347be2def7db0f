package scenarios

import "os"

// long reports whether the long form of the tests is asked for: LOCKSIM_LONG=1
// (README, "Long runs"). The default run keeps enough of each to fail on the
// bug it guards; the long form checks every case, and takes minutes.
func long() bool { return os.Getenv("LOCKSIM_LONG") != "" }
