package explore

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/sim/fault"
)

// Size is one magnitude of a fault: how long it lasts, and how far it goes
// (the fields of fault.Fault that are not when or where).
type Size struct {
	Dur time.Duration // how long (fault.Forever: never ends; 0: an instant fault)
	Mag int64         // how far: clock jump ms, drift ppm, per mille, extra delay ms
}

// Menu is the sizes an exhaustive check tries for each kind of fault: a
// crash's down time, a pause's length, a clock jump's size. A kind missing
// from the menu takes its default sizes (DefaultMenu); a kind with no size
// (failover) is tried once.
type Menu map[fault.Kind][]Size

// DefaultMenu is the sizes a check tries when the user names none: few per
// kind, because every size multiplies the schedules. They are the sizes the
// catalogue's stories turn on: a process back at once or after a while, a GC
// pause of a second or more (Kleppmann's), a clock step of seconds either way
// (an NTP correction), drift at the explorer's largest rate, links down or
// slow for a while. Clock jumps also get, at every point, the size just past
// each pending wall-clock deadline of their process (Bound.Deadlines).
func DefaultMenu(maxDriftPPM int64) Menu {
	if maxDriftPPM <= 0 {
		maxDriftPPM = 2000
	}
	return Menu{
		fault.Crash:        {{Dur: time.Millisecond}, {Dur: time.Second}, {Dur: 5 * time.Second}},
		fault.RestartEmpty: {{Dur: time.Millisecond}, {Dur: time.Second}, {Dur: 5 * time.Second}},
		fault.Pause:        {{Dur: time.Second}, {Dur: 5 * time.Second}, {Dur: 15 * time.Second}},
		fault.ClockJump:    {{Mag: -15_000}, {Mag: 1_000}, {Mag: 15_000}},
		fault.Drift:        {{Mag: -maxDriftPPM}, {Mag: maxDriftPPM}},
		fault.Partition:    {{Dur: time.Second}, {Dur: 5 * time.Second}},
		fault.Loss:         {{Dur: time.Second, Mag: 1000}},
		fault.Duplicate:    {{Dur: time.Second, Mag: 1000}},
		fault.Delay:        {{Dur: 5 * time.Second, Mag: 500}},
		fault.Failover:     {{}},
	}
}

// Sizes is kind k's sizes in the menu, in order (smallest first). A kind
// with no size (failover) has one, the zero Size; clock jumps may have none
// in the menu, and then are tried only just past pending deadlines.
func (m Menu) Sizes(k fault.Kind) []Size {
	s, ok := m[k]
	if !ok {
		s = DefaultMenu(0)[k]
	}
	if len(s) == 0 && k != fault.ClockJump {
		return []Size{{}}
	}
	return s
}

// With returns the menu with kind k's sizes replaced, sorted and without
// repeats.
func (m Menu) With(k fault.Kind, sizes []Size) Menu {
	out := maps.Clone(m)
	if out == nil {
		out = Menu{}
	}
	sizes = slices.Clone(sizes)
	slices.SortFunc(sizes, compareSize)
	out[k] = slices.Compact(sizes)
	return out
}

// compareSize orders sizes by magnitude, then by duration, forever last.
func compareSize(a, b Size) int {
	return cmp.Or(cmp.Compare(a.Mag, b.Mag), cmp.Compare(longest(a.Dur), longest(b.Dur)))
}

// longest orders fault.Forever after every duration.
func longest(d time.Duration) time.Duration {
	if d == fault.Forever {
		return math.MaxInt64
	}
	return d
}

// Text is the menu in words, kind by kind, for the summary and the
// certificate: {"pause": ["1s", "5s"], "clock-jump": ["-15s", "+1s"]}.
func (m Menu) Text(kinds []fault.Kind) map[string][]string {
	out := map[string][]string{}
	for _, k := range kinds {
		var s []string
		for _, z := range m.Sizes(k) {
			s = append(s, SizeText(k, z))
		}
		out[string(k)] = s
	}
	return out
}

// SizeText writes one size as the --menu flag reads it.
func SizeText(k fault.Kind, z Size) string {
	dur := func(d time.Duration) string {
		if d == fault.Forever {
			return "forever"
		}
		return fault.When(d)
	}
	switch k {
	case fault.Crash, fault.RestartEmpty, fault.Pause, fault.Partition:
		return dur(z.Dur)
	case fault.ClockJump:
		d := time.Duration(z.Mag) * time.Millisecond
		if d < 0 {
			return "-" + fault.When(-d)
		}
		return "+" + fault.When(d)
	case fault.Drift:
		return fmt.Sprintf("%+dppm", z.Mag)
	case fault.Loss, fault.Duplicate:
		if z.Mag == 1000 {
			return dur(z.Dur)
		}
		return strconv.FormatFloat(float64(z.Mag)/10, 'f', -1, 64) + "%/" + dur(z.Dur)
	case fault.Delay:
		return fault.When(time.Duration(z.Mag)*time.Millisecond) + "/" + dur(z.Dur)
	}
	return "once"
}

