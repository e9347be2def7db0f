package sim

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// Tests of the kernel's own contract: time, ordering, messages, timers and faults.

func twoEchoes(cfg Config) (*World, ProcID, ProcID) {
	w := NewWorld(cfg)
	a := w.AddProcess("a", "test", Clock{}, newEcho)
	b := w.AddProcess("b", "test", Clock{}, newEcho)
	w.Network().SetDefault(Link{Delay: time.Millisecond})
	return w, a, b
}

func TestPingPongDeliversInTimeOrder(t *testing.T) {
	w, a, b := twoEchoes(Config{Seed: 1})
	w.Schedule(0, cmd(a, "ping", int64(b), 3))
	tr := w.Run()
	var got []string
	for i := range tr.Len() {
		if e := tr.Event(i); e.Kind == EvDeliver {
			got = append(got, e.At.String()+" "+tr.Name(e.Proc)+" "+tr.Msg(e).Op)
		}
	}
	want := []string{"0.001s b ping", "0.002s a pong", "0.003s b ping", "0.004s a pong", "0.005s b ping", "0.006s a pong"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("deliveries:\n got %q\nwant %q", got, want)
	}
	if tr.EndReason != EndQuiescent {
		t.Fatalf("end reason %s, want quiescent", tr.EndReason)
	}
}

func TestSameTimeEventsKeepInsertionOrder(t *testing.T) {
	w, a, b := twoEchoes(Config{})
	for i := range 5 {
		w.Schedule(Time(time.Second), Action{Kind: ActCommand, Proc: ProcID(i % 2), Msg: Message{Op: "noop", Key: string(rune('A' + i))}})
	}
	_ = a
	_ = b
	tr := w.Run()
	var keys string
	for i := range tr.Len() {
		if e := tr.Event(i); e.Kind == EvCommand {
			keys += tr.Msg(e).Key
		}
	}
	if keys != "ABCDE" {
		t.Fatalf("same-time commands ran in order %q, want ABCDE", keys)
	}
}

func TestCrashLosesMemoryAndInFlightMessages(t *testing.T) {
	w, a, b := twoEchoes(Config{Snapshots: true})
	w.Schedule(0, cmd(a, "ping", int64(b), 1))
	w.Schedule(Time(500*time.Microsecond), Action{Kind: ActCrash, Proc: b})
	w.Schedule(Time(time.Second), Action{Kind: ActRestart, Proc: b})
	w.Schedule(Time(2*time.Second), cmd(a, "ping", int64(b), 1))
	tr := w.Run()
	if !slices.Contains(kinds(tr), "drop") {
		t.Fatalf("the ping in flight to the crashed b was not dropped: %v", kinds(tr))
	}
	// After the restart b is a fresh process: it has seen only the second ping.
	last := ""
	for i := range tr.Len() {
		if e := tr.Event(i); e.Proc == b && tr.State(e) != "" {
			last = tr.State(e)
		}
	}
	if last != "seen 1 restored 0" {
		t.Fatalf("b after restart: %q, want a fresh process that saw one ping", last)
	}
}

func TestPowerLossKeepsOnlyDurableRecords(t *testing.T) {
	for _, tc := range []struct {
		fault ActionKind
		want  string
	}{
		{ActCrash, "seen 0 restored 3"},     // a process crash keeps what the OS has
		{ActPowerLoss, "seen 0 restored 1"}, // a power loss keeps only the fsynced prefix
	} {
		w, a, _ := twoEchoes(Config{Snapshots: true})
		w.Schedule(0, Action{Kind: ActCommand, Proc: a, Msg: Message{Op: "write", Key: "x", Value: "fsync"}})
		w.Schedule(1, Action{Kind: ActCommand, Proc: a, Msg: Message{Op: "write", Key: "y"}})
		w.Schedule(2, Action{Kind: ActCommand, Proc: a, Msg: Message{Op: "write", Key: "z"}})
		w.Schedule(3, Action{Kind: tc.fault, Proc: a})
		w.Schedule(4, Action{Kind: ActRestart, Proc: a})
		tr := w.Run()
		got := tr.State(tr.Event(tr.Len() - 2))
		if got != tc.want {
			t.Errorf("after %v and restart: %q, want %q", tc.fault, got, tc.want)
		}
	}
}

