//go:build js

package cli

import (
	"io"
	"os"
)

// In the browser (GOOS=js, the playground's engine) there is no terminal and
// no Bubble Tea: every other command is the same code as on a terminal.

var terminal = func() bool { return false }

func isTerminal(*os.File) bool   { return false }
func terminalWidth(*os.File) int { return 0 }

func browse() error {
	return usagef("the terminal UI is not in the browser's build: the playground shows the run")
}

func cmdTUI(args []string, stdout, stderr io.Writer) error { return browse() }

// The playground is written by locksim on a machine, not by the engine inside it.
func cmdPlayground(args []string, stdout, stderr io.Writer) error {
	return usagef("the playground is written by locksim itself: locksim playground --out FILE")
}
