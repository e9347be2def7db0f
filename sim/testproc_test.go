package sim

import (
	"fmt"
	"time"
)

// echo is a test process: it answers every "ping" with a "pong", counts what it has
// seen (memory a crash must erase) and can arm timers on command.
type echo struct {
	env      Env
	seen     int
	restored int
}

func newEcho(env Env) Process { return &echo{env: env} }

func (e *echo) Step(now LocalTime, in Input, out *Outputs) {
	switch in.Kind {
	case InRestart:
		e.restored = len(in.Disk)
	case InMessage:
		e.seen++
		switch in.Msg.Op {
		case "ping":
			out.Send(in.From, Message{Op: "pong", ID: in.Msg.ID})
		case "pong":
			if in.Msg.ID > 1 {
				out.Send(in.From, Message{Op: "ping", ID: in.Msg.ID - 1})
			}
		}
	case InCommand:
		switch in.Msg.Op {
		case "ping":
			out.Send(ProcID(in.Msg.Num(argTo)), Message{Op: "ping", ID: uint64(in.Msg.Num(argRally))})
		case "timer":
			out.SetTimer(TimerID(in.Msg.Num(argTimer)), time.Duration(in.Msg.Num(argAfter)))
		case "wall-timer":
			out.SetWallTimer(TimerID(in.Msg.Num(argTimer)), time.Duration(in.Msg.Num(argAfter)))
		case "cancel":
			out.CancelTimer(TimerID(in.Msg.Num(argTimer)))
		case "write":
			out.Write(Message{Op: "rec", Key: in.Msg.Key})
			if in.Msg.Value == "fsync" {
				out.Fsync()
			}
		}
	case InTimer:
		out.Observe(Observation{Kind: ObsNote, Client: NoProc, By: NoProc,
			Text: fmt.Sprintf("timer %d at mono %s wall %s", in.Timer, FormatDuration(now.Mono), FormatDuration(now.Wall))})
	}
}

func (e *echo) Describe() string { return fmt.Sprintf("seen %d restored %d", e.seen, e.restored) }

// The echo process's commands carry two numbers: "ping" a peer and the rally's
// length; "timer", "wall-timer" and "cancel" a timer id and a delay.
const (
	argTo, argRally    = Num1, Num2
	argTimer, argAfter = Num1, Num2
)

// cmd builds a command action for p.
func cmd(p ProcID, op string, n, m int64) Action {
	return Action{Kind: ActCommand, Proc: p, Msg: Message{Op: op}.With(Num1, n).With(Num2, m)}
}

// kinds lists the trace's event kinds, skipping starts.
func kinds(t *Trace) []string {
	var ks []string
	for i := range t.Len() {
		if e := t.Event(i); e.Kind != EvStart {
			ks = append(ks, e.Kind.String())
		}
	}
	return ks
}

func notes(t *Trace) []string {
	var ns []string
	for _, o := range t.Observations() {
		if o.Kind == ObsNote {
			ns = append(ns, o.Text)
		}
	}
	return ns
}
