package fault

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// Kind is a kind of fault, as explore's --faults names it.
type Kind string

// The fault menu.
const (
	Crash        Kind = "crash"         // the process crashes and restarts Dur later (its disk kept)
	RestartEmpty Kind = "restart-empty" // its machine loses power and restarts Dur later (unsynced data lost)
	Pause        Kind = "pause"         // the process stops for Dur (a GC pause, a frozen VM)
	ClockJump    Kind = "clock-jump"    // its wall clock jumps by Mag ms
	Drift        Kind = "drift"         // its clock drifts by Mag ppm from then on
	Partition    Kind = "partition"     // it is cut off from Peer (or everyone else) for Dur
	Loss         Kind = "loss"          // the link Proc<->Peer loses Mag per mille of messages for Dur
	Duplicate    Kind = "duplicate"     // the link duplicates Mag per mille of messages for Dur
	Delay        Kind = "delay"         // the link takes Mag ms more for Dur
	Failover     Kind = "failover"      // a replica is promoted
)

// Kinds is the whole menu, in the order explore's --help lists it.
var Kinds = []Kind{Crash, RestartEmpty, Pause, ClockJump, Drift, Partition, Loss, Duplicate, Delay, Failover}

// ParseKinds reads a comma-separated menu.
func ParseKinds(s string) ([]Kind, error) {
	var out []Kind
	for _, w := range strings.Split(s, ",") {
		k := Kind(strings.TrimSpace(w))
		found := false
		for _, m := range Kinds {
			found = found || m == k
		}
		if !found {
			return nil, fmt.Errorf("unknown fault %q (faults are: %s)", w, KindList(Kinds, ", "))
		}
		out = append(out, k)
	}
	return out, nil
}

// KindList joins kinds with sep.
func KindList(ks []Kind, sep string) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, sep)
}

// Forever is the duration of a fault that never ends: a crash-stop failure (no
// restart), a partition never healed, a pause never resumed. The explorer never
// draws it: every fault it draws is over by the heal phase.
const Forever time.Duration = -1

// Fault is one fault of a schedule.
type Fault struct {
	Kind Kind // what happens
	// Proc is the process the fault hits; one end of a link fault; one side of a
	// partition (names joined by commas, as the scenario language writes a side).
	Proc string
	// Peer is the other end of a link fault, or the other side of a partition
	// ("": every other process of the cast's Group).
	Peer string
	At   time.Duration // when (the explorer draws whole milliseconds)
	Dur  time.Duration // how long (0 for an instant fault; Forever: it never ends)
	Mag  int64         // how far: clock jump ms (signed), drift ppm (signed), per mille, delay ms
}

// String says what the fault does, for a property test's failure; Say says it
// knowing the cast.
func (f Fault) String() string { return f.Say(Cast{}) }

// Say says what the fault does, for a found scenario's narration: a process the
// cast lists as Empty (it keeps nothing on disk: a Redis node without
// persistence, a client) "restarts empty" rather than with what it had written.
func (f Fault) Say(c Cast) string {
	at, d := When(f.At), When(f.Dur)
	empty := slices.Contains(c.Empty, f.Proc)
	switch f.Kind {
	case Crash, RestartEmpty:
		what, kept := "crashes", " with what it had written to disk"
		if f.Kind == RestartEmpty {
			what, kept = "loses power", ", with only what it had fsynced"
		}
		switch {
		case f.Dur == Forever:
			return fmt.Sprintf("%s %s at %s and stays down", f.Proc, what, at)
		case empty:
			return fmt.Sprintf("%s %s at %s and restarts empty %s later (it keeps nothing on disk)", f.Proc, what, at, d)
		}
		return fmt.Sprintf("%s %s at %s and restarts %s later%s", f.Proc, what, at, d, kept)
	case Pause:
		if f.Dur == Forever {
			return fmt.Sprintf("%s stops at %s for good (a GC pause, a frozen VM)", f.Proc, at)
		}
		return fmt.Sprintf("%s stops for %s at %s (a GC pause, a frozen VM)", f.Proc, d, at)
	case ClockJump:
		return fmt.Sprintf("%s's wall clock jumps by %+dms at %s", f.Proc, f.Mag, at)
	case Drift:
		return fmt.Sprintf("%s's clock starts drifting by %+d ppm at %s", f.Proc, f.Mag, at)
	case Partition:
		from := "everyone"
		if f.Peer != "" {
			from = f.Peer
		}
		return fmt.Sprintf("%s is cut off from %s at %s %s", f.Proc, from, at, lasting(f.Dur))
	case Loss:
		return fmt.Sprintf("the link %s<->%s loses %.1f%% of messages from %s %s", f.Proc, f.Peer, float64(f.Mag)/10, at, lasting(f.Dur))
	case Duplicate:
		return fmt.Sprintf("the link %s<->%s duplicates %.1f%% of messages from %s %s", f.Proc, f.Peer, float64(f.Mag)/10, at, lasting(f.Dur))
	case Delay:
		return fmt.Sprintf("the link %s<->%s takes %dms longer from %s %s", f.Proc, f.Peer, f.Mag, at, lasting(f.Dur))
	case Failover:
		return fmt.Sprintf("%s is promoted at %s (failover)", f.Proc, at)
	}
	return string(f.Kind)
}

func lasting(d time.Duration) string {
	if d == Forever {
		return "for the rest of the run"
	}
	return "for " + When(d)
}

// Schedule is a run's faults, in the order drawn.
type Schedule []Fault

// InTimeOrder is the schedule sorted by when each fault begins (stably: faults
// at one time keep their order), as a person reads a story.
func (s Schedule) InTimeOrder() Schedule {
	out := slices.Clone(s)
	slices.SortStableFunc(out, func(a, b Fault) int { return cmp.Compare(a.At, b.At) })
	return out
}

// String says what each fault does, in order.
func (s Schedule) String() string {
	out := make([]string, len(s))
	for i, f := range s {
		out[i] = f.String()
	}
	return strings.Join(out, "; ")
}

// window is the time a fault holds: [At, At+Dur].
func (f Fault) window() (time.Duration, time.Duration) {
	if f.Dur == Forever {
		return f.At, math.MaxInt64
	}
	return f.At, f.At + f.Dur
}

// Clashes reports whether two faults would interfere in ways the narration
// cannot tell: two down-times of one process (a second crash of a process that
// is down does nothing, and the first restart ends the second early), two
// partitions at once (a heal ends both), two faults on one link at once.
func (f Fault) Clashes(g Fault) bool {
	a0, a1 := f.window()
	b0, b1 := g.window()
	if a1 < b0 || b1 < a0 {
		return false
	}
	down := func(k Kind) bool { return k == Crash || k == RestartEmpty || k == Pause }
	link := func(k Kind) bool { return k == Loss || k == Duplicate || k == Delay }
	switch {
	case down(f.Kind) && down(g.Kind):
		return f.Proc == g.Proc
	case f.Kind == Partition && g.Kind == Partition:
		return true
	case link(f.Kind) && link(g.Kind):
		return f.Proc == g.Proc && f.Peer == g.Peer
	}
	return false
}