func TestOSFlushMakesOldWritesDurable(t *testing.T) {
	w, a, _ := twoEchoes(Config{Snapshots: true})
	w.Schedule(0, Action{Kind: ActCommand, Proc: a, Msg: Message{Op: "write", Key: "x"}})
	w.Schedule(OSFlushAfter+1, Action{Kind: ActPowerLoss, Proc: a})
	w.Schedule(OSFlushAfter+2, Action{Kind: ActRestart, Proc: a})
	tr := w.Run()
	if got := tr.State(tr.Event(tr.Len() - 2)); got != "seen 0 restored 1" {
		t.Fatalf("a write older than %s should survive a power loss: %q", OSFlushAfter, got)
	}
}

func TestPauseHoldsInputsAndTimersUntilResume(t *testing.T) {
	w, a, b := twoEchoes(Config{})
	w.Schedule(0, cmd(b, "timer", 7, int64(time.Second)))
	w.Schedule(Time(100*time.Millisecond), Action{Kind: ActPause, Proc: b, Dur: 5 * time.Second})
	w.Schedule(Time(2*time.Second), cmd(a, "ping", int64(b), 1))
	tr := w.Run()
	// Nothing reaches b between 0.1 s and 5.1 s; then the timer (due at 1 s) and
	// the ping (arrived at 2.001 s) are handled in arrival order.
	var at []string
	for i := range tr.Len() {
		e := tr.Event(i)
		if e.Proc == b && (e.Kind == EvTimer || e.Kind == EvDeliver) {
			at = append(at, e.At.String()+" "+e.Kind.String())
		}
	}
	want := []string{"5.100s timer", "5.100s deliver"}
	if !reflect.DeepEqual(at, want) {
		t.Fatalf("b handled %v, want %v", at, want)
	}
}

func TestTimersFollowDriftAndCancel(t *testing.T) {
	w := NewWorld(Config{})
	fast := w.AddProcess("fast", "test", Clock{DriftPPM: 100_000}, newEcho) // 10% fast
	w.Schedule(0, cmd(fast, "timer", 1, int64(11*time.Second)))
	w.Schedule(0, cmd(fast, "timer", 2, int64(time.Second)))
	w.Schedule(Time(500*time.Millisecond), cmd(fast, "cancel", 2, 0))
	tr := w.Run()
	ns := notes(tr)
	if len(ns) != 1 || !strings.HasPrefix(ns[0], "timer 1 at mono 11.000s") {
		t.Fatalf("timers fired: %q; want only timer 1, at local 11 s", ns)
	}
	if tr.End != Time(10*time.Second) {
		t.Fatalf("a 10%% fast clock reaches 11 s local at %s true, want 10.000s", tr.End)
	}
}

func TestWallTimerFiresEarlyWhenTheClockJumps(t *testing.T) {
	w := NewWorld(Config{})
	p := w.AddProcess("p", "test", Clock{}, newEcho)
	w.Schedule(0, cmd(p, "wall-timer", 1, int64(10*time.Second)))
	w.Schedule(Time(time.Second), Action{Kind: ActJump, Proc: p, Dur: 15 * time.Second})
	tr := w.Run()
	ns := notes(tr)
	if len(ns) != 1 || ns[0] != "timer 1 at mono 1.000s wall 16.000s" {
		t.Fatalf("wall timer: %q, want it to fire at the jump (true 1 s, wall 16 s)", ns)
	}
}

func TestPartitionsDropAndHeal(t *testing.T) {
	w, a, b := twoEchoes(Config{})
	w.Schedule(0, Action{Kind: ActPartition, A: []ProcID{a}, B: []ProcID{b}, OneWay: true})
	w.Schedule(1, cmd(a, "ping", int64(b), 1)) // a -> b is cut
	w.Schedule(2, cmd(b, "ping", int64(a), 1)) // b -> a is open; a's pong back is cut
	w.Schedule(Time(time.Second), Action{Kind: ActHeal})
	w.Schedule(Time(2*time.Second), cmd(a, "ping", int64(b), 1))
	tr := w.Run()
	drops, delivers := 0, 0
	for i := range tr.Len() {
		e := tr.Event(i)
		switch {
		case e.Kind == EvDrop && tr.Note(e) == "partition":
			drops++
		case e.Kind == EvDeliver:
			delivers++
		}
	}
	if drops != 2 || delivers != 3 {
		t.Fatalf("drops %d delivers %d, want 2 and 3 (ping to b, pong to b cut; b's ping, then ping and pong after heal)", drops, delivers)
	}
}

