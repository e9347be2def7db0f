package layout

import (
	"slices"
	"sort"
	"strings"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
)

// Column is one process.
type Column struct {
	Name string
	Role string
	Proc sim.ProcID
}

// RowKind says what a row stands for.
type RowKind uint8

const (
	RowEvent     RowKind = iota + 1 // a trace event
	RowViolation                    // an invariant violation
)

// Row is one laid-out row.
type Row struct {
	Kind      RowKind
	At        sim.Time
	Event     int      // the trace event (RowEvent), or -1
	Invariant string   // the broken invariant (RowViolation)
	Fault     bool     // a fault row (for f/F navigation)
	Cells     []Cell   // one per column (a filtered timeline's visible ones)
	Text      string   // the row's sentence: the event and what its step observed
	Lines     []string // the same, one part per line: the event, then each observation
}

// Timeline is the laid-out view of one trace, or a filtered view of another
// (Filter): fewer rows and columns over the same trace.
type Timeline struct {
	t       *sim.Trace
	cols    []Column // the columns shown
	procCol []int    // by process: its column, or -1 when hidden
	refs    []rowRef
	viols   []flatViolation
	spans   [][]spanRange // per process, sorted by from
	folded  []uint64      // quiet: per row, the processes (bit p) whose background rows were folded into it
	base    *Timeline     // the unfiltered timeline of a filtered one; nil for itself
	bg      []uint64      // base only: the events a quiet view folds, one bit each (built on first use)

	violRows, faultRows, stopRows, actRows []int  // built on first use
	beats                                  []Beat // built on first use
	timeW                                  int    // the width of the time column
}

// TimeWidth is the width of the time column: the longest true time of the run.
func (tl *Timeline) TimeWidth() int { return tl.timeW }

// rowRef is one row: an event index, or a violation index when negative (-1-i).
type rowRef int32

type flatViolation struct {
	name string
	v    check.Violation
	key  int64 // its place among the rows (Key)
}

type spanRange struct {
	from, to int // rows [from, to)
	span     Span
}

// New lays out a trace and its report (nil for none).
func New(t *sim.Trace, rep *check.Report) *Timeline {
	tl := &Timeline{t: t}
	for i, n := range t.Names {
		tl.cols = append(tl.cols, Column{Name: n, Role: t.Roles[i], Proc: sim.ProcID(i)})
		tl.procCol = append(tl.procCol, i)
	}
	if rep != nil {
		for _, r := range rep.Results {
			for _, v := range r.Violations {
				tl.viols = append(tl.viols, flatViolation{name: r.Name, v: v})
			}
		}
		sort.SliceStable(tl.viols, func(i, j int) bool { return tl.viols[i].v.At < tl.viols[j].v.At })
	}
	// A violation an event revealed comes right after that event's step (its
	// sends, and the notes it triggered); one found at a deadline comes before
	// the first later event.
	byEvent := map[int][]int{}
	var timed []int
	for i, fv := range tl.viols {
		if fv.v.Event >= 0 {
			at := stepEnd(t, fv.v.Event)
			byEvent[at] = append(byEvent[at], i)
		} else {
			timed = append(timed, i)
		}
	}
	// Keys order rows across views (Key): an event's is its index<<16, and the
	// violations after it count up from there.
	vi, n := 0, int64(0)
	addViol := func(v, after int) {
		n++
		tl.viols[v].key = int64(after)<<16 | n
		tl.refs = append(tl.refs, rowRef(-1-v))
	}
	for i := range t.Len() {
		e := t.Event(i)
		for vi < len(timed) && tl.viols[timed[vi]].v.At < e.At {
			addViol(timed[vi], i-1)
			vi++
		}
		n = 0
		if e.Kind != sim.EvStart { // every process starts at 0; a row each says nothing
			tl.refs = append(tl.refs, rowRef(i))
		}
		for _, v := range byEvent[i] {
			addViol(v, i)
		}
	}
	for ; vi < len(timed); vi++ {
		addViol(timed[vi], t.Len()-1)
	}
	tl.timeW = 10
	for i := range t.Len() {
		tl.timeW = max(tl.timeW, len(t.Event(i).At.String()))
	}
	tl.buildSpans()
	return tl
}

// stepEnd is the last event of the step of event i: the step's own sends (and
// the drops of those that could not go) and the notes it triggered, which the
// kernel records right after the step's event.
func stepEnd(t *sim.Trace, i int) int {
	e := t.Event(i)
	j := i
	for j+1 < t.Len() {
		n := t.Event(j + 1)
		if n.At != e.At || !(n.Kind == sim.EvSend && n.Proc == e.Proc || n.Kind == sim.EvDrop && n.Peer == e.Proc || n.Kind == sim.EvNote) {
			break
		}
		j++
	}
	return j
}

