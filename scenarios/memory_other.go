//go:build !linux

package scenarios

// machineMemory is 0, unknown, where /proc/meminfo does not say it: no
// warning is given.
func machineMemory() int64 { return 0 }