func TestLossAndDuplicationAreDrawnFromTheSeed(t *testing.T) {
	run := func(seed uint64) (string, int, int) {
		w, a, b := twoEchoes(Config{Seed: seed})
		w.Network().SetDefault(Link{Delay: time.Millisecond, Jitter: time.Millisecond, Dist: DelayUniform, Loss: 0.3, Dup: 0.3})
		for i := range 50 {
			w.Schedule(Time(i)*Time(time.Millisecond), cmd(a, "ping", int64(b), 1))
		}
		tr := w.Run()
		drops, dups := 0, 0
		seen := map[uint64]int{}
		for i := range tr.Len() {
			e := tr.Event(i)
			if e.Kind == EvDrop {
				drops++
			}
			if e.Kind == EvDeliver {
				if seen[e.MsgID]++; seen[e.MsgID] == 2 {
					dups++
				}
			}
		}
		return tr.Hash(), drops, dups
	}
	h1, drops, dups := run(7)
	h2, _, _ := run(7)
	h3, _, _ := run(8)
	if h1 != h2 {
		t.Fatal("the same seed gave two different traces")
	}
	if h1 == h3 {
		t.Fatal("different seeds gave the same lossy trace")
	}
	if drops == 0 || dups == 0 {
		t.Fatalf("with loss and dup at 0.3, got %d drops and %d duplicates", drops, dups)
	}
}

func TestLimitsEndTheRun(t *testing.T) {
	for _, tc := range []struct {
		lim  Limits
		want EndReason
	}{
		{Limits{MaxEvents: 50, MaxTime: time.Hour, MaxQueue: 100}, EndEventLimit},
		{Limits{MaxEvents: 1e6, MaxTime: 20 * time.Millisecond, MaxQueue: 100}, EndTimeLimit},
		{Limits{MaxEvents: 1e6, MaxTime: time.Hour, MaxQueue: 100, MaxMemory: 1 << 20}, EndMemoryLimit},
	} {
		w, a, b := twoEchoes(Config{Limits: tc.lim})
		w.Schedule(0, cmd(a, "ping", int64(b), 1e9)) // an endless rally
		tr := w.Run()
		if tr.EndReason != tc.want {
			t.Errorf("limits %+v: ended by %s, want %s", tc.lim, tr.EndReason, tc.want)
		}
	}
}

func TestClockReadings(t *testing.T) {
	c := Clock{Offset: 5 * time.Second, DriftPPM: 1000}
	r := c.Read(Time(10 * time.Second))
	if r.Mono != 10*time.Second+10*time.Millisecond || r.Wall != 15*time.Second+10*time.Millisecond {
		t.Fatalf("reading %v", r)
	}
	c.Jump(-2 * time.Second)
	if r2 := c.Read(Time(10 * time.Second)); r2.Mono != r.Mono || r2.Wall != r.Wall-2*time.Second {
		t.Fatalf("a jump must move wall only: %v then %v", r, r2)
	}
	c.SetDrift(Time(10*time.Second), 0)
	if r3 := c.Read(Time(11 * time.Second)); r3.Mono != r.Mono+time.Second {
		t.Fatalf("after the drift change the clock must continue from %v at rate 1: %v", r.Mono, r3.Mono)
	}
}

// Regression: a message to a process that is down is dropped, never stepped (it
// used to reach a nil process); one sent while it was down does not reach the
// next incarnation either.
func TestMessagesToADownProcessAreDropped(t *testing.T) {
	w, a, b := twoEchoes(Config{})
	w.Schedule(0, Action{Kind: ActCrash, Proc: b})
	w.Schedule(1, cmd(a, "ping", int64(b), 1)) // arrives at 1 ms, after the restart
	w.Schedule(Time(500*time.Microsecond), Action{Kind: ActRestart, Proc: b})
	w.Schedule(Time(time.Second), Action{Kind: ActCrash, Proc: b})
	w.Schedule(Time(time.Second), cmd(a, "ping", int64(b), 1)) // arrives while b is down
	tr := w.Run()
	var notes []string
	for i := range tr.Len() {
		if e := tr.Event(i); e.Kind == EvDrop || e.Kind == EvDeliver {
			notes = append(notes, e.Kind.String()+" "+tr.Note(e))
		}
	}
	if !reflect.DeepEqual(notes, []string{"drop meant for an earlier incarnation of b", "drop b is down"}) {
		t.Fatalf("got %q, want the ping dropped", notes)
	}
}

