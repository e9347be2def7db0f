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
