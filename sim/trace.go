package sim

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"strings"
	"time"
	"unicode/utf8"
)

// Trace is the product of a run: every event with its true time and the local clock
// reading, the observations, and how the run ended. The checker, the timeline, the
// TUI and the explorer all read it; nothing re-simulates to draw.
type Trace struct {
	Seed      uint64    // the world's seed
	Names     []string  // process names, by ProcID
	Roles     []string  // process roles ("redis", "client"), by ProcID
	Actions   []Action  // the scheduled actions; Event.Action indexes them
	Limits    Limits    // the run's limits
	End       Time      // true time when the run ended
	EndReason EndReason // why it ended

	// Clocks is each process's clock at the start; with the clock-jump and
	// clock-drift events it gives any reading at any time (ClockAt).
	Clocks []Clock

	events   chunked[eventRec]
	actionOf map[int32]int32 // event index -> Action, for the events that have one
	states   chunked[int32]  // event index -> snapshot string, when the run records them
	clockLog [][]clockChange // by process, each clock's changes (nil until one changes)
	wallLog  [][]wallTimerOp // by process, its wall timers (Config.WallTimers; else nil)
	msgs     chunked[msgRec] // sent and commanded messages, by index
	obs      chunked[obsRec] // the observations, in the order reported (Trace.Observation)
	bodies   chunked[any]    // the messages' payloads, for the few that have one
	strs     strtab          // every word of the messages, the notes, the snapshots
	bytes    int64           // what the tables above hold, as memory.go estimates it
	reuse    *Reuse          // where Recycle hands the tables, or nil
	obsBuf   []Observation   // the last slice Observations made, with reuse
	world    *World          // the world that recorded it: Recycle lends it on, with reuse
}

// ClockAt is process p's clock reading at true time at, as the run left it:
// every clock jump and drift change at or before at applied.
func (t *Trace) ClockAt(p ProcID, at Time) LocalTime {
	if p < 0 || int(p) >= len(t.Clocks) {
		return LocalTime{}
	}
	c := &t.Clocks[p]
	if t.clockLog != nil {
		for k := range t.clockLog[p] {
			if ch := &t.clockLog[p][k]; ch.at <= at {
				c = &ch.clock
			}
		}
	}
	return c.Read(at)
}

// clockChange is a process's clock as a jump or a drift change left it.
type clockChange struct {
	event int  // the change's event
	at    Time // its true time
	clock Clock
}

// clockChanged records process p's clock after the change at event i: event
// records keep no clock reading, which this log and Clocks give back.
func (t *Trace) clockChanged(p ProcID, i int, c Clock) {
	if t.clockLog == nil {
		t.clockLog = make([][]clockChange, len(t.Clocks))
	}
	t.clockLog[p] = append(t.clockLog[p], clockChange{i, t.events.at(i).at, c})
}

// localAt is process p's clock reading at its event i, at true time at: the
// clock as the last change at or before that event left it (a jump at the
// same instant but later in the trace does not count yet).
func (t *Trace) localAt(p ProcID, i int, at Time) LocalTime {
	if p < 0 || int(p) >= len(t.Clocks) {
		return LocalTime{}
	}
	c := &t.Clocks[p]
	if t.clockLog != nil {
		log := t.clockLog[p]
		for k := len(log) - 1; k >= 0; k-- {
			if log[k].event <= i {
				c = &log[k].clock
				break
			}
		}
	}
	return c.Read(at)
}

// Len is the number of events.
func (t *Trace) Len() int { return t.events.len() }

// KindOf is event i's kind, read without building the whole Event: for a
// reader that looks for a few kinds among many events.
func (t *Trace) KindOf(i int) EventKind { return t.events.at(i).kind }

// Event returns event i (0 <= i < Len()).
func (t *Trace) Event(i int) Event { return t.unpack(i, t.events.at(i)) }

// Msg returns the event's message (the zero Message when it has none).
func (t *Trace) Msg(e Event) Message {
	if e.msg < 0 {
		return Message{}
	}
	var m Message
	t.message(e.msg, &m)
	return m
}

// Background reports whether the event is background traffic, as the protocol
// declared it: a background message's send, delivery or drop
// (Message.Background), or a background timer's firing (Event.Background).
func (t *Trace) Background(e Event) bool {
	return e.Background || e.msg >= 0 && t.msgs.at(int(e.msg)).flags&recBackground != 0
}

