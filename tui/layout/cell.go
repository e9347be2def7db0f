package layout

// CellKind is what one cell of the timeline shows.
type CellKind uint8

const (
	CellEmpty       CellKind = iota
	CellCommand              // the scenario commands this client
	CellSend                 // a message leaves this column
	CellWire                 // a message's arrow passes this column
	CellArrive               // the head of a sent message's arrow, pointing right
	CellArriveLeft           // the head of an arrow pointing left
	CellSendLeft             // a message leaves this column leftwards
	CellDeliver              // a message is delivered here
	CellDrop                 // a message to this column is lost
	CellTimer                // a timer fires
	CellBeliefStart          // the client concludes it holds a lock
	CellBeliefEnd            // the client concludes it no longer holds it
	CellGrant                // the service grants a lock
	CellGrantEnd             // the service withdraws a grant
	CellAccept               // the resource accepts an operation
	CellReject               // the resource rejects an operation
	CellCrash                // crash or power loss
	CellShutdown             // clean shutdown
	CellRestart              // the process starts again
	CellPause                // the process stops running
	CellResume               // it runs again
	CellClock                // clock jump or drift change
	CellCut                  // a partition or heal touches this process
	CellViolation            // an invariant is broken here
	CellNote                 // a fact worth a mark (a stored value, a note)
)

// Span is what lasts across rows in a column.
type Span uint8

const (
	SpanNone   Span = 0
	SpanBelief Span = 1 << iota // the client believes it holds a lock: the bar
	SpanPaused                  // the process is paused
	SpanDown                    // the process is down
)

// Cell is one column of one row.
type Cell struct {
	Kind  CellKind
	Label string
	Spans Span
}

var glyphs = [...]string{
	CellEmpty: "", CellCommand: "●", CellSend: "", CellWire: "─", CellArrive: "▷", CellArriveLeft: "◁", CellSendLeft: "",
	CellDeliver: "▶", CellDrop: "✗", CellTimer: "⏲", CellBeliefStart: "◉", CellBeliefEnd: "○",
	CellGrant: "★", CellGrantEnd: "☆", CellAccept: "✓", CellReject: "✗", CellCrash: "✗",
	CellShutdown: "■", CellRestart: "↺", CellPause: "⏸", CellResume: "▶", CellClock: "⤴",
	CellCut: "╳", CellViolation: "◆", CellNote: "·",
}

// Glyph is the cell kind's mark in plain text.
func (k CellKind) Glyph() string { return glyphs[k] }
