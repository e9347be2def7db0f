package tui

import (
	"os"

	"github.com/charmbracelet/x/term"
)

// TerminalWidth is the width in columns of the terminal f is, or 0 when f is not
// a terminal (a pipe, a file, CI).
func TerminalWidth(f *os.File) int {
	if !IsTerminal(f) {
		return 0
	}
	w, _, err := term.GetSize(f.Fd())
	if err != nil {
		return 0
	}
	return w
}
