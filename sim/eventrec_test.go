package sim

import (
	"reflect"
	"testing"
	"time"
)

// The stored event record is what makes the trace compact (issue 21): it must
// stay small, and every Event must come back from it exactly as recorded.
func TestTheEventRecordIsSmallAndGivesBackTheEvent(t *testing.T) {
	if n := reflect.TypeFor[eventRec]().Size(); n > 56 {
		t.Errorf("eventRec is %d bytes, want at most 56", n)
	}
	tr := &Trace{}
	want := []Event{
		{At: 5, Local: LocalTime{Wall: -3, Mono: 7}, Dur: time.Second, MsgID: 1<<32 - 1, Kind: EvSend, Proc: 1, Peer: 2, Action: -1, msg: 4, note: -1, state: -1},
		{At: 6, Kind: EvTimer, Timer: 1<<63 + 9, Proc: 3, Peer: NoProc, Action: -1, msg: -1, note: 2, state: -1, Background: true},
		{At: 7, Kind: EvPause, Dur: -time.Hour, Proc: 0, Peer: NoProc, Action: 11, msg: -1, note: -1, state: -1},
		{At: 8, Kind: EvDeliver, MsgID: 3, Proc: 2, Peer: 1, Action: -1, msg: 4, note: -1, state: -1},
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
