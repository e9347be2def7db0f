package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Common is what every component shares: the screen size, styles and keys.
type Common struct {
	Width, Height int
	Styles        Styles
	Keys          KeyMap
}

// MinWidth and MinHeight are the smallest screen the UI draws on; below them it
// says so instead of drawing garbage.
const (
	MinWidth  = 40
	MinHeight = 8
)

func (c *Common) tooSmall() bool { return c.Width < MinWidth || c.Height < MinHeight }

func tooSmallView(c *Common) string {
	msg := "terminal too small: locksim needs 40x8"
	if c.Width < len(msg) {
		msg = "too small"
	}
	return ansi.Truncate(msg, max(c.Width, 0), "")
}

// fit cuts s to width cells (ANSI-aware) and pads it to exactly width.
func fit(s string, width int) string {
	if width <= 0 {
		return ""
	}
	s = ansi.Truncate(s, width, "…")
	if w := ansi.StringWidth(s); w < width {
		s += strings.Repeat(" ", width-w)
	}
	return s
}

// wrapLines breaks text into lines of at most width cells.
func wrapLines(text string, width int) []string {
	if width <= 0 {
		return nil
	}
	var out []string
	for _, para := range strings.Split(text, "\n") {
		w := ansi.Wordwrap(para, width, "")
		out = append(out, strings.Split(ansi.Hardwrap(w, width, true), "\n")...)
	}
	return out
}
