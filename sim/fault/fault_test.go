package fault

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

const msec = time.Millisecond

// The shrinker (delta debugging, then halving; Zeller and Hildebrandt 2002)
// keeps exactly the faults a failure needs, each as small as still fails.
func TestShrinkKeepsOnlyWhatTheFailureNeeds(t *testing.T) {
	s := Schedule{
		{Kind: Drift, Proc: "c2", At: 50 * msec, Mag: 1500},
		{Kind: Crash, Proc: "r1", At: 100 * msec, Dur: 1000 * msec},
		{Kind: Loss, Proc: "c1", Peer: "r1", At: 120 * msec, Dur: 300 * msec, Mag: 400},
		{Kind: Partition, Proc: "c2", At: 200 * msec, Dur: 900 * msec},
		{Kind: ClockJump, Proc: "c1", At: 300 * msec, Mag: -8000},
		{Kind: Pause, Proc: "c1", At: 400 * msec, Dur: 2000 * msec},
	}
	// It fails while r1 is down for at least 100 ms and c1's clock jumps back by
	// at least a second.
	fails := func(s Schedule) bool {
		crash := slices.ContainsFunc(s, func(f Fault) bool { return f.Kind == Crash && f.Proc == "r1" && f.Dur >= 100*msec })
		jump := slices.ContainsFunc(s, func(f Fault) bool { return f.Kind == ClockJump && f.Mag <= -1000 })
		return crash && jump
	}
	runs := 0
	got, err := Shrink(s, func(c Schedule) (bool, error) { runs++; return fails(c), nil })
	if err != nil {
		t.Fatal(err)
	}
	want := Schedule{
		{Kind: Crash, Proc: "r1", At: 100 * msec, Dur: 100 * msec}, // 1000 halved while >= 100 (125), then rounded to 100
		{Kind: ClockJump, Proc: "c1", At: 300 * msec, Mag: -1000},  // -8000 halved while <= -1000
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("shrunk to %v, want %v", got, want)
	}
	t.Logf("shrunk 6 faults to 2 in %d runs", runs)

	// still keeps the budget: once it answers false, nothing more is kept.
	budget := 3
	got, _ = Shrink(s, func(c Schedule) (bool, error) { budget--; return budget >= 0 && fails(c), nil })
	if len(got) < 2 || !fails(got) {
		t.Fatalf("out of budget, the shrinker returned %v, which no longer fails", got)
	}
	// An error stops it with the smallest failing schedule found so far.
	boom := errors.New("boom")
	got, err = Shrink(s, func(c Schedule) (bool, error) { return false, boom })
	if !errors.Is(err, boom) || !reflect.DeepEqual(got, s) {
		t.Fatalf("on an error: %v, %v; want the schedule unchanged and the error", got, err)
	}
}

// zero is the source rapid shrinks toward: every choice its smallest.
type zero struct{ labels []string }

func (z *zero) IntN(label string, n int64) int64 {
	z.labels = append(z.labels, label)
	return 0
}

// Every choice of a drawn schedule comes from its source, so rapid can shrink
// each: a source answering 0 to all draws one fault, of the menu's first kind,
// on its first target, at 0, as short and small as a fault goes.
func TestEveryChoiceComesFromTheSource(t *testing.T) {
	sp := Space{Menu: []Kind{ClockJump, Crash}, End: 10 * time.Second,
		Targets: func(Kind) Targets { return Targets{Procs: []string{"r1", "c1"}} }}
	src := &zero{}
	got := sp.Draw(src)
	if want := (Schedule{{Kind: ClockJump, Proc: "r1", At: 0, Mag: 1}}); !reflect.DeepEqual(got, want) {
		t.Fatalf("drew %v, want %v", got, want)
	}
	if want := []string{"faults", "kind", "at_ms", "proc", "jump_ms", "negative"}; !slices.Equal(src.labels, want) {
		t.Fatalf("choices %v, want %v", src.labels, want)
	}
	// A kind with nothing to hit is not drawn.
	sp.Targets = func(k Kind) Targets {
		if k == Crash {
			return Targets{Procs: []string{"r1"}}
		}
		return Targets{}
	}
	if got := sp.Usable(); !slices.Equal(got, []Kind{Crash}) {
		t.Fatalf("usable %v, want only crash", got)
	}
}

