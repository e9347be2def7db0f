package lockkit

import (
	"time"

	"github.com/locksim/locksim/sim"
)

// Detect is how a Keepalive decides that its server is lost.
type Detect uint8

const (
	// Unanswered: the server is lost once a heartbeat has gone unanswered for
	// Timeout, judged each time the heartbeat timer fires. With Timeout equal to
	// the Period, a heartbeat still unanswered at the next one (the etcd
	// client's failover); with twice the Period, a ping unanswered for two
	// periods (a database connection's keepalive).
	Unanswered Detect = iota
	// Silence: the server is lost once nothing at all has come from it for
	// Timeout, judged the moment that passes, by a deadline timer that every
	// message heard re-arms (ZooKeeper's read timeout: 2/3 of the session
	// timeout, with a ping every 1/3, so a live server always answers in time).
	Silence
)

// Keepalive is a client's side of a session: a heartbeat every Period, sent as
// background traffic, and a failure detector that says when the server is lost.
// What the heartbeat says, what counts as hearing from the server, and what the
// client does once the server is lost (fail over, reconnect, give its lock up)
// are the client's; the pace and the judgment are the same for every client.
//
// Set the fields when the process is built. The timers are the client's: it
// names them, and passes their firings to Beat (Heartbeat) and handles the
// Deadline's firing as a lost server itself.
type Keepalive struct {
	Detect    Detect        // how a lost server is judged
	Period    time.Duration // a heartbeat every Period
	Timeout   time.Duration // how long an unanswered heartbeat, or a silence, means lost
	Heartbeat sim.TimerID   // the heartbeat timer
	Deadline  sim.TimerID   // Silence: the deadline timer; it fires when the server is lost

	waiting bool          // Unanswered: a heartbeat is unanswered
	since   time.Duration // and the monotonic reading when the oldest one went out
}

// Start begins a session, or a new connection: nothing sent before is awaited
// any more; it arms the deadline (Silence), then the heartbeat.
func (k *Keepalive) Start(out *sim.Outputs) {
	k.waiting = false
	if k.Detect == Silence {
		out.SetTimer(k.Deadline, k.Timeout)
	}
	out.SetTimer(k.Heartbeat, k.Period)
}

// Beat handles the heartbeat timer's firing: it re-arms the timer, then reports
// whether the server is lost (Unanswered; Silence judges by its deadline). The
// client then sends its heartbeat with Send, unless it stops.
func (k *Keepalive) Beat(now sim.LocalTime, out *sim.Outputs) (lost bool) {
	out.SetTimer(k.Heartbeat, k.Period)
	return k.Detect == Unanswered && k.waiting && now.Mono-k.since >= k.Timeout
}

// Send sends the heartbeat m to the server, as background traffic.
func (k *Keepalive) Send(now sim.LocalTime, out *sim.Outputs, to sim.ProcID, m sim.Message) {
	out.Send(to, m.InBackground())
	if !k.waiting {
		k.waiting, k.since = true, now.Mono
	}
}

// Heard says the server answered: a heartbeat's answer (Unanswered), or any
// message at all (Silence, which re-arms its deadline).
func (k *Keepalive) Heard(out *sim.Outputs) {
	k.waiting = false
	if k.Detect == Silence {
		out.SetTimer(k.Deadline, k.Timeout)
	}
}

// Lost says the client has given up on its connection (it fails over, or will
// reconnect): nothing sent on it is awaited any more, and the deadline is
// disarmed until the next Start. The heartbeat keeps its pace.
func (k *Keepalive) Lost(out *sim.Outputs) {
	k.waiting = false
	if k.Detect == Silence {
		out.CancelTimer(k.Deadline)
	}
}

// Stop ends the session: nothing is awaited, and both timers are disarmed.
func (k *Keepalive) Stop(out *sim.Outputs) {
	k.waiting = false
	out.CancelTimer(k.Heartbeat)
	if k.Detect == Silence {
		out.CancelTimer(k.Deadline)
	}
}
