package layout

import (
	"sort"
	"strings"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
)

// Column is one process.
type Column struct {
	Name string
	Role string
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
	Event     int    // the trace event (RowEvent), or -1
	Invariant string // the broken invariant (RowViolation)
	Fault     bool   // a fault row (for f/F navigation)
	Cells     []Cell
	Text      string // the row's sentence: the event and what its step observed
}

// Timeline is the laid-out view of one trace.
type Timeline struct {
	t     *sim.Trace
	cols  []Column
	refs  []rowRef
	viols []flatViolation
	spans [][]spanRange // per column, sorted by from

	violRows, faultRows, narrRows []int // built on first use
	timeW                         int   // the width of the time column
}

// TimeWidth is the width of the time column: the longest true time of the run.
func (tl *Timeline) TimeWidth() int { return tl.timeW }

// rowRef is one row: an event index, or a violation index when negative (-1-i).
type rowRef int32

type flatViolation struct {
	name string
	v    check.Violation
}

type spanRange struct {
	from, to int // rows [from, to)
	span     Span
}

// New lays out a trace and its report (nil for none).
func New(t *sim.Trace, rep *check.Report) *Timeline {
	tl := &Timeline{t: t}
	for i, n := range t.Names {
		tl.cols = append(tl.cols, Column{Name: n, Role: t.Roles[i]})
	}
	if rep != nil {
		for _, r := range rep.Results {
			for _, v := range r.Violations {
				tl.viols = append(tl.viols, flatViolation{r.Name, v})
			}
		}
		sort.SliceStable(tl.viols, func(i, j int) bool { return tl.viols[i].v.At < tl.viols[j].v.At })
	}
	// A violation an event revealed comes right after that event's row; one found
	// at a deadline comes before the first later event.
	byEvent := map[int][]int{}
	var timed []int
	for i, fv := range tl.viols {
		if fv.v.Event >= 0 {
			byEvent[fv.v.Event] = append(byEvent[fv.v.Event], i)
		} else {
			timed = append(timed, i)
		}
	}
	vi := 0
	for i := range t.Len() {
		e := t.Event(i)
		for vi < len(timed) && tl.viols[timed[vi]].v.At < e.At {
			tl.refs = append(tl.refs, rowRef(-1-timed[vi]))
			vi++
		}
		if e.Kind != sim.EvStart { // every process starts at 0; a row each says nothing
			tl.refs = append(tl.refs, rowRef(i))
		}
		for _, v := range byEvent[i] {
			tl.refs = append(tl.refs, rowRef(-1-v))
		}
	}
	for ; vi < len(timed); vi++ {
		tl.refs = append(tl.refs, rowRef(-1-timed[vi]))
	}
	tl.timeW = 10
	for i := range t.Len() {
		tl.timeW = max(tl.timeW, len(t.Event(i).At.String()))
	}
	tl.buildSpans()
	return tl
}

