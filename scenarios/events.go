package scenarios

import (
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
)

// JSONEvent is one event of the trace in the JSON output's event_list
// (docs/json-output.md): everything the trace records about it, in the units of
// the rest of the JSON. It is built from the trace's public view only, so it says
// no more than the trace does.
type JSONEvent struct {
	AtMs    float64      `json:"at_ms"`             // true time, in ms
	Process string       `json:"process"`           // "" for a network-wide event (partition, heal, end)
	Kind    string       `json:"kind"`              // the event kind: "send", "deliver", "timer", ...
	Text    string       `json:"text"`              // the event's one text form, as the event log prints it
	Clock   *JSONClock   `json:"clock,omitempty"`   // the process's clock readings (nil for a network-wide event)
	Message *JSONMessage `json:"message,omitempty"` // the message it sends, delivers, drops or commands
	// DurationMs is a pause's length or a clock jump's size (negative: backwards).
	DurationMs *float64 `json:"duration_ms,omitempty"`
	Note       string   `json:"note,omitempty"` // what the kernel or scenario says of it
	// Background is true when the protocol declared the event's message (or
	// timer) background traffic: heartbeats, pings, keepalives (the TUI's quiet
	// mode folds them). Omitted otherwise.
	Background   bool                 `json:"background,omitempty"`
	Observations []JSONObservation    `json:"observations"` // the facts its step reported
	Violations   []JSONEventViolation `json:"violations"`   // the violations it revealed
}

// JSONClock is the process's own clock readings at the event.
type JSONClock struct {
	WallMs float64 `json:"wall_ms"` // the wall clock, in ms
	MonoMs float64 `json:"mono_ms"` // the monotonic clock, in ms
}

// JSONMessage is the message an event sends, delivers, drops or commands.
type JSONMessage struct {
	ID      uint64   `json:"id"`                 // pairs a send with its deliveries or drop; 0 for a command
	From    string   `json:"from"`               // "" for a command: the scenario gives it
	To      string   `json:"to"`                 // the receiver
	Text    string   `json:"text"`               // the message's one text form
	DelayMs *float64 `json:"delay_ms,omitempty"` // a send's network delay, when it is on its way
	Dropped bool     `json:"dropped"`            // the network or a down process dropped it
	Why     string   `json:"why,omitempty"`      // why it was dropped
}

// JSONObservation is one fact the event's step reported.
type JSONObservation struct {
	Kind     string   `json:"kind"`                // "grant", "belief-start", ... (sim.ObsKind)
	Text     string   `json:"text"`                // the fact in words
	Client   string   `json:"client,omitempty"`    // the client it is about
	Lock     string   `json:"lock,omitempty"`      // the lock, key or resource
	Grant    string   `json:"grant,omitempty"`     // the acquisition it belongs to
	Token    *int64   `json:"token,omitempty"`     // the fencing token, when one
	WindowMs *float64 `json:"window_ms,omitempty"` // a grant's or belief's validity, in ms
	Reason   string   `json:"reason,omitempty"`    // why a grant, belief or attempt ended
}

// JSONEventViolation is a violation the event revealed.
type JSONEventViolation struct {
	Invariant string `json:"invariant"` // the invariant's name
	Detail    string `json:"detail"`    // the violation in words
}

// EventList is every event of the trace in trace order, as JSON values.
func EventList(t *sim.Trace, rep *check.Report) []JSONEvent {
	out := make([]JSONEvent, 0, t.Len())
	EachEvent(t, rep, func(je *JSONEvent) error { out = append(out, *je); return nil })
	return out
}

// EachEvent calls fn with every event of the trace in trace order, stopping at
// the first error: a million-event trace is written without holding its JSON.
func EachEvent(t *sim.Trace, rep *check.Report, fn func(*JSONEvent) error) error {
	viols := map[int][]JSONEventViolation{}
	for _, res := range rep.Results {
		for _, v := range res.Violations {
			if v.Event >= 0 {
				viols[v.Event] = append(viols[v.Event], JSONEventViolation{res.Name, v.Detail})
			}
		}
	}
	oi := 0
	for i := range t.Len() {
		e := t.Event(i)
		je := JSONEvent{AtMs: e.At.Ms(), Process: procName(t, e.Proc), Kind: e.Kind.String(), Text: t.EventText(i),
			Note: t.Note(e), Background: t.Background(e), Observations: []JSONObservation{}, Violations: viols[i]}
		if e.Kind == sim.EvNote {
			je.Note = NoteText(t, e)
		}
		if je.Violations == nil {
			je.Violations = []JSONEventViolation{}
		}
		if e.Proc >= 0 {
			je.Clock = &JSONClock{WallMs: ms(e.Local.Wall), MonoMs: ms(e.Local.Mono)}
		}
		if e.Kind == sim.EvPause || e.Kind == sim.EvClockJump {
			d := ms(e.Dur)
			je.DurationMs = &d
		}
		if e.HasMsg() {
			je.Message = eventMessage(t, i)
		}
		for ; oi < t.NumObs() && t.ObsEvent(oi) <= i; oi++ {
			if t.ObsEvent(oi) == i {
				o := t.Observation(oi)
				je.Observations = append(je.Observations, observation(t, &o))
			}
		}
		if err := fn(&je); err != nil {
			return err
		}
	}
	return nil
}

// NoteText is the text of a scenario's note (an EvNote event): the narration of
// the note action that recorded it. The trace keeps it with the action, not the
// event, so that rewording a note changes no run (sim.EvNote).
func NoteText(t *sim.Trace, e sim.Event) string {
	if a := e.Action; e.Kind == sim.EvNote && a >= 0 && int(a) < len(t.Actions) {
		return t.Actions[a].Narration
	}
	return ""
}

func eventMessage(t *sim.Trace, i int) *JSONMessage {
	e := t.Event(i)
	m := &JSONMessage{ID: e.MsgID, Text: t.Msg(e).String(), To: procName(t, e.Proc)}
	switch e.Kind {
	case sim.EvSend:
		m.To = procName(t, e.Peer)
		m.From = procName(t, e.Proc)
		// A message lost on the way out (a cut link, loss) is dropped by the very
		// next event; one that left has its delay.
		if i+1 < t.Len() {
			if n := t.Event(i + 1); n.Kind == sim.EvDrop && n.MsgID == e.MsgID {
				m.Dropped, m.Why = true, t.Note(n)
				return m
			}
		}
		d := ms(e.Dur)
		m.DelayMs = &d
	case sim.EvDeliver:
		m.From = procName(t, e.Peer)
	case sim.EvDrop:
		m.From = procName(t, e.Peer)
		m.Dropped, m.Why = true, t.Note(e)
	}
	return m
}

func observation(t *sim.Trace, o *sim.Observation) JSONObservation {
	jo := JSONObservation{Kind: o.Kind.String(), Text: t.ObsText(o), Client: procName(t, o.Client), Lock: o.Lock,
		Grant: o.Grant, Reason: o.Reason}
	if o.HasToken {
		tok := o.Token
		jo.Token = &tok
	}
	if o.Window > 0 {
		w := ms(o.Window)
		jo.WindowMs = &w
	}
	return jo
}

// procName is a process's name, or "" for none.
func procName(t *sim.Trace, p sim.ProcID) string {
	if p < 0 {
		return ""
	}
	return t.Name(p)
}

func ms(d time.Duration) float64 { return sim.Time(d).Ms() }