// buildSpans finds, per column, the rows during which a client believes, or a
// process is paused or down.
func (tl *Timeline) buildSpans() {
	n := len(tl.t.Names)
	tl.spans = make([][]spanRange, n)
	type openKey struct {
		col  int
		span Span
	}
	open := map[openKey]int{}
	beliefs := make([]map[string]bool, n)
	start := func(c int, s Span, row int) {
		if _, ok := open[openKey{c, s}]; !ok {
			open[openKey{c, s}] = row
		}
	}
	stop := func(c int, s Span, row int) {
		if from, ok := open[openKey{c, s}]; ok {
			tl.spans[c] = append(tl.spans[c], spanRange{from, row, s})
			delete(open, openKey{c, s})
		}
	}
	// Promises: a grant's window, from its row to the first row at or after
	// its end (a renewal moves the end), closed early only by the owner's
	// release; a grant with no expiry lasts until it is withdrawn.
	var promises []*promise // in the order granted
	find := func(c int, o *sim.Observation) *promise {
		for _, pr := range promises {
			if pr.col == c && pr.client == o.Client && pr.lock == o.Lock {
				return pr
			}
		}
		return nil
	}
	promising := func(c int) bool {
		for _, pr := range promises {
			if pr.col == c && pr.open {
				return true
			}
		}
		return false
	}
	end := func(pr *promise, row int) {
		pr.open = false
		if !promising(pr.col) {
			stop(pr.col, SpanPromise, row)
		}
	}
	closeDue := func(row int, at sim.Time) {
		for _, pr := range promises {
			if pr.open && pr.end <= at {
				end(pr, row)
			}
		}
	}
	t, oi := tl.t, 0
	for row, ref := range tl.refs {
		if ref < 0 {
			continue
		}
		ei := int(ref)
		closeDue(row, tl.t.Event(ei).At)
		for oi < t.NumObs() && t.ObsEvent(oi) < ei {
			oi++
		}
		e := tl.t.Event(ei)
		p := int(e.Proc)
		switch e.Kind {
		case sim.EvPause:
			if tl.t.Note(e) == "" {
				start(p, SpanPaused, row+1)
			}
		case sim.EvResume:
			stop(p, SpanPaused, row)
		case sim.EvCrash, sim.EvPowerLoss, sim.EvShutdown:
			if tl.t.Note(e) != sim.NoteAlreadyDown {
				stop(p, SpanPaused, row)
				stop(p, SpanBelief, row+1)
				beliefs[p] = nil
				start(p, SpanDown, row+1)
			}
		case sim.EvRestart:
			stop(p, SpanDown, row)
		}
		for ; oi < t.NumObs() && t.ObsEvent(oi) == ei; oi++ {
			ob := t.Observation(oi)
			o := &ob
			c := int(o.Client)
			switch o.Kind {
			case sim.ObsBeliefStart:
				if beliefs[c] == nil {
					beliefs[c] = map[string]bool{}
				}
				beliefs[c][o.Lock] = true
				start(c, SpanBelief, row)
			case sim.ObsBeliefEnd:
				delete(beliefs[c], o.Lock)
				if len(beliefs[c]) == 0 {
					stop(c, SpanBelief, row+1)
				}
			case sim.ObsGrant:
				sc := int(o.Proc)
				pr := find(sc, o)
				if pr == nil {
					pr = &promise{col: sc, client: o.Client, lock: o.Lock}
					promises = append(promises, pr)
				}
				pr.end, pr.open = sim.Never, true
				if o.Window > 0 {
					pr.end = o.At.Add(o.Window)
				}
				start(sc, SpanPromise, row)
			case sim.ObsGrantEnd:
				if pr := find(int(o.Proc), o); pr != nil && pr.open && (o.Reason == sim.ReasonReleased || pr.end == sim.Never) {
					end(pr, row+1)
				}
			}
		}
	}
	keys := make([]openKey, 0, len(open))
	for k := range open {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		return keys[i].col < keys[j].col || (keys[i].col == keys[j].col && keys[i].span < keys[j].span)
	})
	for _, k := range keys {
		tl.spans[k.col] = append(tl.spans[k.col], spanRange{open[k], len(tl.refs), k.span})
	}
	for c := range tl.spans {
		sort.SliceStable(tl.spans[c], func(i, j int) bool { return tl.spans[c][i].from < tl.spans[c][j].from })
	}
}