// Note returns the event's note ("partition", "c1 is down", a timer's name).
func (t *Trace) Note(e Event) string {
	if e.note < 0 {
		return ""
	}
	return t.strs.str(uint32(e.note))
}

// State returns the snapshot of the event's process after its step, when the run
// recorded snapshots.
func (t *Trace) State(e Event) string {
	if e.state < 0 {
		return ""
	}
	return t.strs.str(uint32(e.state))
}

// msgRec is a message as the trace keeps it: its words as numbers into the
// trace's string table (each distinct word is stored once: "SET", "L", "c1#1"
// repeat thousands of times), its numbers, and its payload, when it has one, in a
// side table. It holds no pointer, so the garbage collector never scans the
// message table, and it is less than half a Message's size. Trace.Msg rebuilds
// the Message; its text is made only when a reader asks (Message.String).
type msgRec struct {
	nums                 [2]int64
	id                   uint64
	op, key, value, opts uint32
	body                 int32 // index into Trace.bodies, or -1
	flags                uint8 // recShown0, recShown1, recBackground
}

const (
	recShown0 uint8 = 1 << iota
	recShown1
	recBackground
)

// message rebuilds message i into m.
func (t *Trace) message(i int32, m *Message) {
	r := t.msgs.at(int(i))
	// Field by field, every field: m may hold an earlier message.
	m.Op, m.Key, m.Value, m.Opts = t.strs.str(r.op), t.strs.str(r.key), t.strs.str(r.value), t.strs.str(r.opts)
	m.ID, m.nums, m.shown = r.id, r.nums, [2]bool{r.flags&recShown0 != 0, r.flags&recShown1 != 0}
	m.Background, m.Body = r.flags&recBackground != 0, nil
	if r.body >= 0 {
		m.Body = *t.bodies.at(int(r.body))
	}
}

// The trace's tables grow only through these, which keep its memory estimate.

func (t *Trace) addEvent(ev *Event) int {
	t.bytes += eventBytes // the estimate of the public Event: the same limits as before
	pack(ev, t.events.grow())
	i := t.events.len() - 1
	if ev.Action >= 0 {
		if t.actionOf == nil {
			t.actionOf = map[int32]int32{}
		}
		t.actionOf[int32(i)] = ev.Action
	}
	return i
}

func (t *Trace) addMsg(m *Message) int32 {
	r := t.msgs.grow() // filled in place, every field
	r.nums, r.id, r.body, r.flags = m.nums, m.ID, -1, 0
	r.op, r.key, r.value, r.opts = t.strs.id(m.Op), t.strs.id(m.Key), t.strs.id(m.Value), t.strs.id(m.Opts)
	if m.shown[0] {
		r.flags |= recShown0
	}
	if m.shown[1] {
		r.flags |= recShown1
	}
	if m.Background {
		r.flags |= recBackground
	}
	if m.Body != nil {
		r.body = int32(t.bodies.add(m.Body))
	}
	t.countMsg(m)
	return int32(t.msgs.len() - 1)
}

// countMsg adds a message to the memory estimate. It counts every message's
// words at full length, shared or not, so that a run that keeps no messages
// (Config.CheckerOnly) makes the same estimate, and stops at the same limit.
func (t *Trace) countMsg(m *Message) {
	t.bytes += msgSize(m)
}

// internNote numbers a note: notes repeat ("partition", timer names).
func (t *Trace) internNote(s string) int32 {
	n := len(t.strs.strs)
	id := t.strs.id(s)
	if len(t.strs.strs) > n {
		t.bytes += internedBytes + int64(len(s))
	}
	return int32(id)
}

// addString stores a snapshot: each is its own.
func (t *Trace) addString(s string) int32 {
	t.bytes += strBytes + int64(len(s))
	return int32(t.strs.add(s))
}

// Name returns a process's name, or "-" for NoProc.
func (t *Trace) Name(p ProcID) string {
	if p >= 0 && int(p) < len(t.Names) {
		return t.Names[p]
	}
	return "-"
}

// WriteText writes the trace's one text form: one line per event, each followed by
// the observations its step emitted. The hash is made from it.
func (t *Trace) WriteText(w io.Writer) error { return t.write(w, false, 0, 0) }

