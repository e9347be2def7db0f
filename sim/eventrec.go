package sim

import "time"

// eventRec is an event as the trace stores it: 40 bytes instead of Event's 80.
// The process's clock reading is not stored: the run's clocks and their changes
// (Trace.Clocks, the clock log) give it back for any event. A timer's id shares
// the slot of the duration (a timer event has none), the
// message id is 32 bits (every message id is a send event's, and no run keeps
// four billion events), and the two indexes most events lack live in side
// tables: the scenario action behind an event (a few per run, flagged) and the
// process's snapshot after its step (only in runs that record snapshots).
// Trace.Event rebuilds the Event readers see.
type eventRec struct {
	at         Time
	arg        int64 // Dur, or an EvTimer's Timer
	msgID      uint32
	proc, peer ProcID
	msg, note  int32
	kind       EventKind
	flags      uint8 // evBackground, evAction
}

const (
	evBackground uint8 = 1 << iota
	evAction
)

// pack writes the stored record of e into r, every field.
func pack(e *Event, r *eventRec) {
	r.at, r.arg, r.msgID = e.At, int64(e.Dur), uint32(e.MsgID)
	r.proc, r.peer, r.msg, r.note, r.kind, r.flags = e.Proc, e.Peer, e.msg, e.note, e.Kind, 0
	if e.Kind == EvTimer {
		r.arg = int64(e.Timer)
	}
	if e.Background {
		r.flags |= evBackground
	}
	if e.Action >= 0 {
		r.flags |= evAction
	}
}

// unpack rebuilds event i from its record and the side tables.
func (t *Trace) unpack(i int, r *eventRec) Event {
	e := Event{At: r.at, Local: t.localAt(r.proc, i, r.at), MsgID: uint64(r.msgID), Proc: r.proc, Peer: r.peer,
		Action: -1, msg: r.msg, note: r.note, state: -1, Kind: r.kind, Background: r.flags&evBackground != 0}
	if r.kind == EvTimer {
		e.Timer = TimerID(r.arg)
	} else {
		e.Dur = time.Duration(r.arg)
	}
	if r.flags&evAction != 0 {
		e.Action = t.actionOf[int32(i)]
	}
	if i < t.states.len() {
		e.state = *t.states.at(i)
	}
	return e
}

// setState records the snapshot of event i's process after its step.
func (t *Trace) setState(i int, s string) {
	for t.states.len() <= i {
		t.states.add(-1)
	}
	*t.states.at(i) = t.addString(s)
}
