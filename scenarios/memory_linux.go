//go:build linux

package scenarios

import (
	"bufio"
	"os"
	"strconv"
	"strings"
)

// machineMemory is the machine's memory in bytes (MemTotal in /proc/meminfo),
// or 0 when it cannot be read.
func machineMemory() int64 {
	f, err := os.Open("/proc/meminfo")
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if kb, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(kb), "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return n * 1024
		}
	}
	return 0
}