func TestRestartingARunningProcessCrashesItVisibly(t *testing.T) {
	w, a, _ := twoEchoes(Config{})
	w.Schedule(0, Action{Kind: ActRestart, Proc: a})
	if got := kinds(w.Run()); !reflect.DeepEqual(got, []string{"crash", "restart", "end"}) {
		t.Fatalf("events %v, want crash, restart, end", got)
	}
}

func TestADriftChangeMovesPendingTimers(t *testing.T) {
	w := NewWorld(Config{})
	p := w.AddProcess("p", "test", Clock{}, newEcho)
	w.Schedule(0, cmd(p, "timer", 1, int64(10*time.Second)))
	w.Schedule(Time(5*time.Second), Action{Kind: ActDrift, Proc: p, PPM: 100_000})
	tr := w.Run()
	// 5 s at rate 1, then the remaining 5 s local at 1.1x: 5/1.1 = 4.545454546 s.
	if ns := notes(tr); len(ns) != 1 || !strings.HasPrefix(ns[0], "timer 1 at mono 10.000s") || tr.End != Time(9545454546) {
		t.Fatalf("timer %q at %s, want local 10 s at true 9.545454546s", ns, tr.End)
	}
}

// Stale queue entries (a cancelled timer, the automatic resume of a pause that a
// crash ended) are not events: they neither end the run late nor trip a limit.
func TestStaleEntriesDoNotMoveTime(t *testing.T) {
	w, a, _ := twoEchoes(Config{Limits: Limits{MaxEvents: 100, MaxTime: 1500 * time.Millisecond, MaxQueue: 10}})
	w.Schedule(0, cmd(a, "timer", 1, int64(2*time.Second)))
	w.Schedule(Time(100*time.Millisecond), cmd(a, "cancel", 1, 0))
	w.Schedule(Time(200*time.Millisecond), Action{Kind: ActPause, Proc: a, Dur: 10 * time.Second})
	w.Schedule(Time(300*time.Millisecond), Action{Kind: ActCrash, Proc: a})
	tr := w.Run()
	if tr.EndReason != EndQuiescent || tr.End != Time(300*time.Millisecond) {
		t.Fatalf("ended by %s at %s, want quiescent at 0.300s", tr.EndReason, tr.End)
	}
}

// Regression: the automatic resume of an earlier pause must not end a later one.
func TestAStaleResumeDoesNotEndALaterPause(t *testing.T) {
	w, a, _ := twoEchoes(Config{})
	w.Schedule(0, Action{Kind: ActPause, Proc: a, Dur: 10 * time.Second})
	w.Schedule(Time(time.Second), Action{Kind: ActResume, Proc: a})
	w.Schedule(Time(2*time.Second), Action{Kind: ActPause, Proc: a, Dur: 10 * time.Second})
	tr := w.Run()
	var resumes []string
	for i := range tr.Len() {
		if e := tr.Event(i); e.Kind == EvResume {
			resumes = append(resumes, e.At.String())
		}
	}
	if !reflect.DeepEqual(resumes, []string{"1.000s", "12.000s"}) {
		t.Fatalf("resumes at %v, want 1 s and 12 s", resumes)
	}
}

// Regression: a message that reached a paused process before a partition is
// handled at resume, not dropped.
func TestAMessageThatArrivedDuringAPauseSurvivesALaterPartition(t *testing.T) {
	w, a, b := twoEchoes(Config{})
	w.Schedule(0, Action{Kind: ActPause, Proc: b, Dur: 3 * time.Second})
	w.Schedule(Time(time.Second), cmd(a, "ping", int64(b), 1))
	w.Schedule(Time(2*time.Second), Action{Kind: ActPartition, A: []ProcID{a}, B: []ProcID{b}})
	tr := w.Run()
	for i := range tr.Len() {
		if e := tr.Event(i); e.Proc == b && e.Kind == EvDeliver && e.At == Time(3*time.Second) {
			return
		}
	}
	t.Fatal("the ping that reached b at 1.001 s was not handled at its resume")
}

