package layout

import "github.com/locksim/locksim/sim"

// Filter says what a view of a timeline leaves out.
type Filter struct {
	// Quiet folds background traffic, as the protocols declare it
	// (sim.Message.Background, sim.Event.Background), into a faint tick in its
	// process's column on the next row shown (SpanFolded): the sends, deliveries
	// and drops of background messages, and the steps of background timers and
	// deliveries that did nothing but send more of them. A step that reported
	// anything to the checker is never folded.
	Quiet bool
	// Hidden is indexed by process: a hidden process loses its column and the
	// rows of its own steps. Violations and network-wide rows always stay.
	Hidden []bool
}

// Filter returns the view of the timeline that f leaves: the timeline itself
// when f leaves nothing out. Rows keep their keys (Key, RowAt), so a cursor
// moves between views without losing its place.
func (tl *Timeline) Filter(f Filter) *Timeline {
	base := tl
	if tl.base != nil {
		base = tl.base
	}
	hidden := func(p sim.ProcID) bool { return p >= 0 && int(p) < len(f.Hidden) && f.Hidden[p] }
	anyHidden := false
	for p := range base.t.Names {
		anyHidden = anyHidden || hidden(sim.ProcID(p))
	}
	if !f.Quiet && !anyHidden {
		return base
	}
	v := &Timeline{t: base.t, viols: base.viols, timeW: base.timeW, base: base}
	for p, c := range base.cols {
		v.procCol = append(v.procCol, -1)
		if !hidden(sim.ProcID(p)) {
			v.procCol[p] = len(v.cols)
			v.cols = append(v.cols, c)
		}
	}
	var bg []uint64
	v.refs = make([]rowRef, 0, len(base.refs))
	if f.Quiet {
		bg = base.background()
		v.folded = make([]uint64, 0, len(base.refs))
	}
	var pending uint64 // processes whose background rows wait for the next row shown
	for _, ref := range base.refs {
		if ref >= 0 {
			e := base.t.Event(int(ref))
			if hidden(e.Proc) {
				continue
			}
			if bg != nil && bg[ref>>6]&(1<<(ref&63)) != 0 {
				if e.Proc >= 0 && e.Proc < 64 {
					pending |= 1 << e.Proc
				}
				continue
			}
		}
		v.refs = append(v.refs, ref)
		if f.Quiet {
			v.folded = append(v.folded, pending)
			pending = 0
		}
	}
	v.buildSpans()
	return v
}

// background marks, one bit per event, what a quiet view folds (see Filter).
func (tl *Timeline) background() []uint64 {
	if tl.bg != nil {
		return tl.bg
	}
	t := tl.t
	n := t.Len()
	tl.bg = make([]uint64, (n+63)/64)
	oi := 0
	observed := func(i int) bool {
		for oi < t.NumObs() && t.ObsEvent(oi) < i {
			oi++
		}
		return oi < t.NumObs() && t.ObsEvent(oi) == i
	}
	for i := range n {
		e := t.Event(i)
		fold := false
		switch e.Kind {
		case sim.EvSend, sim.EvDrop:
			fold = t.Background(e)
		case sim.EvDeliver, sim.EvTimer:
			fold = t.Background(e) && !observed(i) && tl.stepSendsOnlyBackground(i)
		}
		if fold {
			tl.bg[i>>6] |= 1 << (i & 63)
		}
	}
	return tl.bg
}

// stepSendsOnlyBackground reports whether the step of event i sent nothing but
// background messages.
func (tl *Timeline) stepSendsOnlyBackground(i int) bool {
	for j := i + 1; j <= stepEnd(tl.t, i); j++ {
		if e := tl.t.Event(j); e.Kind != sim.EvNote && !tl.t.Background(e) {
			return false
		}
	}
	return true
}