// WriteNarrated is WriteText with each scenario step's narration above its event,
// as `locksim run` prints it. With head > 0 a long trace shows only its first head
// and last tail events, and says how many it left out.
func (t *Trace) WriteNarrated(w io.Writer, head, tail int) error { return t.write(w, true, head, tail) }

// obsIndent is the start of an observation's line under its event's.
const obsIndent = "                                                    = "

// pad writes s padded with spaces to width runes, on the left (right-aligned)
// or, with left, after it, as fmt's %*s and %-*s do.
func pad(w *bufio.Writer, s string, width int, left bool) {
	n := width - utf8.RuneCountInString(s)
	if !left {
		for ; n > 0; n-- {
			w.WriteByte(' ')
		}
	}
	w.WriteString(s)
	if left {
		for ; n > 0; n-- {
			w.WriteByte(' ')
		}
	}
}

func (t *Trace) write(w io.Writer, narrate bool, head, tail int) error {
	bw := bufio.NewWriter(w)
	oi := 0
	told := map[int32]bool{}
	for i := 0; i < t.Len(); i++ {
		if head > 0 && i == head && t.Len() > head+tail {
			skip := t.Len() - tail - head
			fmt.Fprintf(bw, "          ... %d events left out (locksim run --full shows them) ...\n", skip)
			i += skip
			for oi < t.NumObs() && t.ObsEvent(oi) < i {
				oi++
			}
		}
		e := t.Event(i)
		if a := e.Action; narrate && a >= 0 && int(a) < len(t.Actions) && !told[a] && t.Actions[a].Narration != "" {
			told[a] = true
			for _, l := range Wrap(t.Actions[a].Narration, 76) {
				fmt.Fprintf(bw, "          # %s\n", l)
			}
		}
		local := ""
		if e.Proc >= 0 {
			local = e.Local.String()
		}
		// "%10s  %-8s %-28s %s\n", written without fmt: the trace's hash writes
		// every event this way, and fmt was most of a long run's hashing.
		pad(bw, e.At.String(), 10, false)
		bw.WriteString("  ")
		pad(bw, t.Name(e.Proc), 8, true)
		bw.WriteByte(' ')
		pad(bw, local, 28, true)
		bw.WriteByte(' ')
		bw.WriteString(t.EventText(i))
		bw.WriteByte('\n')
		for oi < t.NumObs() && t.ObsEvent(oi) == i {
			o := t.Observation(oi)
			bw.WriteString(obsIndent) // "%10s  %-8s %-28s   = " of three empty strings
			bw.WriteString(t.ObsText(&o))
			bw.WriteByte('\n')
			oi++
		}
	}
	return bw.Flush()
}