// buildSpans finds, per column, the rows during which a client believes, or a
// process is paused or down.
func (tl *Timeline) buildSpans() {
	n := len(tl.cols)
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
	obs := tl.t.Obs
	oi := 0
	for row, ref := range tl.refs {
		if ref < 0 {
			continue
		}
		ei := int(ref)
		for oi < len(obs) && obs[oi].Event < ei {
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
		for ; oi < len(obs) && obs[oi].Event == ei; oi++ {
			o := &obs[oi]
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

// Columns lists the processes, in declaration order.
func (tl *Timeline) Columns() []Column { return tl.cols }

// Len is the number of rows.
func (tl *Timeline) Len() int { return len(tl.refs) }

// Trace is the trace laid out.
func (tl *Timeline) Trace() *sim.Trace { return tl.t }

// spanAt returns the spans active in column c at row r.
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

// Row lays out row r.
func (tl *Timeline) Row(r int) Row {
	cells := make([]Cell, len(tl.cols))
	for c := range cells {
		cells[c].Spans = tl.spanAt(c, r)
	}
	ref := tl.refs[r]
	if ref < 0 {
		fv := tl.viols[-1-int(ref)]
		for _, name := range fv.v.Procs {
			if c := tl.col(name); c >= 0 {
				cells[c].Kind, cells[c].Label = CellViolation, fv.name
			}
		}
		return Row{Kind: RowViolation, At: fv.v.At, Event: -1, Invariant: fv.name, Cells: cells,
			Text: "VIOLATION " + fv.name + ": " + fv.v.Detail}
	}
	ei := int(ref)
	e := tl.t.Event(ei)
	row := Row{Kind: RowEvent, At: e.At, Event: ei, Fault: e.Kind.IsFault(), Cells: cells}
	tl.eventCells(e, cells)
	texts := []string{tl.t.EventText(ei)}
	lo := sort.Search(len(tl.t.Obs), func(i int) bool { return tl.t.Obs[i].Event >= ei })
	for oi := lo; oi < len(tl.t.Obs) && tl.t.Obs[oi].Event == ei; oi++ {
		o := &tl.t.Obs[oi]
		obsCell(o, cells)
		texts = append(texts, tl.t.ObsText(o))
	}
	row.Text = strings.Join(texts, "; ")
	return row
}

func (tl *Timeline) col(name string) int {
	for i, c := range tl.cols {
		if c.Name == name {
			return i
		}
	}
	return -1
}

// setCell marks process p's cell, if p is a column.
func setCell(cells []Cell, p sim.ProcID, k CellKind, label string) {
	if p >= 0 && int(p) < len(cells) {
		cells[p].Kind, cells[p].Label = k, label
	}
}

func (tl *Timeline) eventCells(e *sim.Event, cells []Cell) {
	set := func(p sim.ProcID, k CellKind, label string) { setCell(cells, p, k, label) }
	msg := tl.t.Msg(e)
	switch e.Kind {
	case sim.EvSend:
		from, to := int(e.Proc), int(e.Peer)
		lo, hi := min(from, to), max(from, to)
		for c := lo + 1; c < hi; c++ {
			cells[c].Kind = CellWire
		}
		if to >= from {
			set(e.Proc, CellSend, msg.Op)
			set(e.Peer, CellArrive, "")
		} else {
			set(e.Proc, CellSendLeft, msg.Op)
			set(e.Peer, CellArriveLeft, "")
		}
	case sim.EvDeliver:
		set(e.Proc, CellDeliver, msg.Op)
	case sim.EvDrop:
		set(e.Proc, CellDrop, msg.Op)
	case sim.EvTimer:
		set(e.Proc, CellTimer, tl.t.Note(e))
	case sim.EvCommand:
		set(e.Proc, CellCommand, msg.Op)
	case sim.EvCrash:
		set(e.Proc, CellCrash, "crash")
	case sim.EvPowerLoss:
		set(e.Proc, CellCrash, "power loss")
	case sim.EvShutdown:
		set(e.Proc, CellShutdown, "shutdown")
	case sim.EvRestart:
		set(e.Proc, CellRestart, "restart")
	case sim.EvPause:
		set(e.Proc, CellPause, "pause")
	case sim.EvResume:
		set(e.Proc, CellResume, "resume")
	case sim.EvClockJump:
		label := sim.FormatDuration(e.Dur)
		if e.Dur > 0 {
			label = "+" + label
		}
		set(e.Proc, CellClock, label)
	case sim.EvClockDrift:
		set(e.Proc, CellClock, "drift")
	case sim.EvPartition, sim.EvHeal, sim.EvLink:
		if a := e.Action; a >= 0 && int(a) < len(tl.t.Actions) {
			act := &tl.t.Actions[a]
			for _, p := range append(append([]sim.ProcID{}, act.A...), act.B...) {
				set(p, CellCut, e.Kind.String())
			}
		}
	}
}

// obsCell marks the column an observation is about; lock facts win over the event.
func obsCell(o *sim.Observation, cells []Cell) {
	set := func(p sim.ProcID, k CellKind, label string) { setCell(cells, p, k, label) }
	switch o.Kind {
	case sim.ObsBeliefStart:
		set(o.Client, CellBeliefStart, "holds "+o.Lock)
	case sim.ObsBeliefEnd:
		set(o.Client, CellBeliefEnd, "lets go")
	case sim.ObsGrant:
		set(o.Proc, CellGrant, o.Lock+"→"+o.Grant)
	case sim.ObsGrantEnd:
		set(o.Proc, CellGrantEnd, o.Reason)
	case sim.ObsResource:
		if o.Accepted {
			set(o.Proc, CellAccept, o.Op)
		} else {
			set(o.Proc, CellReject, o.Op)
		}
	}
}