func TestTrueDurationDoesNotOverflow(t *testing.T) {
	for _, ppm := range []int64{-MaxDriftPPM, 0, MaxDriftPPM} {
		c := Clock{DriftPPM: ppm}
		for _, d := range []time.Duration{time.Nanosecond, time.Hour, 48 * time.Hour, 1 << 62} {
			td := c.TrueDuration(d)
			if td <= 0 || (d <= 2*MaxRunTime && c.advance(int64(td)) < int64(d)) {
				t.Errorf("drift %d: TrueDuration(%v) = %v", ppm, d, td)
			}
		}
	}
}

// Links are FIFO like TCP: jitter delays messages but never reorders them on one
// link; only reorder= does.
func TestLinksAreFIFOUnlessReordering(t *testing.T) {
	order := func(l Link) []uint64 {
		w, a, b := twoEchoes(Config{Seed: 3})
		w.Network().SetLink(a, b, l)
		for i := range 40 {
			w.Schedule(Time(i)*Time(10*time.Microsecond), cmd(a, "ping", int64(b), 1))
		}
		tr := w.Run()
		var ids []uint64
		for i := range tr.Len() {
			if e := tr.Event(i); e.Kind == EvDeliver && e.Proc == b {
				ids = append(ids, e.MsgID)
			}
		}
		return ids
	}
	if ids := order(Link{Delay: time.Millisecond, Jitter: 5 * time.Millisecond, Dist: DelayUniform}); !slices.IsSorted(ids) {
		t.Errorf("a jittery link reordered messages: %v", ids)
	}
	if ids := order(Link{Delay: time.Millisecond, Reorder: 0.5}); slices.IsSorted(ids) {
		t.Errorf("reorder=0.5 never reordered 40 messages")
	}
}

// The trace recomputes any clock reading at any time from the initial clocks and
// the recorded jumps and drift changes: the TUI's clocks panel relies on it.
func TestTraceClockAtMatchesTheLiveClock(t *testing.T) {
	w := NewWorld(Config{})
	p := w.AddProcess("p", "test", Clock{Offset: time.Second, DriftPPM: 2000}, newEcho)
	w.Schedule(Time(time.Second), Action{Kind: ActJump, Proc: p, Dur: 15 * time.Second})
	w.Schedule(Time(2*time.Second), Action{Kind: ActDrift, Proc: p, PPM: -5000})
	w.Schedule(Time(3*time.Second), cmd(p, "timer", 1, int64(time.Second)))
	tr := w.Run()
	for i := range tr.Len() {
		e := tr.Event(i)
		if e.Proc == p && tr.ClockAt(p, e.At) != e.Local {
			t.Fatalf("at %s: ClockAt %v, recorded %v", e.At, tr.ClockAt(p, e.At), e.Local)
		}
	}
	if got := tr.ClockAt(p, Time(2500*time.Millisecond)); got.Wall-got.Mono != 16*time.Second {
		t.Fatalf("wall - mono at 2.5 s = %v, want the offset plus the jump, 16 s", got.Wall-got.Mono)
	}
}

// The memory budget is an outcome like the event limit: the run stops as soon as its
// estimate passes the budget (by at most one step and the end event), at the same
// event on every run of the seed, and a
// budget no run can meet is visible before the run (MinMemory).
func TestTheMemoryBudgetEndsTheRunBeforeItIsPassed(t *testing.T) {
	lim := Limits{MaxEvents: 1e6, MaxTime: time.Hour, MaxQueue: 100, MaxMemory: 1 << 20}
	var lens []int
	for range 2 {
		w, a, b := twoEchoes(Config{Limits: lim, Snapshots: true})
		w.Schedule(0, cmd(a, "ping", int64(b), 1e9))
		tr := w.Run()
		if tr.EndReason != EndMemoryLimit || w.memory() > lim.MaxMemory+1<<10 {
			t.Fatalf("ended by %s with an estimate of %d bytes, want memory-limit within %d", tr.EndReason, w.memory(), lim.MaxMemory)
		}
		lens = append(lens, tr.Len())
	}
	if lens[0] != lens[1] || lens[0] < 1000 {
		t.Fatalf("the budget stopped the runs at %v events: want the same, and more than a handful", lens)
	}
	lim.MaxEvents = lens[0]
	if lim.MinMemory(2) > lim.MaxMemory {
		t.Errorf("MinMemory %d: a run reached %d events within %d bytes", lim.MinMemory(2), lim.MaxEvents, lim.MaxMemory)
	}
	lim.MaxEvents = int(lim.MaxMemory / eventBytes) // every event costs at least its own size, twice
	if lim.MinMemory(2) <= lim.MaxMemory {
		t.Errorf("MinMemory %d: %d events cannot fit in %d bytes", lim.MinMemory(2), lim.MaxEvents, lim.MaxMemory)
	}
}

