package sim

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// Values on the wire (issue 18): a payload that holds memory is copied whenever
// a message changes hands, so a sender that changes it after sending, or a
// receiver that changes what it got, changes nothing anyone else sees: not the
// other deliveries of a duplicated message, not the disk, not the trace.

// box is a payload behind a pointer, with a Clone.
type box struct{ v string }

func (b *box) Clone() any     { c := *b; return &c }
func (b *box) String() string { return b.v }

// boxer sends and writes boxes and changes them afterwards; it reports each box
// it receives or recovers, then changes that too.
type boxer struct{ sent, written *box }

func newBoxer(Env) Process { return &boxer{} }

func (p *boxer) Step(now LocalTime, in Input, out *Outputs) {
	note := func(s string) { out.Observe(Observation{Kind: ObsNote, Client: NoProc, By: NoProc, Text: s}) }
	switch in.Kind {
	case InCommand:
		switch in.Msg.Op {
		case "send":
			p.sent = &box{"as sent"}
			out.Send(ProcID(in.Msg.Num(argTo)), Message{Op: "box", Body: p.sent})
			p.sent.v = "changed by the sender in the same step"
			out.SetTimer(1, time.Millisecond)
		case "write":
			p.written = &box{"as written"}
			out.Write(Message{Op: "box", Body: p.written})
			p.written.v = "changed after writing"
		}
	case InTimer:
		p.sent.v = "changed by the sender a step later"
	case InMessage:
		note("got " + in.Msg.Body.(*box).v)
		in.Msg.Body.(*box).v = "changed by the receiver"
	case InRestart:
		for _, r := range in.Disk {
			note("recovered " + r.Body.(*box).v)
			r.Body.(*box).v = "changed after recovery"
		}
	}
}

func (p *boxer) Describe() string { return "" }

func TestAPayloadChangedAfterSendingChangesNothingSent(t *testing.T) {
	w := NewWorld(Config{Seed: 1})
	a := w.AddProcess("a", "test", Clock{}, newBoxer)
	b := w.AddProcess("b", "test", Clock{}, newBoxer)
	// Every message is delivered twice, 5 ms after it is sent: the sender's
	// changes come first, and the receiver changes the first copy before the
	// second arrives.
	w.Network().SetDefault(Link{Delay: 5 * time.Millisecond, Dup: 1})
	w.Schedule(0, Action{Kind: ActCommand, Proc: a, Msg: Message{Op: "send"}.With(argTo, int64(b))})
	tr := w.Run()
	if got, want := notes(tr), []string{"got as sent", "got as sent"}; !slices.Equal(got, want) {
		t.Errorf("the receiver saw %q, want %q: a delivery shared the payload with the sender or with the other delivery", got, want)
	}
	sends := 0
	for i := range tr.Len() {
		e := tr.Event(i)
		if e.Kind != EvSend && e.Kind != EvDeliver {
			continue
		}
		sends++
		if got := tr.Msg(e).String(); got != "box as sent" {
			t.Errorf("the trace shows %s %q, want %q", e.Kind, got, "box as sent")
		}
	}
	if sends != 3 {
		t.Fatalf("%d send and delivery events, want a send and two deliveries", sends)
	}
}

func TestAPayloadChangedAfterWritingChangesNothingOnDisk(t *testing.T) {
	w := NewWorld(Config{Seed: 1})
	a := w.AddProcess("a", "test", Clock{}, newBoxer)
	w.Schedule(0, Action{Kind: ActCommand, Proc: a, Msg: Message{Op: "write"}})
	for _, at := range []time.Duration{time.Second, 2 * time.Second} {
		w.Schedule(Time(at), Action{Kind: ActCrash, Proc: a})
		w.Schedule(Time(at+time.Millisecond), Action{Kind: ActRestart, Proc: a})
	}
	// Both restarts read the record as written: neither the writer's change nor
	// what the first recovery did to its copy reached the disk.
	if got, want := notes(w.Run()), []string{"recovered as written", "recovered as written"}; !slices.Equal(got, want) {
		t.Errorf("recovered %q, want %q", got, want)
	}
}

// A payload that would be shared and has no Clone is a protocol's bug: the
// kernel refuses it when it is sent, naming the type and the fix. A plain value
// needs no Clone.
func TestASharedPayloadWithoutCloneIsRefused(t *testing.T) {
	type plainValue struct {
		N    int
		S    string
		Pair [2]int64
	}
	for _, tc := range []struct {
		body any
		ok   bool
	}{
		{plainValue{1, "x", [2]int64{1, 2}}, true},
		{"a string", true},
		{&plainValue{}, false},
		{[]string{"a"}, false},
		{map[string]int{}, false},
		{struct{ P *int }{}, false},
	} {
		func() {
			defer func() {
				r := recover()
				msg, _ := r.(string)
				switch {
				case tc.ok && r != nil:
					t.Errorf("%T was refused: %v", tc.body, r)
				case !tc.ok && r == nil:
					t.Errorf("%T was sent without a Clone: the receiver would share it", tc.body)
				case !tc.ok && !strings.Contains(msg, "sim.Cloner"):
					t.Errorf("%T refused with %q, which does not say how to fix it", tc.body, msg)
				}
			}()
			var out Outputs
			out.Send(0, Message{Op: "x", Body: tc.body})
		}()
	}
}
