package resource_test

import (
	"testing"

	"github.com/locksim/locksim/protocols/resource"
	"github.com/locksim/locksim/sim"
)

// Kleppmann, "How to do distributed locking" (2016): the storage checks fencing
// tokens and rejects any lower than the highest it has seen, reads included.

type client struct{}

func (client) Step(_ sim.LocalTime, in sim.Input, out *sim.Outputs) {
	if in.Kind == sim.InCommand {
		out.Send(0, in.Msg)
	}
}
func (client) Describe() string { return "" }

func accepted(t *testing.T, fencing bool, ops ...sim.Message) []bool {
	t.Helper()
	return acceptedCfg(t, resource.Config{Fencing: fencing}, ops...)
}

func acceptedCfg(t *testing.T, cfg resource.Config, ops ...sim.Message) []bool {
	t.Helper()
	w := sim.NewWorld(sim.Config{})
	w.AddProcess("res", "resource", sim.Clock{}, resource.New(cfg))
	w.AddProcess("c", "client", sim.Clock{}, func(sim.Env) sim.Process { return client{} })
	for i, m := range ops {
		w.Schedule(sim.Time(i), sim.Action{Kind: sim.ActCommand, Proc: 1, Msg: m})
	}
	var got []bool
	for _, o := range w.Run().Observations() {
		if o.Kind == sim.ObsResource {
			got = append(got, o.Accepted)
		}
	}
	return got
}

func op(kind string, token int64) sim.Message {
	m := sim.Message{Op: kind, Key: "res", Value: "g"}
	if token > 0 {
		m = m.With(sim.ArgToken, token)
	}
	return m
}

func TestFencingRejectsLowerTokensReadsIncluded(t *testing.T) {
	got := accepted(t, true, op("read", 33), op("read", 34), op("write", 33), op("write", 34), op("write", 0))
	want := []bool{true, true, false, true, false} // 34's read fences 33; no token, no entry
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("accepted %v, want %v", got, want)
		}
	}
}

func TestWithoutFencingEverythingIsAccepted(t *testing.T) {
	for _, a := range accepted(t, false, op("write", 34), op("write", 33), op("write", 0)) {
		if !a {
			t.Fatal("a resource without token checks rejected an operation")
		}
	}
}

// Kleppmann (2016): a storage that checks tokens on writes only lets a stale
// write through after a newer holder's read, since the read registered nothing.
func TestFencingOnWritesOnlyIgnoresReads(t *testing.T) {
	got := acceptedCfg(t, resource.Config{Fencing: true, WritesOnly: true}, op("read", 34), op("write", 33), op("write", 34), op("write", 33))
	want := []bool{true, true, true, false} // the read fences nothing; the write with 34 does
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("accepted %v, want %v", got, want)
		}
	}
}

// antirez, "Is Redlock safe?" (2016): the storage keeps the lock's value and
// refuses the values it kept before; a value never seen is a new holder's mark.
func TestLockValueCheckAndSet(t *testing.T) {
	v := func(kind, value string) sim.Message { return sim.Message{Op: kind, Key: "res", Value: value} }
	got := acceptedCfg(t, resource.Config{LockValue: true},
		v("read", "c1#1"), v("read", "c2#1"), v("write", "c1#1"), v("write", "c2#1"), v("write", "c3#1"), v("write", ""))
	want := []bool{true, true, false, true, true, false} // c1#1 was replaced; c3#1 is new; no value, no entry
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("accepted %v, want %v", got, want)
		}
	}
}