// The network keeps state only for the links that need it: ten thousand processes
// where one pair talks cost two links, not a hundred million.
func TestTheNetworkIsSparse(t *testing.T) {
	w := NewWorld(Config{})
	for i := range 10_000 {
		w.AddProcess(fmt.Sprint("p", i), "test", Clock{}, newEcho)
	}
	w.Network().SetDefault(Link{Delay: time.Millisecond})
	w.Network().SetLink(5, 6, Link{Delay: 2 * time.Millisecond})
	w.Schedule(0, cmd(0, "ping", 9999, 2))
	w.Schedule(0, Action{Kind: ActPartition, A: []ProcID{7}, B: []ProcID{8}, OneWay: true})
	if tr := w.Run(); tr.EndReason != EndQuiescent {
		t.Fatalf("ended by %s", tr.EndReason)
	}
	if n := len(w.net.links); n != 4 { // 0->9999, 9999->0, the declared 5->6, the cut 7->8
		t.Fatalf("the network keeps %d links, want 4", n)
	}
}

// A restart counted by the process's own wall clock (Action.NodeClock, the
// scenario language's restart after=D clock=node: a supervisor on its machine)
// comes when that clock reads the crash's reading plus D: a jump forward brings
// it earlier (at once past the deadline), a jump back later, a drift stretches
// or shrinks it; a jump moves it only once, and in true time nothing moves it.
func TestARestartByTheNodesClockFollowsThatClock(t *testing.T) {
	restartAt := func(nodeClock bool, faults ...Action) Time {
		w := NewWorld(Config{})
		p := w.AddProcess("p", "test", Clock{}, newEcho)
		w.Schedule(Time(time.Second), Action{Kind: ActCrash, Proc: p})
		w.Schedule(Time(time.Second), Action{Kind: ActRestart, Proc: p, Dur: 10 * time.Second, NodeClock: nodeClock})
		for i, f := range faults {
			f.Proc = p
			w.Schedule(Time(2*time.Second)+Time(i)*Time(time.Second), f)
		}
		tr := w.Run()
		var at []Time
		for i := range tr.Len() {
			if e := tr.Event(i); e.Kind == EvRestart {
				at = append(at, e.At)
			}
		}
		if len(at) != 1 {
			t.Fatalf("restarts at %v, want one", at)
		}
		return at[0]
	}
	jump := func(d time.Duration) Action { return Action{Kind: ActJump, Dur: d} }
	for _, c := range []struct {
		name      string
		nodeClock bool
		faults    []Action
		want      Time
	}{
		{"true time, no fault", false, nil, Time(11 * time.Second)},
		{"true time, a jump", false, []Action{jump(4 * time.Second)}, Time(11 * time.Second)},
		{"node clock, no fault", true, nil, Time(11 * time.Second)},
		{"node clock, forward 4 s", true, []Action{jump(4 * time.Second)}, Time(7 * time.Second)},
		{"node clock, back 3 s", true, []Action{jump(-3 * time.Second)}, Time(14 * time.Second)},
		{"node clock, past the deadline", true, []Action{jump(30 * time.Second)}, Time(2 * time.Second)},
		{"node clock, forward then back", true, []Action{jump(4 * time.Second), jump(-4 * time.Second)}, Time(11 * time.Second)},
		// 1 s at rate 1, then 9 s local at 1.1x: 9/1.1 = 8.181818182 s.
		{"node clock, 10% fast from 2 s", true, []Action{{Kind: ActDrift, PPM: 100_000}}, Time(2*time.Second + 8181818182)},
	} {
		if got := restartAt(c.nodeClock, c.faults...); got != c.want {
			t.Errorf("%s: restarted at %s, want %s", c.name, got, c.want)
		}
	}
}
