package fault

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"
)

// Text is the schedule in the scenario language: every line in time order (a
// fault's end, its restart or heal, falls where it happens, after faults that
// began meanwhile), each fault's first line after its sentence as a comment when
// narrate is set. It is the one text form of a schedule: the explorer writes its
// found scenarios with it, and it makes the run Actions makes.
func (s Schedule) Text(c Cast, narrate bool) string {
	var lines []timedLine
	for _, f := range s {
		for i, l := range f.lines(c) {
			if i == 0 && narrate {
				l.text = "# " + f.Say(c) + ".\n" + l.text
			}
			lines = append(lines, l)
		}
	}
	// Stable: lines at one time keep the schedule's order, which is the order
	// the kernel applies them in.
	slices.SortStableFunc(lines, func(a, b timedLine) int { return cmp.Compare(a.at, b.at) })
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l.text + "\n")
	}
	return b.String()
}

type timedLine struct {
	at   time.Duration
	text string
}

// lines renders the fault in the scenario language, each line with its time.
func (f Fault) lines(c Cast) []timedLine {
	at := "at " + When(f.At) + " "
	var end []timedLine
	until := func(line string) {
		if f.Dur != Forever {
			end = append(end, timedLine{f.At + f.Dur, "at " + When(f.At+f.Dur) + " " + line})
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
			start += " for=" + When(f.Dur)
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
	return append([]timedLine{{f.At, start}}, end...)
}

// When writes a duration as a person would: "500ms", "1374ms", and from a
// second on, when it is a whole number of hundredths, in seconds ("1.4s",
// "2s", "12.25s"), the way the catalogue writes its times. A duration that is
// not a whole number of milliseconds (an exhaustive check's instant between two
// steps a fraction of a millisecond apart) keeps its fraction, exactly:
// "142.5ms", "0.001ms".
func When(d time.Duration) string {
	if d >= time.Second && d%(10*time.Millisecond) == 0 {
		return strings.TrimSuffix(strings.TrimRight(fmt.Sprintf("%.2f", d.Seconds()), "0"), ".") + "s"
	}
	if d%time.Millisecond != 0 {
		sign := ""
		if d < 0 {
			sign, d = "-", -d
		}
		frac := strings.TrimRight(fmt.Sprintf("%06d", int64(d%time.Millisecond)), "0")
		return fmt.Sprintf("%s%d.%sms", sign, d.Milliseconds(), frac)
	}
	return fmt.Sprintf("%dms", d.Milliseconds())
}
