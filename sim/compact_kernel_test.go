package sim

import (
	"math/rand/v2"
	"testing"
	"time"
)

// Tests of issue 21's compact kernel against what it replaced (from the review of
// its third pass): the near link table, clock readings recomputed, Recycle.

// A link set for a process the world does not have must not change another
// link. Before the near table (c5c6b68) such an override was a map entry that
// no send ever looked up; with it, (0, 2) in a world of two processes is the
// slot of b->a.
func TestSetLinkOutOfRangeChangesNoOtherLink(t *testing.T) {
	run := func(stray bool) *Trace {
		w, a, b := twoEchoes(Config{Seed: 1})
		if stray {
			w.Network().SetLink(0, 2, Link{Delay: time.Hour})
		}
		w.Schedule(0, cmd(a, "ping", int64(b), 5))
		return w.Run()
	}
	want, got := run(false), run(true)
	if got.Hash() != want.Hash() {
		t.Fatalf("an override for a process that does not exist changed the run: ends at %s, not %s", got.End, want.End)
	}
}

// oldClockAt is ClockAt as it was before 11575b0: replay the clock events.
func oldClockAt(t *Trace, p ProcID, at Time) LocalTime {
	c := t.Clocks[p]
	for i := range t.Len() {
		e := t.Event(i)
		if e.Proc != p || (e.Kind != EvClockJump && e.Kind != EvClockDrift) {
			continue
		}
		if e.At > at {
			break
		}
		if e.Kind == EvClockJump {
			c.Jump(e.Dur)
		} else {
			c.SetDrift(e.At, int64(e.Dur))
		}
	}
	return c.Read(at)
}

// ClockAt reads the clock log as the old replay did, for many random mixes of
// jumps and drift changes, several at one instant; and each event's Local is
// the clock the kernel read (the clock as every change before it, in trace
// order, left it). The old replay is quadratic: seeds 1-10 by default (about
// 1 s on the 2-core machine), 1-40 under -tags long.
func TestClockAtIsTheOldReplay(t *testing.T) {
	t.Parallel()
	seeds := uint64(10)
	if longTests {
		seeds = 40
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		rng := rand.New(rand.NewPCG(seed, 9))
		w := NewWorld(Config{Seed: seed})
		a := w.AddProcess("a", "test", Clock{DriftPPM: int64(rng.IntN(401) - 200)}, newEcho)
		b := w.AddProcess("b", "test", Clock{Offset: time.Second}, newEcho)
		w.Network().SetDefault(Link{Delay: time.Millisecond})
		w.Schedule(0, cmd(a, "ping", int64(b), 200))
		for range 30 {
			at := Time(time.Duration(rng.IntN(40)) * 10 * time.Millisecond)
			p := ProcID(rng.IntN(2))
			if rng.IntN(2) == 0 {
				w.Schedule(at, Action{Kind: ActJump, Proc: p, Dur: time.Duration(rng.IntN(4001)-2000) * time.Millisecond})
			} else {
				w.Schedule(at, Action{Kind: ActDrift, Proc: p, PPM: int64(rng.IntN(4001) - 2000)})
			}
		}
		tr := w.Run()
		for i := range tr.Len() {
			e := tr.Event(i)
			for p := range ProcID(2) {
				for _, at := range []Time{e.At, e.At - 1, e.At + 1, e.At + Time(3*time.Millisecond)} {
					if at < 0 {
						continue
					}
					if g, o := tr.ClockAt(p, at), oldClockAt(tr, p, at); g != o {
						t.Fatalf("seed %d: ClockAt(%d, %s) = %v, the replay gives %v", seed, p, at, g, o)
					}
				}
			}
		}
	}
}

// A world lent by Reuse keeps its near table's memory (World.reset); a next run
// of more than nearProcs processes has no near table, and must not index the
// lent one (in main before review21's fix: index out of range in state).
func TestReusedWorldGrowsPastTheNearTable(t *testing.T) {
	run := func(r *Reuse, procs int) *Trace {
		w := NewWorld(Config{Seed: 1, Reuse: r})
		for i := range procs {
			w.AddProcess(string(rune('a'+i%26))+string(rune('0'+i/26)), "test", Clock{}, newEcho)
		}
		w.Network().SetDefault(Link{Delay: time.Millisecond})
		w.Schedule(0, cmd(0, "ping", 1, 5))
		return w.Run()
	}
	r := NewReuse()
	run(r, 2).Recycle()
	want := run(nil, nearProcs+1)
	got := run(r, nearProcs+1)
	if got.Hash() != want.Hash() {
		t.Fatalf("a reused world of %d processes made another run", nearProcs+1)
	}
}

// Recycling a trace twice gives nothing back twice: the next run in the
// Reuse is still the run in fresh memory.
func TestRecycleTwice(t *testing.T) {
	run := func(r *Reuse, seed uint64) *Trace {
		w, a, b := twoEchoes(Config{Seed: seed, Reuse: r, Snapshots: true})
		w.Schedule(0, cmd(a, "ping", int64(b), 300))
		return w.Run()
	}
	r := NewReuse()
	tr := run(r, 2)
	tr.Recycle()
	tr.Recycle()
	want := run(nil, 1)
	if got := run(r, 1); got.Hash() != want.Hash() {
		t.Fatal("a run after a trace recycled twice differs from the run in fresh memory")
	}
}
