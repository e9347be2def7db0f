package explore

import (
	"fmt"
	"strings"
	"time"
)

// Kind is a kind of fault, as --faults names it.
type Kind string

// The fault menu.
const (
	Crash        Kind = "crash"         // the process crashes and restarts Dur later (its disk kept)
	RestartEmpty Kind = "restart-empty" // its machine loses power and restarts Dur later (unsynced data lost)
	Pause        Kind = "pause"         // the process stops for Dur (a GC pause, a frozen VM)
	ClockJump    Kind = "clock-jump"    // its wall clock jumps by Mag ms
	Drift        Kind = "drift"         // its clock drifts by Mag ppm from then on
	Partition    Kind = "partition"     // it is cut off from every other process for Dur
	Loss         Kind = "loss"          // the link Proc<->Peer loses Mag per mille of messages for Dur
	Duplicate    Kind = "duplicate"     // the link duplicates Mag per mille of messages for Dur
	Delay        Kind = "delay"         // the link takes Mag ms more for Dur
	Failover     Kind = "failover"      // a replica is promoted
)

// Kinds is the whole menu, in the order --help lists it.
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
			return nil, fmt.Errorf("unknown fault %q (faults are: %s)", w, kindList(Kinds))
		}
		out = append(out, k)
	}
	return out, nil
}

func kindList(ks []Kind) string {
	s := make([]string, len(ks))
	for i, k := range ks {
		s[i] = string(k)
	}
	return strings.Join(s, ", ")
}

// Fault is one fault of a schedule.
type Fault struct {
	Kind Kind
	Proc string        // the process (one end, for a link fault)
	Peer string        // the other end of a link fault
	At   time.Duration // when (whole milliseconds)
	Dur  time.Duration // how long (whole milliseconds; 0 for an instant fault)
	Mag  int64         // how far: clock jump ms (signed), drift ppm (signed), per mille, delay ms
}

func ms(d time.Duration) string { return fmt.Sprintf("%dms", d.Milliseconds()) }

// lines renders the fault in the scenario language; others lists the processes
// a partition cuts the victim off from.
func (f Fault) lines(others []string) []string {
	at := "at " + ms(f.At) + " "
	end := "at " + ms(f.At+f.Dur) + " "
	switch f.Kind {
	case Crash:
		return []string{at + "crash " + f.Proc, end + "restart " + f.Proc}
	case RestartEmpty:
		return []string{at + "power-loss " + f.Proc, end + "restart " + f.Proc}
	case Pause:
		return []string{at + "pause " + f.Proc + " for=" + ms(f.Dur)}
	case ClockJump:
		return []string{fmt.Sprintf("%sclock-jump %s %+dms", at, f.Proc, f.Mag)}
	case Drift:
		return []string{fmt.Sprintf("%sclock-drift %s %d", at, f.Proc, f.Mag)}
	case Partition:
		return []string{at + "partition " + f.Proc + " | " + strings.Join(others, ","), end + "heal"}
	case Loss, Duplicate:
		key := "loss"
		if f.Kind == Duplicate {
			key = "dup"
		}
		return []string{fmt.Sprintf("%slink %s %s %s=%g", at, f.Proc, f.Peer, key, float64(f.Mag)/1000),
			end + "link " + f.Proc + " " + f.Peer}
	case Delay:
		return []string{fmt.Sprintf("%slink %s %s extra-delay=%dms", at, f.Proc, f.Peer, f.Mag), end + "link " + f.Proc + " " + f.Peer}
	case Failover:
		return []string{at + "failover " + f.Proc}
	}
	return nil
}

// String says what the fault does, for the narration of a found scenario.
func (f Fault) String() string {
	at, d := ms(f.At), ms(f.Dur)
	switch f.Kind {
	case Crash:
		return fmt.Sprintf("%s crashes at %s and restarts %s later (with what it had written to disk)", f.Proc, at, d)
	case RestartEmpty:
		return fmt.Sprintf("%s loses power at %s and restarts %s later, with only what it had fsynced", f.Proc, at, d)
	case Pause:
		return fmt.Sprintf("%s stops for %s at %s (a GC pause, a frozen VM)", f.Proc, d, at)
	case ClockJump:
		return fmt.Sprintf("%s's wall clock jumps by %+dms at %s", f.Proc, f.Mag, at)
	case Drift:
		return fmt.Sprintf("%s's clock starts drifting by %+d ppm at %s", f.Proc, f.Mag, at)
	case Partition:
		return fmt.Sprintf("%s is cut off from everyone at %s for %s", f.Proc, at, d)
	case Loss:
		return fmt.Sprintf("the link %s<->%s loses %.1f%% of messages from %s for %s", f.Proc, f.Peer, float64(f.Mag)/10, at, d)
	case Duplicate:
		return fmt.Sprintf("the link %s<->%s duplicates %.1f%% of messages from %s for %s", f.Proc, f.Peer, float64(f.Mag)/10, at, d)
	case Delay:
		return fmt.Sprintf("the link %s<->%s takes %dms longer from %s for %s", f.Proc, f.Peer, f.Mag, at, d)
	case Failover:
		return fmt.Sprintf("%s is promoted at %s (failover)", f.Proc, at)
	}
	return string(f.Kind)
}

// Schedule is a run's faults, in the order drawn.
type Schedule []Fault

// window is the time a fault holds: [At, At+Dur].
func (f Fault) window() (time.Duration, time.Duration) { return f.At, f.At + f.Dur }

// clashes reports whether two faults would interfere in ways the narration
// cannot tell: two down-times of one process (a second crash of a process that
// is down does nothing, and the first restart ends the second early), two
// partitions at once (a heal ends both), two faults on one link at once.
func (f Fault) clashes(g Fault) bool {
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
