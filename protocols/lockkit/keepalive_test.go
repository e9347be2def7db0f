package lockkit_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/sim"
)

// Tests of the session keepalive: the heartbeat's pace, and when each detector
// calls the server lost. Sources: ZooKeeper's ClientCnxn (a ping after 1/3 of
// the session timeout without sending, the connection lost after 2/3 without
// hearing anything); etcd's clientv3 lease keepalive (every TTL/3).

const (
	timerBeat sim.TimerID = iota + 1
	timerSilence
)

// beater keeps a session with its server (process 0): "start" (re)starts it,
// "stop" ends it. It notes "lost" when its detector says so, gives the
// connection up and keeps beating.
type beater struct {
	ka lockkit.Keepalive
}

func (c *beater) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InCommand:
		if in.Msg.Op == "start" {
			c.ka.Start(out)
		} else {
			c.ka.Stop(out)
		}
	case sim.InTimer:
		if in.Timer == timerSilence || c.ka.Beat(now, out) {
			out.Observe(sim.Note(1, "lost"))
			c.ka.Lost(out)
		}
		if in.Timer == timerBeat {
			c.ka.Send(now, out, 0, sim.Message{Op: "HEARTBEAT"})
		}
	case sim.InMessage:
		c.ka.Heard(out)
	}
}

func (c *beater) Describe() string { return "" }

// echo answers every heartbeat.
type echo struct{}

func (echo) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	if in.Kind == sim.InMessage {
		out.Send(in.From, sim.Message{Op: "ACK"})
	}
}

func (echo) Describe() string { return "" }

// session runs the server s (process 0) and a beater c (process 1) with ka over
// 1 ms links: the session starts at 0; the server's messages to the client are
// lost from cut on (0: never, "heal" ends it); the commands run at their
// times. It returns the
// times the client called the server lost, and when it sent heartbeats.
func session(ka lockkit.Keepalive, cut time.Duration, until time.Duration, cmds ...command) (lost, beats []time.Duration) {
	w := sim.NewWorld(sim.Config{Seed: 1})
	s := w.AddProcess("s", "server", sim.Clock{}, func(sim.Env) sim.Process { return echo{} })
	c := w.AddProcess("c", "client", sim.Clock{}, func(sim.Env) sim.Process {
		k := ka
		k.Heartbeat, k.Deadline = timerBeat, timerSilence
		return &beater{ka: k}
	})
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	w.Schedule(0, sim.Action{Kind: sim.ActCommand, Proc: c, Msg: sim.Message{Op: "start"}})
	if cut > 0 {
		w.Schedule(sim.Time(cut), sim.Action{Kind: sim.ActPartition, A: []sim.ProcID{s}, B: []sim.ProcID{c}, OneWay: true})
	}
	for _, cmd := range cmds {
		a := sim.Action{Kind: sim.ActCommand, Proc: c, Msg: sim.Message{Op: cmd.op}}
		if cmd.op == "heal" {
			a = sim.Action{Kind: sim.ActHeal}
		}
		w.Schedule(sim.Time(cmd.at), a)
	}
	w.Schedule(sim.Time(until), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	tr := w.Run()
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsNote && o.Text == "lost" {
			lost = append(lost, time.Duration(o.At))
		}
	}
	for i := range tr.Len() {
		if e := tr.Event(i); e.Kind == sim.EvSend && e.Proc == c {
			if !tr.Msg(e).Background {
				panic("a heartbeat went out as foreground traffic")
			}
			beats = append(beats, time.Duration(e.At))
		}
	}
	return lost, beats
}

func secs(ds []time.Duration) string { return fmt.Sprint(ds) }

// A server that answers is never lost, and the heartbeat keeps its period.
func TestAnAnsweringServerIsNeverLost(t *testing.T) {
	for _, ka := range []lockkit.Keepalive{
		{Detect: lockkit.Unanswered, Period: time.Second, Timeout: time.Second},
		{Detect: lockkit.Unanswered, Period: time.Second, Timeout: 2 * time.Second},
		{Detect: lockkit.Silence, Period: time.Second, Timeout: 2 * time.Second},
	} {
		lost, beats := session(ka, 0, 10500*time.Millisecond)
		if len(lost) != 0 || len(beats) != 10 || beats[0] != time.Second || beats[9] != 10*time.Second {
			t.Errorf("%+v: lost at %s, beats at %s; want never lost, a beat every second", ka, secs(lost), secs(beats))
		}
	}
}

// Unanswered judges at each heartbeat: the server is lost once a heartbeat has
// gone unanswered for Timeout. Timeout = Period: a heartbeat still unanswered
// at the next one (etcd); 2 × Period: two periods (a database's keepalive).
func TestUnansweredCountsFromTheFirstUnansweredHeartbeat(t *testing.T) {
	for _, tc := range []struct {
		timeout time.Duration
		want    time.Duration
	}{
		{time.Second, 4 * time.Second},     // the beat at 3 s is unanswered at 4 s
		{2 * time.Second, 5 * time.Second}, // and for two periods at 5 s
	} {
		lost, _ := session(lockkit.Keepalive{Detect: lockkit.Unanswered, Period: time.Second, Timeout: tc.timeout}, 2500*time.Millisecond, 5500*time.Millisecond)
		if len(lost) == 0 || lost[0] != tc.want {
			t.Errorf("timeout %s: lost at %s, want first at %s", tc.timeout, secs(lost), tc.want)
		}
	}
}

// Silence judges the moment the server has been silent for Timeout, between
// heartbeats, and the heartbeat keeps its pace after the loss.
func TestSilenceJudgesAtTheDeadline(t *testing.T) {
	// The last answer (to the beat at 2 s) arrives at 2.002 s.
	lost, beats := session(lockkit.Keepalive{Detect: lockkit.Silence, Period: time.Second, Timeout: 2 * time.Second}, 2500*time.Millisecond, 6500*time.Millisecond)
	if len(lost) != 1 || lost[0] != 4002*time.Millisecond {
		t.Fatalf("lost at %s, want once, at 4.002s", secs(lost))
	}
	if len(beats) != 6 {
		t.Fatalf("beats at %s, want one every second to the end", secs(beats))
	}
}

// A new session (or connection) forgets what the last one left unanswered:
// its first heartbeat is judged on its own.
func TestStartForgetsAnUnansweredHeartbeat(t *testing.T) {
	// The beat at 1 s is unanswered; the session restarts at 1.5 s, after the
	// cut is healed, and beats at 2.5 s, 3.5 s, ...
	ka := lockkit.Keepalive{Detect: lockkit.Unanswered, Period: time.Second, Timeout: time.Second}
	lost, beats := session(ka, 500*time.Millisecond, 5*time.Second, command{1400 * time.Millisecond, "heal"}, command{1500 * time.Millisecond, "start"})
	if len(lost) != 0 || len(beats) != 4 || beats[1] != 2500*time.Millisecond {
		t.Fatalf("lost at %s, beats at %s; want never lost, beats at 1s, then 2.5s, 3.5s, 4.5s", secs(lost), secs(beats))
	}
}

// Stop ends the heartbeat.
func TestStopEndsTheHeartbeat(t *testing.T) {
	_, beats := session(lockkit.Keepalive{Detect: lockkit.Silence, Period: time.Second, Timeout: 2 * time.Second}, 0, 5*time.Second,
		command{2500 * time.Millisecond, "stop"})
	if len(beats) != 2 {
		t.Fatalf("beats at %s, want two, then none after the stop", secs(beats))
	}
}
