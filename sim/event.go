package sim

import (
	"fmt"
	"strings"
	"time"
)

// EventKind names one row of the trace.
type EventKind uint8

const (
	EvStart      EventKind = iota + 1 // a process boots at time 0
	EvSend                            // Proc sends Msg to Peer; Dur is the network delay
	EvDeliver                         // Msg from Peer is delivered to Proc
	EvDrop                            // Msg from Peer to Proc is lost; Note says why
	EvTimer                           // Proc's timer Timer fires
	EvCommand                         // the scenario commands Proc (Msg)
	EvCrash                           // Proc crashes: memory lost, written records survive
	EvPowerLoss                       // Proc's machine loses power: only durable records survive
	EvShutdown                        // Proc shuts down cleanly
	EvRestart                         // Proc starts again from what its disk kept
	EvPause                           // Proc stops (GC, SIGSTOP) for Dur (0: until resumed)
	EvResume                          // Proc runs again and handles what queued meanwhile
	EvClockJump                       // Proc's wall clock jumps by Dur
	EvClockDrift                      // Proc's clock drift changes (Note)
	EvPartition                       // links are cut (Note names the sides)
	EvHeal                            // every cut link is restored
	EvEnd                             // the run ends (Note says why)
	EvLink                            // links change behaviour (Note says which and how)
	EvNote                            // the scenario's note: its Action's narration belongs here
)

var eventNames = [...]string{
	EvStart: "start", EvSend: "send", EvDeliver: "deliver", EvDrop: "drop", EvTimer: "timer",
	EvCommand: "command", EvCrash: "crash", EvPowerLoss: "power-loss", EvShutdown: "shutdown",
	EvRestart: "restart", EvPause: "pause", EvResume: "resume", EvClockJump: "clock-jump",
	EvClockDrift: "clock-drift", EvPartition: "partition", EvHeal: "heal", EvEnd: "end", EvLink: "link",
	EvNote: "note",
}

// String is the kind's name in the log and the JSON output: "deliver", "timer".
func (k EventKind) String() string {
	if int(k) < len(eventNames) && eventNames[k] != "" {
		return eventNames[k]
	}
	return "event?"
}

// IsFault reports whether the event is a fault a scenario injected.
func (k EventKind) IsFault() bool {
	switch k {
	case EvCrash, EvPowerLoss, EvShutdown, EvRestart, EvPause, EvResume, EvClockJump,
		EvClockDrift, EvPartition, EvHeal, EvLink:
		return true
	}
	return false
}

// Event is one row of the trace: what happened, where, at which true time, and what
// the process's own clock read then. It holds no pointers (its message, note and
// state live in the trace's side tables), so recording millions of them costs the
// garbage collector nothing; read those through the Trace.
type Event struct {
	At     Time          // true time
	Local  LocalTime     // Proc's clock reading at At
	Dur    time.Duration // a pause's length, a clock jump's size
	MsgID  uint64        // pairs a send with its delivery or drop
	Timer  TimerID       // EvTimer: which timer fired
	Proc   ProcID        // where it happens (NoProc for network-wide events)
	Peer   ProcID        // the other end of a message, or NoProc
	Action int32         // index into Trace.Actions of the scenario action behind it, or -1
	msg    int32         // index into the trace's messages, or -1
	note   int32         // index into the trace's strings, or -1
	state  int32         // index into the trace's strings, or -1
	Kind   EventKind     // what happened
	// Background marks a timer the process declared background (BackgroundTimers);
	// a message's own mark is Message.Background. Trace.Background reads both.
	Background bool
}

// HasMsg reports whether the event carries a message.
func (e Event) HasMsg() bool { return e.msg >= 0 }

// EventText is event i's one text form, with process names resolved.
func (t *Trace) EventText(i int) string {
	e := t.Event(i)
	name := t.Name
	msg := t.Msg(e)
	note := t.Note(e)
	var b strings.Builder
	b.WriteString(e.Kind.String())
	switch e.Kind {
	case EvSend:
		b.WriteString(" " + name(e.Proc) + "->" + name(e.Peer) + " " + msg.String())
		if note == "" && e.Dur >= 0 {
			b.WriteString(" (arrives in " + FormatDuration(e.Dur) + ")")
		}
	case EvDeliver, EvDrop:
		b.WriteString(" " + name(e.Peer) + "->" + name(e.Proc) + " " + msg.String())
	case EvTimer:
		b.WriteString(" " + name(e.Proc))
		if note == "" {
			b.WriteString(fmt.Sprintf(" #%d", e.Timer))
		}
	case EvCommand:
		b.WriteString(" " + name(e.Proc) + " " + msg.String())
	case EvPause:
		b.WriteString(" " + name(e.Proc))
		if e.Dur > 0 {
			b.WriteString(" for " + FormatDuration(e.Dur))
		}
	case EvClockJump:
		sign := "+"
		if e.Dur < 0 {
			sign = ""
		}
		b.WriteString(" " + name(e.Proc) + " wall " + sign + FormatDuration(e.Dur))
	case EvPartition, EvHeal, EvEnd, EvLink:
	case EvNote: // its text is narration, kept with the action: rewording it changes no run
		if e.Proc >= 0 {
			b.WriteString(" " + name(e.Proc))
		}
	default:
		b.WriteString(" " + name(e.Proc))
	}
	if note != "" {
		b.WriteString(": " + note)
	}
	return b.String()
}

// Notes the kernel writes on fault events that did nothing; the checker reads them.
const (
	NoteAlreadyDown = "already down"
	NoteNotRunning  = "not running"
)

// NoteRecovers is the note on a restart: how many records the process read
// back from its disk (fmt verb: the count). A reader that wants to say whether
// a process came back empty (the explorer's narration) scans it with fmt.Sscanf.
const NoteRecovers = "recovers %d records from disk"
