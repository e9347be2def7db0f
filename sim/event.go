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
)

var eventNames = [...]string{
	EvStart: "start", EvSend: "send", EvDeliver: "deliver", EvDrop: "drop", EvTimer: "timer",
	EvCommand: "command", EvCrash: "crash", EvPowerLoss: "power-loss", EvShutdown: "shutdown",
	EvRestart: "restart", EvPause: "pause", EvResume: "resume", EvClockJump: "clock-jump",
	EvClockDrift: "clock-drift", EvPartition: "partition", EvHeal: "heal", EvEnd: "end",
}

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
		EvClockDrift, EvPartition, EvHeal:
		return true
	}
	return false
}

// Event is one row of the trace: what happened, where, at which true time, and what
// the process's own clock read then.
type Event struct {
	At     Time
	Proc   ProcID // where it happens (NoProc for network-wide events)
	Peer   ProcID // the other end of a message, or NoProc
	Kind   EventKind
	Local  LocalTime // Proc's clock reading at At
	Msg    Message
	MsgID  uint64 // pairs a send with its delivery or drop
	Timer  TimerID
	Dur    time.Duration // send: delay; pause: length; clock jump: delta
	Note   string
	Action int32  // index into Trace.Actions of the scenario action behind it, or -1
	State  string // snapshot of Proc after this step, when snapshots are on
}

// Text is the event's one text form, with process names resolved.
func (e *Event) Text(names []string) string {
	name := func(p ProcID) string {
		if p >= 0 && int(p) < len(names) {
			return names[p]
		}
		return "-"
	}
	var b strings.Builder
	b.WriteString(e.Kind.String())
	switch e.Kind {
	case EvSend:
		b.WriteString(" " + name(e.Proc) + "->" + name(e.Peer) + " " + e.Msg.String())
		b.WriteString(" (arrives in " + FormatDuration(e.Dur) + ")")
	case EvDeliver:
		b.WriteString(" " + name(e.Peer) + "->" + name(e.Proc) + " " + e.Msg.String())
	case EvDrop:
		b.WriteString(" " + name(e.Peer) + "->" + name(e.Proc) + " " + e.Msg.String())
	case EvTimer:
		b.WriteString(" " + name(e.Proc))
		if e.Note == "" {
			b.WriteString(fmt.Sprintf(" #%d", e.Timer))
		}
	case EvCommand:
		b.WriteString(" " + name(e.Proc) + " " + e.Msg.String())
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
	case EvPartition, EvHeal, EvEnd:
	default:
		b.WriteString(" " + name(e.Proc))
	}
	if e.Note != "" {
		b.WriteString(": " + e.Note)
	}
	return b.String()
}