// A schedule's text is the scenario language, one fault after another; a fault
// that lasts forever has no line that ends it.
func TestScheduleText(t *testing.T) {
	c := Cast{Names: []string{"z1", "z2", "z3", "c1", "db"}, Group: []string{"z1", "z2", "z3"}}
	s := Schedule{
		{Kind: Partition, Proc: "z1", At: 100 * msec, Dur: 50 * msec},
		{Kind: Crash, Proc: "z2", At: 200 * msec, Dur: Forever},
		{Kind: Pause, Proc: "c1", At: 300 * msec, Dur: 2 * time.Second},
		{Kind: Delay, Proc: "c1", Peer: "db", At: 400 * msec, Dur: time.Second, Mag: 30},
		{Kind: Partition, Proc: "c1,z1", Peer: "z2", At: 500 * msec, Dur: Forever},
	}
	want := `# z1 is cut off from everyone at 100ms for 50ms.
at 100ms partition z1 | z2,z3
at 150ms heal
# z2 crashes at 200ms and stays down.
at 200ms crash z2
# c1 stops for 2s at 300ms (a GC pause, a frozen VM).
at 300ms pause c1 for=2s
# the link c1<->db takes 30ms longer from 400ms for 1s.
at 400ms link c1 db extra-delay=30ms
# c1,z1 is cut off from z2 at 500ms for the rest of the run.
at 500ms partition c1,z1 | z2
at 1.4s link c1 db
`
	if got := s.Text(c, true); got != want {
		t.Fatalf("text:\n%s\nwant:\n%s", got, want)
	}
	if got := s.Text(c, false); strings.Contains(got, "#") {
		t.Fatalf("text without narration has comments:\n%s", got)
	}
}

// A found scenario lists its lines in time order even when a fault ends after
// another began (issue 19: "list faults in time order"), and the narration
// says "restarts empty" for a process that keeps nothing on disk rather than
// promising it comes back with what it had written.
func TestTextIsInTimeOrderAndSaysRestartsEmpty(t *testing.T) {
	c := Cast{Names: []string{"r1", "r2", "c1"}, Empty: []string{"r1"}}
	s := Schedule{ // drawn out of order, as the explorer draws
		{Kind: Crash, Proc: "r2", At: 900 * msec, Dur: 2 * time.Second},
		{Kind: Crash, Proc: "r1", At: 1374 * msec, Dur: 1414 * msec},
		{Kind: ClockJump, Proc: "c1", At: 1500 * msec, Mag: 2000},
	}
	want := `# r2 crashes at 900ms and restarts 2s later with what it had written to disk.
at 900ms crash r2
# r1 crashes at 1374ms and restarts empty 1414ms later (it keeps nothing on disk).
at 1374ms crash r1
# c1's wall clock jumps by +2000ms at 1.5s.
at 1.5s clock-jump c1 +2000ms
at 2788ms restart r1
at 2.9s restart r2
`
	if got := s.Text(c, true); got != want {
		t.Fatalf("text:\n%s\nwant:\n%s", got, want)
	}
	for d, want := range map[time.Duration]string{
		0: "0ms", 500 * msec: "500ms", 999 * msec: "999ms", time.Second: "1s", 1400 * msec: "1.4s",
		12250 * msec: "12.25s", 1374 * msec: "1374ms", 2788 * msec: "2788ms",
	} {
		if got := When(d); got != want {
			t.Errorf("When(%v) = %q, want %q", d, got, want)
		}
	}
}

// A space with no room for a fault, or nothing to say what a kind can hit, is
// a test's bug, said plainly rather than as an out-of-range draw.
func TestASpaceWithoutRoomIsRefused(t *testing.T) {
	targets := func(Kind) Targets { return Targets{Procs: []string{"c1"}} }
	for _, sp := range []Space{
		{Menu: []Kind{Pause}, Targets: targets},
		{Menu: []Kind{Pause}, Targets: targets, Start: time.Second, Stop: time.Second, End: 2 * time.Second},
		{Menu: []Kind{Pause}, End: time.Second},
	} {
		func() {
			defer func() {
				if r, _ := recover().(string); !strings.HasPrefix(r, "fault: a space") {
					t.Errorf("%+v: recovered %q, want a panic saying what is wrong with the space", sp, r)
				}
			}()
			sp.Draw(&zero{})
		}()
	}
}
