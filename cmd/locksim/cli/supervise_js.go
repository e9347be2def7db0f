package cli

// In the browser there are no child processes: the command line runs in the
// page's process, as it does in tests.
func supervise() (int, bool) { return 0, false }

func reportExit(int) {}