// MenuHelp says what each kind's sizes are, for --help and the errors.
const MenuHelp = `crash, restart-empty, pause, partition: how long (1ms, 5s, forever);
clock-jump: how far, signed (+15s, -2s); drift: ppm, signed (+2000ppm);
loss, duplicate: how long all messages are lost or doubled (2s), or PERCENT/HOW-LONG (50%/2s);
delay: EXTRA/HOW-LONG (500ms/5s); failover: no sizes`

// ParseMenu reads one --menu flag, KIND=SIZE,SIZE,... (MenuHelp), into m.
func ParseMenu(m Menu, s string) (Menu, error) {
	name, list, ok := strings.Cut(s, "=")
	if !ok {
		return m, fmt.Errorf("--menu %q: expected KIND=SIZE,SIZE,... like pause=1s,5s,15s", s)
	}
	kinds, err := fault.ParseKinds(name)
	if err != nil || len(kinds) != 1 {
		return m, fmt.Errorf("--menu %q: %v", s, err)
	}
	k := kinds[0]
	if k == fault.Failover {
		return m, fmt.Errorf("--menu %q: a failover has no size", s)
	}
	var sizes []Size
	for _, w := range strings.Split(list, ",") {
		z, err := ParseSize(k, strings.TrimSpace(w))
		if err != nil {
			return m, fmt.Errorf("--menu %s: %q: %v (%s sizes: %s)", k, w, err, k, kindSizeHint(k))
		}
		sizes = append(sizes, z)
	}
	return m.With(k, sizes), nil
}

func kindSizeHint(k fault.Kind) string {
	for _, ln := range strings.Split(MenuHelp, "\n") {
		if strings.Contains(ln, string(k)) {
			return strings.TrimSpace(ln)
		}
	}
	return MenuHelp
}

// ParseSize reads one size of kind k, as --menu writes it (MenuHelp): the TUI's
// "what if" menu reads a size a person types with it.
func ParseSize(k fault.Kind, w string) (Size, error) {
	dur := func(s string, forever bool) (time.Duration, error) {
		if s == "forever" {
			if !forever {
				return 0, fmt.Errorf("forever is not a size here")
			}
			return fault.Forever, nil
		}
		d, err := time.ParseDuration(s)
		if err != nil || d <= 0 {
			return 0, fmt.Errorf("expected a positive duration like 500ms or 5s")
		}
		return d, nil
	}
	switch k {
	case fault.Crash, fault.RestartEmpty, fault.Pause, fault.Partition:
		d, err := dur(w, true)
		return Size{Dur: d}, err
	case fault.ClockJump:
		d, err := time.ParseDuration(w)
		if err != nil || d == 0 || d%time.Millisecond != 0 {
			return Size{}, fmt.Errorf("expected a signed duration of whole milliseconds like +15s or -2s")
		}
		return Size{Mag: d.Milliseconds()}, nil
	case fault.Drift:
		n, err := strconv.ParseInt(strings.TrimSuffix(w, "ppm"), 10, 64)
		if err != nil || n == 0 || n < -100_000 || n > 100_000 {
			return Size{}, fmt.Errorf("expected a signed drift in ppm, from -100000 to +100000, like +2000ppm")
		}
		return Size{Mag: n}, nil
	case fault.Loss, fault.Duplicate:
		pct, how, ok := strings.Cut(w, "/")
		if !ok {
			d, err := dur(w, false)
			return Size{Dur: d, Mag: 1000}, err
		}
		p, err := strconv.ParseFloat(strings.TrimSuffix(pct, "%"), 64)
		if err != nil || p <= 0 || p > 100 || !strings.HasSuffix(pct, "%") {
			return Size{}, fmt.Errorf("expected PERCENT/HOW-LONG like 50%%/2s")
		}
		d, err := dur(how, false)
		return Size{Dur: d, Mag: int64(p*10 + 0.5)}, err
	case fault.Delay:
		extra, how, ok := strings.Cut(w, "/")
		if !ok {
			return Size{}, fmt.Errorf("expected EXTRA/HOW-LONG like 500ms/5s")
		}
		x, err := time.ParseDuration(extra)
		if err != nil || x <= 0 || x%time.Millisecond != 0 {
			return Size{}, fmt.Errorf("expected an extra delay of whole milliseconds like 500ms")
		}
		d, err := dur(how, false)
		return Size{Dur: d, Mag: x.Milliseconds()}, err
	}
	return Size{}, fmt.Errorf("%s has no sizes", k)
}
