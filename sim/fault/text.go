package fault

import (
	"fmt"
	"strings"
)

// Text is the schedule in the scenario language: each fault's lines, after its
// sentence as a comment when narrate is set. It is the one text form of a
// schedule: the explorer writes its found scenarios with it, and it makes the
// run Actions makes.
func (s Schedule) Text(c Cast, narrate bool) string {
	var b strings.Builder
	for _, f := range s {
		if narrate {
			b.WriteString("# " + f.String() + ".\n")
		}
		for _, l := range f.lines(c) {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

// lines renders the fault in the scenario language.
func (f Fault) lines(c Cast) []string {
	at := "at " + ms(f.At) + " "
	var end []string
	until := func(line string) {
		if f.Dur != Forever {
			end = append(end, "at "+ms(f.At+f.Dur)+" "+line)
		}
	}
	var start string
	switch f.Kind {
	case Crash:
		start = at + VerbCrash + " " + f.Proc
		until(VerbRestart + " " + f.Proc)
	case RestartEmpty:
		start = at + VerbPowerLoss + " " + f.Proc
		until(VerbRestart + " " + f.Proc)
	case Pause:
		start = at + VerbPause + " " + f.Proc
		if f.Dur != Forever {
			start += " for=" + ms(f.Dur)
		}
	case ClockJump:
		start = fmt.Sprintf("%s"+VerbClockJump+" %s %+dms", at, f.Proc, f.Mag)
	case Drift:
		start = fmt.Sprintf("%s"+VerbClockDrift+" %s %d", at, f.Proc, f.Mag)
	case Partition:
		a, b := c.sides(f)
		start = at + VerbPartition + " " + strings.Join(a, ",") + " | " + strings.Join(b, ",")
		until(VerbHeal)
	case Loss, Duplicate:
		key := "loss"
		if f.Kind == Duplicate {
			key = "dup"
		}
		start = fmt.Sprintf("%s"+VerbLink+" %s %s %s=%g", at, f.Proc, f.Peer, key, float64(f.Mag)/1000)
		until(VerbLink + " " + f.Proc + " " + f.Peer)
	case Delay:
		start = fmt.Sprintf("%s"+VerbLink+" %s %s extra-delay=%dms", at, f.Proc, f.Peer, f.Mag)
		until(VerbLink + " " + f.Proc + " " + f.Peer)
	case Failover:
		start = at + VerbFailover + " " + f.Proc
	default:
		panic(fmt.Sprintf("fault: unknown kind %q", f.Kind))
	}
	return append([]string{start}, end...)
}
