package sim

import (
	"reflect"
	"testing"
	"time"
)

// The stored event record is what makes the trace compact (issue 21): it must
// stay small, and every Event must come back from it exactly as recorded.
func TestTheEventRecordIsSmallAndGivesBackTheEvent(t *testing.T) {
	if n := reflect.TypeFor[eventRec]().Size(); n > 40 {
		t.Errorf("eventRec is %d bytes, want at most 40", n)
	}
	tr := &Trace{Clocks: []Clock{{}, {Offset: -10, DriftPPM: 100}, {}, {Offset: time.Hour}}}
	want := []Event{
		{At: 5, Local: LocalTime{Wall: -5, Mono: 5}, Dur: time.Second, MsgID: 1<<32 - 1, Kind: EvSend, Proc: 1, Peer: 2, Action: -1, msg: 4, note: -1, state: -1},
		{At: 6, Local: LocalTime{Wall: time.Hour + 6, Mono: 6}, Kind: EvTimer, Timer: 1<<63 + 9, Proc: 3, Peer: NoProc, Action: -1, msg: -1, note: 2, state: -1, Background: true},
		{At: 7, Local: LocalTime{Wall: 7, Mono: 7}, Kind: EvPause, Dur: -time.Hour, Proc: 0, Peer: NoProc, Action: 11, msg: -1, note: -1, state: -1},
		{At: 8, Local: LocalTime{Wall: 8, Mono: 8}, Kind: EvDeliver, MsgID: 3, Proc: 2, Peer: 1, Action: -1, msg: 4, note: -1, state: -1},
	}
	for _, e := range want {
		tr.addEvent(&e)
	}
	tr.setState(3, "held")
	want[3].state = *tr.states.at(3)
	if s := tr.State(tr.Event(3)); s != "held" {
		t.Errorf("event 3's snapshot reads back %q, want %q", s, "held")
	}
	for i, e := range want {
		if got := tr.Event(i); got != e {
			t.Errorf("event %d: stored %+v, read back %+v", i, e, got)
		}
	}
}

// An event keeps the clock reading its process had then, though the record
// stores none: a jump changes the readings of the events after it, not of those
// before it at the same instant (TestTraceClockAtMatchesTheLiveClock checks a
// whole run against the live clocks).
func TestAnEventReadsTheClockAsItWasAtThatEvent(t *testing.T) {
	w, a, b := twoEchoes(Config{Seed: 1})
	w.Schedule(0, cmd(a, "ping", int64(b), 3))
	w.Schedule(Time(2*time.Millisecond), Action{Kind: ActJump, Proc: a, Dur: time.Minute})
	w.Schedule(Time(3*time.Millisecond), Action{Kind: ActDrift, Proc: b, PPM: 50_000})
	tr := w.Run()
	jumped := false
	for i := range tr.Len() {
		e := tr.Event(i)
		if e.Proc != a {
			continue
		}
		if e.Kind == EvClockJump {
			jumped = true
		}
		want := LocalTime{Wall: time.Duration(e.At), Mono: time.Duration(e.At)}
		if jumped {
			want.Wall += time.Minute
		}
		if e.Local != want {
			t.Errorf("event %d (%s at %s): a's clock read %+v, want %+v", i, e.Kind, e.At, e.Local, want)
		}
	}
	if !jumped {
		t.Fatal("the jump never happened")
	}
}

// The stored observation record keeps an observation in under half the space of
// an Observation, with no pointer, and gives every field back.
func TestTheObservationRecordIsSmallAndGivesBackTheObservation(t *testing.T) {
	if n := reflect.TypeFor[obsRec]().Size(); n > 88 {
		t.Errorf("obsRec is %d bytes, want at most 88", n)
	}
	tr := &Trace{}
	want := []Observation{
		{Kind: ObsGrant, At: 5, Event: 2, Proc: 1, Client: 3, By: NoProc, Lock: "L", Service: "redis", Grant: "c1#1",
			Token: -7, HasToken: true, Window: time.Second, Value: 5, Seq: 1 << 40},
		{Kind: ObsResource, At: 6, Event: 3, Proc: 4, Client: 3, By: 2, Lock: "L", Grant: "c1#1", Op: "write",
			Accepted: true, Name: "update-1", Text: "a note", Reason: ReasonExpired, Value: -1},
		{Kind: ObsNote, At: 7, Event: 1 << 30, Proc: 0, Client: NoProc, By: NoProc, Text: "L"},
	}
	for i := range want {
		tr.addObs(&want[i])
	}
	if tr.NumObs() != len(want) {
		t.Fatalf("%d observations stored, want %d", tr.NumObs(), len(want))
	}
	for i, o := range want {
		if got := tr.Observation(i); got != o {
			t.Errorf("observation %d: stored %+v, read back %+v", i, o, got)
		}
		if tr.ObsEvent(i) != o.Event {
			t.Errorf("observation %d: event %d, want %d", i, tr.ObsEvent(i), o.Event)
		}
	}
	if from, to := tr.ObsOf(3); from != 1 || to != 2 {
		t.Errorf("the observations of event 3 are [%d, %d), want [1, 2)", from, to)
	}
}
