package sim

import (
	"testing"
	"time"
)

// A world given the memory of earlier traces (Config.Reuse) records the same
// trace as one in fresh memory, whatever the earlier runs held: every entry is
// written before it is read.
func TestARunInReusedMemoryIsTheSameRun(t *testing.T) {
	run := func(cfg Config, rallies int64, cut bool) *Trace {
		w, a, b := twoEchoes(cfg)
		w.Schedule(0, cmd(a, "ping", int64(b), rallies))
		if cut {
			w.Schedule(Time(5*time.Millisecond), Action{Kind: ActPartition, A: []ProcID{a}, B: []ProcID{b}})
		}
		return w.Run()
	}
	r := NewReuse()
	// Earlier runs fill the spare memory with other events, messages, notes and
	// snapshots: a long rally, then one cut by a partition.
	run(Config{Seed: 3, Reuse: r, Snapshots: true}, 2000, false).Recycle()
	run(Config{Seed: 4, Reuse: r}, 50, true).Recycle()
	for _, snapshots := range []bool{false, true} {
		for _, cut := range []bool{false, true} {
			want := run(Config{Seed: 1, Snapshots: snapshots}, 700, cut)
			got := run(Config{Seed: 1, Snapshots: snapshots, Reuse: r}, 700, cut)
			if got.Hash() != want.Hash() || got.Len() != want.Len() {
				t.Fatalf("snapshots %v, cut %v: %d events hashing %s in reused memory, %d hashing %s in fresh",
					snapshots, cut, got.Len(), got.Hash(), want.Len(), want.Hash())
			}
			for i := range want.Len() {
				if g, w := got.State(got.Event(i)), want.State(want.Event(i)); g != w {
					t.Fatalf("event %d: state %q reused, %q fresh", i, g, w)
				}
			}
			got.Recycle()
			if got.Len() != 0 {
				t.Fatalf("a recycled trace still has %d events", got.Len())
			}
		}
	}
}
