package sim

import (
	"slices"
	"testing"
	"time"
)

// The wall-timer log gives back, at any instant, the wall deadlines a process
// had pending: armed, not yet fired, cancelled, re-armed as a monotonic timer
// or lost in a crash. (A check sizes clock jumps just past them.)
func TestPendingWallDeadlinesFollowArmsFiresCancelsAndCrashes(t *testing.T) {
	w := NewWorld(Config{Seed: 1, WallTimers: true})
	p := w.AddProcess("p", "test", Clock{}, newEcho)
	s := func(d time.Duration) Time { return Time(d) }
	w.Schedule(s(100*time.Millisecond), cmd(p, "wall-timer", 1, int64(5*time.Second)))
	w.Schedule(s(200*time.Millisecond), cmd(p, "wall-timer", 2, int64(3*time.Second)))
	w.Schedule(s(300*time.Millisecond), cmd(p, "cancel", 2, 0))
	w.Schedule(s(400*time.Millisecond), cmd(p, "wall-timer", 3, int64(2*time.Second)))
	w.Schedule(s(500*time.Millisecond), cmd(p, "timer", 3, int64(time.Second))) // re-armed on the monotonic clock
	w.Schedule(s(6*time.Second), cmd(p, "wall-timer", 4, int64(9*time.Second)))
	w.Schedule(s(7*time.Second), Action{Kind: ActCrash, Proc: p})
	w.Schedule(s(8*time.Second), Action{Kind: ActStop, Proc: NoProc})
	tr := w.Run()
	for _, tc := range []struct {
		at   time.Duration
		want []time.Duration
	}{
		{50 * time.Millisecond, nil},
		{250 * time.Millisecond, []time.Duration{3 * time.Second, 5 * time.Second}},
		{350 * time.Millisecond, []time.Duration{5 * time.Second}},
		{450 * time.Millisecond, []time.Duration{2 * time.Second, 5 * time.Second}},
		{600 * time.Millisecond, []time.Duration{5 * time.Second}},
		{5*time.Second + 1, nil}, // fired
		{6500 * time.Millisecond, []time.Duration{9 * time.Second}},
		{7500 * time.Millisecond, nil}, // the crash took it
	} {
		if got := tr.PendingWallDeadlines(p, s(tc.at)); !slices.Equal(got, tc.want) {
			t.Errorf("at %s: pending %v, want %v", tc.at, got, tc.want)
		}
	}
	// Without the flag, nothing is kept, and the run is the same.
	run := func(log bool) *Trace {
		w := NewWorld(Config{Seed: 1, WallTimers: log})
		p := w.AddProcess("p", "test", Clock{}, newEcho)
		w.Schedule(s(100*time.Millisecond), cmd(p, "wall-timer", 1, int64(5*time.Second)))
		w.Schedule(s(time.Second), Action{Kind: ActJump, Proc: p, Dur: 5 * time.Second})
		w.Schedule(s(8*time.Second), Action{Kind: ActStop, Proc: NoProc})
		return w.Run()
	}
	with, without := run(true), run(false)
	if got := without.PendingWallDeadlines(0, s(500*time.Millisecond)); got != nil {
		t.Errorf("without WallTimers: %v", got)
	}
	if with.Hash() != without.Hash() {
		t.Error("keeping the wall-timer log changed the run")
	}
}
