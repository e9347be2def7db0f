package export

import "github.com/locksim/locksim/tui/layout"

// The colours of the drawing, on a white background: the terminal UI's light
// theme (tui/styles.go), so a slide and a screen look alike.
var (
	// barColours are the belief bars, one per client (the TUI's Bars).
	barColours = []string{"#005fd7", "#d75f00", "#008700", "#8700af", "#008787", "#af0087"}

	// kindColours colour every mark the drawing draws (TestEveryMarkHasAColour).
	kindColours = map[layout.CellKind]string{
		layout.CellCommand: "#005fd7", layout.CellDeliver: "#303030", layout.CellDrop: "#c00000",
		layout.CellTimer: "#777777", layout.CellBeliefStart: "#000000", layout.CellBeliefEnd: "#555555",
		layout.CellGrant: "#008700", layout.CellGrantEnd: "#875f00", layout.CellAccept: "#008700",
		layout.CellReject: "#c00000", layout.CellCrash: "#c00000", layout.CellShutdown: "#c00000",
		layout.CellRestart: "#008787", layout.CellPause: "#af8700", layout.CellResume: "#af8700",
		layout.CellClock: "#8700af", layout.CellCut: "#c00000", layout.CellViolation: "#c00000",
		layout.CellNote: colourNote, layout.CellVote: "#008787", layout.CellDecide: "#000000",
	}
)

const (
	colourViolation = "#c00000"
	colourBand      = "#ffe3e3" // behind a violation row
	colourNote      = "#005fd7" // a note's text, and the mark of a narrated row (the TUI's Marker)
	colourNoteBand  = "#e8f0ff" // behind a note's text
	colourDiffers   = "#af00af" // ≠, a row only one run has (the TUI's Differs)
	colourDiffBand  = "#f8e6f8" // behind it
	colourFolded    = "#999999" // quiet's tick (a shade darker than the TUI's Folded: a dot on white is small)
	colourMessage   = "#555555"
	colourLifeline  = "#c8c8c8"
	colourPaused    = "#ffe680"
	colourDown      = "#b0b0b0"
	// A service's promise: the grant's green (the TUI colours its │ like a
	// grant), outlined and pale inside, so that it never reads as a client's
	// solid belief bar (one of which is green too).
	colourPromise     = "#008700"
	colourPromiseFill = "#dcf2dc"
	colourTime        = "#666666"
)

// barColour is the bar colour of the client in column c of tl.
func barColour(tl *layout.Timeline, c int) string {
	return barColours[int(tl.Columns()[c].Proc)%len(barColours)]
}

// kindColour is the colour of a cell kind's mark.
func kindColour(k layout.CellKind) string {
	if c, ok := kindColours[k]; ok {
		return c
	}
	return "#303030"
}

// glyphs replace the layout's marks that common fonts lack (the timer's ⏲ and
// the pause's ⏸ are missing from DejaVu, the usual fallback), so that an image
// shows a mark rather than a box wherever it is opened.
var glyphs = map[layout.CellKind]string{layout.CellTimer: "◷", layout.CellPause: "‖"}

// glyph is the mark the drawing uses for a kind.
func glyph(k layout.CellKind) string {
	if g, ok := glyphs[k]; ok {
		return g
	}
	return k.Glyph()
}
