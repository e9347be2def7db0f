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
	CellNote                 // the scenario's note (narration) belongs to this moment
	CellVote                 // a participant votes, an acceptor accepts
	CellDecide               // a participant decides: COMMIT or ABORT
	cellKinds                // the number of kinds
)

// Span is what lasts across rows in a column.
type Span uint8

const (
	SpanNone    Span = 0
	SpanBelief  Span = 1 << iota // the client believes it holds a lock: the bar
	SpanPaused                   // the process is paused
	SpanDown                     // the process is down
	SpanFolded                   // background traffic of this process was folded into this row (quiet)
	SpanPromise                  // the service's promise to a client is open: the grant's window, until it ends or the owner releases
)

// Cell is one column of one row. Label is the cell's word; Short, when set, is a
// shorter word for a narrow column, so a cell abbreviates by meaning before it
// cuts with an ellipsis.
type Cell struct {
	Kind  CellKind
	Label string
	Short string
	Spans Span
}

// mark is one kind's glyph and what it means: the one table the layout draws
// with and the legend is generated from.
type mark struct {
	glyph, meaning string
}

var marks = [cellKinds]mark{
	CellEmpty:       {"", ""},
	CellCommand:     {"●", "the scenario commands this client (acquire, release, begin...)"},
	CellSend:        {"", "a message leaves this column; the arrow points to its receiver"},
	CellWire:        {"─", "a message's arrow passes this column"},
	CellArrive:      {"▷", "the head of a message's arrow: it is on its way here"},
	CellArriveLeft:  {"◁", "the head of a message's arrow pointing left"},
	CellSendLeft:    {"", "a message leaves this column leftwards"},
	CellDeliver:     {"▶", "a message is delivered and handled here"},
	CellDrop:        {"✗", "a message to this process is lost (partition, loss, down)"},
	CellTimer:       {"⏲", "a timer fires (its name: timeout, expiry, retry...)"},
	CellBeliefStart: {"◉", "the client concludes it holds the lock; its bar starts"},
	CellBeliefEnd:   {"○", "the client no longer believes it holds the lock"},
	CellGrant:       {"★", "the service grants the lock (lock→client)"},
	CellGrantEnd:    {"☆", "the service withdraws a grant (expired, released, deleted)"},
	CellAccept:      {"✓", "the resource accepts an operation"},
	CellReject:      {"✗", "the resource rejects an operation (a stale fencing token)"},
	CellCrash:       {"✗", "the process crashes or loses power"},
	CellShutdown:    {"■", "the process shuts down cleanly"},
	CellRestart:     {"↺", "the process starts again from what its disk kept"},
	CellPause:       {"⏸", "the process is paused (GC, SIGSTOP): it runs nothing"},
	CellResume:      {"▶", "the paused process runs again"},
	CellClock:       {"⤴", "the process's wall clock jumps (+15s) or its drift changes"},
	CellCut:         {"╳", "a partition cuts, or a heal restores, this process's links"},
	CellViolation:   {"◆", "an invariant is broken here: its own row, in true time"},
	CellNote:        {"✎", "the scenario's note: narration for this moment"},
	CellVote:        {"☑", "a participant votes, an acceptor accepts a value"},
	CellDecide:      {"⚑", "a participant decides: COMMIT or ABORT"},
}

// Glyph is the cell kind's mark in plain text.
func (k CellKind) Glyph() string { return k.mark().glyph }

// Meaning is what the kind's mark means, in the legend's words ("" for none).
func (k CellKind) Meaning() string { return k.mark().meaning }

func (k CellKind) mark() mark {
	if k < cellKinds {
		return marks[k]
	}
	return mark{}
}

// LegendEntry is one line of the legend: a sample cell, drawn exactly as the
// timeline draws it, and what it means.
type LegendEntry struct {
	Cell    Cell
	Meaning string
}

// Legend lists every mark the timeline draws, each as a sample cell: the kinds
// of the table above and the marks that run down a column (the spans). A viewer
// draws each sample with its own cell renderer, so the legend cannot drift from
// the screen.
func Legend() []LegendEntry {
	samples := map[CellKind]Cell{
		CellCommand: {Label: "acquire"}, CellSend: {Label: "SET"}, CellDeliver: {Label: "+OK"},
		CellDrop: {Label: "SET"}, CellTimer: {Label: "timeout"}, CellBeliefStart: {Label: "holds L"},
		CellBeliefEnd: {Label: "lets go"}, CellGrant: {Label: "L→c1"}, CellGrantEnd: {Label: "expired"},
		CellAccept: {Label: "write"}, CellReject: {Label: "write"}, CellCrash: {Label: "crash"},
		CellShutdown: {Label: "shutdown"}, CellRestart: {Label: "restart"}, CellPause: {Label: "pause"},
		CellResume: {Label: "resume"}, CellClock: {Label: "+15s"}, CellCut: {Label: "partition"},
		CellViolation: {Label: "mutex-belief"}, CellNote: {Label: "note"}, CellVote: {Label: "YES"},
		CellDecide: {Label: "COMMIT"}, CellSendLeft: {Label: "SET"},
	}
	var out []LegendEntry
	for k := CellCommand; k < cellKinds; k++ {
		c := samples[k]
		c.Kind = k
		out = append(out, LegendEntry{c, k.Meaning()})
	}
	return append(out,
		LegendEntry{Cell{Spans: SpanBelief}, "a client believes it holds the lock (one colour per client): two bars on one row are two holders"},
		LegendEntry{Cell{Spans: SpanPromise}, "the service's promise: from a grant until its window ends (TTL, lease; a session's until it ends) or the owner releases; an early expiry does not end it, so the bar shows a promise broken"},
		LegendEntry{Cell{Spans: SpanPaused}, "the process is paused"},
		LegendEntry{Cell{Spans: SpanDown}, "the process is down (crashed, not restarted yet)"},
		LegendEntry{Cell{Spans: SpanFolded}, "quiet: background traffic (heartbeats, pings, keepalives) folded into this row"},
	)
}
