package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Common is what every component shares: the styles and the keys. Sizes are
// each component's own (SetSize).
type Common struct {
	Styles Styles
	Keys   KeyMap
}

// MinWidth and MinHeight are the smallest screen the UI draws on; below them it
// says so instead of drawing garbage.
const (
	MinWidth  = 40
	MinHeight = 8
)

func tooSmall(w, h int) bool { return w < MinWidth || h < MinHeight }

func tooSmallView(w, h int) string {
	msg := "terminal too small: locksim needs 40x8"
	if w < len(msg) {
		msg = "too small"
	}
	return box([]string{ansi.Truncate(msg, max(w, 0), "")}, max(w, 0), min(max(h, 0), 1))
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

// box pads (or cuts) lines to exactly w x h.
func box(lines []string, w, h int) string {
	out := make([]string, max(h, 0))
	for i := range out {
		l := ""
		if i < len(lines) {
			l = lines[i]
		}
		out[i] = fit(l, w)
	}
	return strings.Join(out, "\n")
}

// wrapLines breaks text into lines of at most width cells, at spaces where it
// can; the lines after a paragraph's first start with indent.
func wrapLines(text string, width int, indent string) []string {
	if width <= 0 {
		return nil
	}
	wrap := func(s string, w int) []string {
		return strings.Split(ansi.Hardwrap(ansi.Wordwrap(s, w, ""), w, true), "\n")
	}
	var out []string
	for _, para := range strings.Split(text, "\n") {
		lines := wrap(para, width)
		if n := ansi.StringWidth(indent); n > 0 && len(lines) > 1 && width > n+10 {
			rest := wrap(strings.Join(lines[1:], " "), width-n)
			lines = lines[:1]
			for _, l := range rest {
				lines = append(lines, indent+l)
			}
		}
		out = append(out, lines...)
	}
	return out
}

// scrollTop is the first row to draw so that the cursor stays on screen, with a
// few rows of what comes next in view. When revealing, nothing below the cursor
// is drawn, so the cursor's row is the last line and the screen above it is
// full of the rows that led to it, wherever the cursor came from: a view that
// folds rows (quiet, hidden processes) moves the cursor's row up, and a top kept
// from before would leave it alone at the top of an empty grid.
func scrollTop(top, cursor, rows, n int, reveal bool) int {
	if rows <= 0 {
		return top
	}
	if reveal {
		return max(cursor-rows+1, 0)
	}
	margin := min(3, rows/4)
	if cursor < top+margin {
		top = cursor - margin
	}
	if cursor >= top+rows-margin {
		top = cursor - rows + 1 + margin
	}
	return max(min(top, n-rows), 0)
}