// promise is a grant's window as the spans follow it: the service's column,
// the client and lock it is for, when it ends, and whether it still holds.
type promise struct {
	col    int
	client sim.ProcID
	lock   string
	end    sim.Time // sim.Never: until withdrawn
	open   bool
}

// Columns lists the processes shown, in declaration order.
func (tl *Timeline) Columns() []Column { return tl.cols }

// Column is process p's column, or -1 when the view hides it.
func (tl *Timeline) Column(p sim.ProcID) int {
	if p < 0 || int(p) >= len(tl.procCol) {
		return -1
	}
	return tl.procCol[p]
}

// Len is the number of rows.
func (tl *Timeline) Len() int { return len(tl.refs) }

// Trace is the trace laid out.
func (tl *Timeline) Trace() *sim.Trace { return tl.t }

// spanAt returns the spans active in process c's column at row r.
func (tl *Timeline) spanAt(c, r int) Span {
	var s Span
	for _, sr := range tl.spans[c] {
		if sr.from > r {
			break
		}
		if r < sr.to {
			s |= sr.span
		}
	}
	return s
}

// IsNote reports whether row r is a scenario's note (its text is narration).
func (tl *Timeline) IsNote(r int) bool {
	if r < 0 || r >= len(tl.refs) || tl.refs[r] < 0 {
		return false
	}
	return tl.t.Event(int(tl.refs[r])).Kind == sim.EvNote
}

// Row lays out row r.
func (tl *Timeline) Row(r int) Row {
	cells := make([]Cell, len(tl.t.Names)) // by process; the hidden ones are dropped at the end
	for p := range cells {
		cells[p].Spans = tl.spanAt(p, r)
		if tl.folded != nil && p < 64 && tl.folded[r]&(1<<p) != 0 {
			cells[p].Spans |= SpanFolded
		}
	}
	var row Row
	if ref := tl.refs[r]; ref < 0 {
		fv := tl.viols[-1-int(ref)]
		for _, name := range fv.v.Procs {
			if p := slices.Index(tl.t.Names, name); p >= 0 {
				cells[p].Kind, cells[p].Label, cells[p].Short = CellViolation, fv.name, longestPart(fv.name)
			}
		}
		row = Row{Kind: RowViolation, At: fv.v.At, Event: -1, Invariant: fv.name,
			Lines: []string{"VIOLATION " + fv.name + ": " + fv.v.Detail}}
	} else {
		ei := int(ref)
		e := tl.t.Event(ei)
		row = Row{Kind: RowEvent, At: e.At, Event: ei, Fault: e.Kind.IsFault()}
		tl.eventCells(e, cells)
		row.Lines = []string{tl.t.EventText(ei)}
		if e.Kind == sim.EvNote {
			row.Lines[0] += ": " + tl.narration(e) // the note is its own text
		}
		obs := tl.observations(ei)
		for k := range obs {
			tl.obsCell(&obs[k], cells)
			row.Lines = append(row.Lines, tl.t.ObsText(&obs[k]))
		}
	}
	row.Text = strings.Join(row.Lines, "; ")
	row.Cells = cells
	if len(tl.cols) < len(cells) {
		row.Cells = make([]Cell, len(tl.cols))
		for i, c := range tl.cols {
			row.Cells[i] = cells[c.Proc]
		}
	}
	return row
}

// observations is what the step of event ei reported.
func (tl *Timeline) observations(ei int) []sim.Observation {
	from, to := tl.t.ObsOf(ei)
	obs := make([]sim.Observation, 0, to-from)
	for i := from; i < to; i++ {
		obs = append(obs, tl.t.Observation(i))
	}
	return obs
}

// setCell marks process p's cell, if p is a process.
func setCell(cells []Cell, p sim.ProcID, k CellKind, label, short string) {
	if p >= 0 && int(p) < len(cells) {
		cells[p].Kind, cells[p].Label, cells[p].Short = k, label, short
	}
}

// Short forms, "" when there is nothing shorter. A timer's or a reason's head
// word is its last ("node timeout": "timeout"); a message's is its command, the
// first ("EVAL compare-and-delete": "EVAL"); an invariant's, the longest part
// of its name, its noun ("commit-agreement": "agreement").
func lastWord(label string) string {
	if i := strings.LastIndexByte(label, ' '); i >= 0 {
		return label[i+1:]
	}
	return ""
}

func firstWord(label string) string {
	if i := strings.IndexByte(label, ' '); i >= 0 {
		return label[:i]
	}
	return ""
}

