package export

import "github.com/locksim/locksim/tui/layout"

// The colours of the drawing, on a white background: the terminal UI's light
// theme (tui/styles.go), so a slide and a screen look alike.
var (
	// barColours are the belief bars, one per client column (the TUI's Bars).
	barColours = []string{"#005fd7", "#d75f00", "#008700", "#8700af", "#008787", "#af0087"}

	kindColours = map[layout.CellKind]string{
		layout.CellCommand: "#005fd7", layout.CellDeliver: "#303030", layout.CellDrop: "#c00000",
		layout.CellTimer: "#777777", layout.CellBeliefStart: "#000000", layout.CellBeliefEnd: "#555555",
		layout.CellGrant: "#008700", layout.CellGrantEnd: "#875f00", layout.CellAccept: "#008700",
		layout.CellReject: "#c00000", layout.CellCrash: "#c00000", layout.CellShutdown: "#c00000",
		layout.CellRestart: "#008787", layout.CellPause: "#af8700", layout.CellResume: "#af8700",
		layout.CellClock: "#8700af", layout.CellCut: "#c00000", layout.CellViolation: "#c00000",
		layout.CellNote: "#555555",
	}

	// meanings say what each drawn mark means, for the legend.
	// TODO(issue 16): take these from the layout's own glyph table once it has one.
	meanings = map[layout.CellKind]string{
		layout.CellCommand:     "the scenario commands the client",
		layout.CellDeliver:     "a message is delivered",
		layout.CellDrop:        "a message is lost",
		layout.CellTimer:       "a timer fires",
		layout.CellBeliefStart: "the client concludes it holds the lock",
		layout.CellBeliefEnd:   "the client no longer believes it holds it",
		layout.CellGrant:       "the service grants the lock",
		layout.CellGrantEnd:    "the service withdraws a grant",
		layout.CellAccept:      "the resource accepts an operation",
		layout.CellReject:      "the resource rejects an operation",
		layout.CellCrash:       "crash or power loss",
		layout.CellShutdown:    "clean shutdown",
		layout.CellRestart:     "restart",
		layout.CellPause:       "the process pauses",
		layout.CellResume:      "the process runs again",
		layout.CellClock:       "the wall clock jumps, or its drift changes",
		layout.CellCut:         "a partition or heal cuts or restores links",
		layout.CellViolation:   "an invariant is broken",
		layout.CellNote:        "a note",
	}
)

const (
	colourViolation = "#c00000"
	colourBand      = "#ffe3e3" // behind a violation row
	colourMessage   = "#555555"
	colourLifeline  = "#c8c8c8"
	colourPaused    = "#ffe680"
	colourDown      = "#b0b0b0"
	colourTime      = "#666666"
)

// barColour is client column c's colour.
func barColour(c int) string { return barColours[c%len(barColours)] }

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