// Wrap breaks text into lines of at most width runes at spaces, keeping blank
// lines between paragraphs.
func Wrap(text string, width int) []string {
	var out []string
	for i, para := range strings.Split(text, "\n\n") {
		if i > 0 {
			out = append(out, "")
		}
		line := ""
		for _, w := range strings.Fields(para) {
			if line != "" && len([]rune(line))+1+len([]rune(w)) > width {
				out = append(out, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		if line != "" {
			out = append(out, line)
		}
	}
	return out
}

// ObsText is an observation's one text form.
func (t *Trace) ObsText(o *Observation) string {
	who := t.Name(o.Client)
	switch o.Kind {
	case ObsAttempt:
		return who + " tries to acquire " + o.Lock
	case ObsAttemptFailed:
		return who + " failed to acquire " + o.Lock + " (" + o.Reason + ")"
	case ObsGiveUp:
		return who + " gives up on " + o.Lock
	case ObsBeliefStart:
		s := who + " believes it holds " + o.Lock + " as " + o.Grant
		if o.HasToken {
			s += fmt.Sprintf(" with fencing token %d", o.Token)
		}
		if o.Window > 0 {
			s += ", valid for " + FormatDuration(o.Window) + " by its clock"
		}
		return s
	case ObsBeliefEnd:
		return who + " no longer believes it holds " + o.Lock + " (" + o.Reason + ")"
	case ObsGrant:
		s := t.serviceName(o) + " grants " + o.Lock + " to " + who + " as " + o.Grant
		if o.Value > 0 {
			// Reason qualifies a claim that is not a majority (a client that
			// counts fewer nodes as enough).
			how := "a majority"
			if o.Reason != "" {
				how = o.Reason
			}
			s = who + " wins " + o.Lock + " as " + o.Grant + " on " + o.Text + " (" + how + ")"
		}
		if o.Window > 0 {
			return s + " for " + FormatDuration(o.Window)
		}
		if o.HasToken {
			s += fmt.Sprintf(" (token %d)", o.Token)
		}
		switch {
		case o.Value == 0 && o.Text != "": // how long it lasts: "until its transaction ends"
			return s + " " + o.Text
		case o.HasToken: // a ZooKeeper node, an etcd key: it lives with the owner's session
			return s + " while its session lives"
		}
		return s + " with no expiry"
	case ObsGrantEnd:
		s := t.serviceName(o) + " withdraws " + who + "'s grant of " + o.Lock + " (" + o.Reason
		if o.Text != "" {
			s += ": " + o.Text
		}
		if o.By != NoProc && o.By != o.Client && o.By != o.Proc && o.Reason != ReasonExpired {
			s += " by " + t.Name(o.By)
		}
		return s + ")"
	case ObsStored:
		return t.Name(o.Proc) + " stores " + o.Lock + " = " + o.Grant
	case ObsRemoved:
		return t.Name(o.Proc) + " removes " + o.Lock + " = " + o.Grant + " (" + o.Reason + ")"
	case ObsResource:
		verb := "accepts"
		if !o.Accepted {
			verb = "REJECTS"
		}
		s := t.Name(o.Proc) + " " + verb + " " + o.Op + " by " + who + " under " + o.Grant
		if o.Lock != "" {
			s += " of " + o.Lock
		}
		if o.HasToken {
			s += fmt.Sprintf(" token %d", o.Token)
		}
		if o.Name != "" {
			s += " in update " + o.Name
		}
		if o.Text != "" {
			s += " (" + o.Text + ")"
		}
		return s
	case ObsMetric:
		return fmt.Sprintf("metric %s = %d", o.Name, o.Value)
	case ObsCounter:
		return fmt.Sprintf("counter %s += %d", o.Name, o.Value)
	case ObsNote:
		return o.Text
	case ObsBegin:
		if o.Grant != "" {
			return fmt.Sprintf("%s proposes %s for %s", t.Name(o.Proc), o.Grant, o.Lock)
		}
		return fmt.Sprintf("%s begins transaction %s with %d participants", t.Name(o.Proc), o.Lock, o.Value)
	case ObsVote:
		return fmt.Sprintf("%s votes %s on %s", t.Name(o.Proc), o.Name, o.Lock)
	case ObsDecide:
		s := fmt.Sprintf("%s decides %s %s", t.Name(o.Proc), strings.ToUpper(o.Name), o.Lock)
		if o.Text != "" {
			s += " (" + o.Text + ")"
		}
		return s
	case ObsAccepted:
		return fmt.Sprintf("%s accepts %s under proposal %d for %s", t.Name(o.Proc), o.Grant, o.Token, o.Lock)
	case ObsJobStart:
		if o.Window <= 0 {
			return fmt.Sprintf("%s starts job %s", who, o.Lock)
		}
		return fmt.Sprintf("%s starts job %s for bucket %d (period %s, by its clock)", who, o.Lock, o.Value,
			FormatDuration(o.Window))
	}
	return o.Kind.String()
}

// serviceName names who grants: the node, and the service it stands for when
// that differs (a promoted replica grants for its old master's service).
func (t *Trace) serviceName(o *Observation) string {
	if n := t.Name(o.Proc); o.Service != "" && o.Service != n {
		return n + " (for " + o.Service + ")"
	}
	return t.Name(o.Proc)
}

// Hash is the SHA-256 of the trace's text form: equal hashes, equal runs.
func (t *Trace) Hash() string {
	h := sha256.New()
	t.WriteText(h)
	fmt.Fprintf(h, "end %d %s\n", t.End, t.EndReason)
	return hex.EncodeToString(h.Sum(nil))
}

// EndDuration is the run's end as a duration since the start.
func (t *Trace) EndDuration() time.Duration { return time.Duration(t.End) }