func longestPart(name string) string {
	parts := strings.Split(name, "-")
	if len(parts) < 2 {
		return ""
	}
	best := parts[0]
	for _, p := range parts[1:] {
		if len(p) > len(best) {
			best = p
		}
	}
	return best
}

func (tl *Timeline) eventCells(e sim.Event, cells []Cell) {
	set := func(p sim.ProcID, k CellKind, label, short string) { setCell(cells, p, k, label, short) }
	msg := tl.t.Msg(e)
	switch e.Kind {
	case sim.EvSend:
		from, to := int(e.Proc), int(e.Peer)
		lo, hi := min(from, to), max(from, to)
		for c := lo + 1; c < hi; c++ {
			cells[c].Kind = CellWire
		}
		if to >= from {
			set(e.Proc, CellSend, msg.Op, firstWord(msg.Op))
			set(e.Peer, CellArrive, "", "")
		} else {
			set(e.Proc, CellSendLeft, msg.Op, firstWord(msg.Op))
			set(e.Peer, CellArriveLeft, "", "")
		}
	case sim.EvDeliver:
		set(e.Proc, CellDeliver, msg.Op, firstWord(msg.Op))
	case sim.EvDrop:
		set(e.Proc, CellDrop, msg.Op, firstWord(msg.Op))
	case sim.EvTimer:
		note := tl.t.Note(e)
		set(e.Proc, CellTimer, note, lastWord(note))
	case sim.EvCommand:
		set(e.Proc, CellCommand, msg.Op, "")
	case sim.EvClockJump:
		label := e.Dur.String() // the shortest exact form: 15s, 1.5s, 250ms
		if e.Dur > 0 {
			label = "+" + label
		}
		set(e.Proc, CellClock, label, "")
	case sim.EvPartition, sim.EvHeal, sim.EvLink:
		short := map[sim.EventKind]string{sim.EvPartition: "cut"}[e.Kind]
		if a := e.Action; a >= 0 && int(a) < len(tl.t.Actions) {
			act := &tl.t.Actions[a]
			for _, p := range append(append([]sim.ProcID{}, act.A...), act.B...) {
				set(p, CellCut, e.Kind.String(), short)
			}
		}
	default:
		if c, ok := fixedCells[e.Kind]; ok {
			set(e.Proc, c.kind, c.label, c.short)
		}
	}
}

// fixedCells are the events of one process whose cell reads the same each time:
// its kind, its label, and the short label a narrow column shows ("" for none).
var fixedCells = map[sim.EventKind]struct {
	kind         CellKind
	label, short string
}{
	sim.EvCrash:      {CellCrash, "crash", ""},
	sim.EvPowerLoss:  {CellCrash, "power loss", "power"},
	sim.EvShutdown:   {CellShutdown, "shutdown", "stop"},
	sim.EvRestart:    {CellRestart, "restart", "up"},
	sim.EvPause:      {CellPause, "pause", ""},
	sim.EvResume:     {CellResume, "resume", ""},
	sim.EvClockDrift: {CellClock, "drift", ""},
	sim.EvNote:       {CellNote, "note", ""},
}

// obsCell marks the column an observation is about; lock and agreement facts win
// over the event (a delivered DOCOMMIT shows as the decision it led to).
func (tl *Timeline) obsCell(o *sim.Observation, cells []Cell) {
	set := func(p sim.ProcID, k CellKind, label, short string) { setCell(cells, p, k, label, short) }
	switch o.Kind {
	case sim.ObsBeliefStart:
		set(o.Client, CellBeliefStart, "holds "+o.Lock, "holds")
	case sim.ObsBeliefEnd:
		set(o.Client, CellBeliefEnd, "lets go", "")
	case sim.ObsGrant:
		who := tl.t.Name(o.Client)
		set(o.Proc, CellGrant, o.Lock+"→"+who, "→"+who)
	case sim.ObsGrantEnd:
		set(o.Proc, CellGrantEnd, o.Reason, lastWord(o.Reason))
	case sim.ObsResource:
		if o.Accepted {
			set(o.Proc, CellAccept, o.Op, "")
		} else {
			set(o.Proc, CellReject, o.Op, "")
		}
	case sim.ObsVote:
		set(o.Proc, CellVote, "vote "+strings.ToUpper(o.Name), strings.ToUpper(o.Name))
	case sim.ObsAccepted:
		set(o.Proc, CellVote, "accepts "+o.Grant, o.Grant)
	case sim.ObsDecide:
		set(o.Proc, CellDecide, strings.ToUpper(o.Name), "")
	}
}
