package simtest

import (
	"strconv"
	"strings"
)

// FirstDiff shows the first line where got differs from want, for a golden
// file's failure message.
func FirstDiff(want, got string) string {
	wl, gl := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := 0; i < len(wl) || i < len(gl); i++ {
		var w, g string
		if i < len(wl) {
			w = wl[i]
		}
		if i < len(gl) {
			g = gl[i]
		}
		if w != g {
			return "line " + strconv.Itoa(i+1) + ":\n  want: " + cut(w) + "\n  got:  " + cut(g)
		}
	}
	return "(none)"
}

// cut keeps a long line (an SVG's) readable in a failure message.
func cut(s string) string {
	if len(s) > 300 {
		return s[:300] + "..."
	}
	return s
}
