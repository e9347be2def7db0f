package sim

import (
	"fmt"
	"math"
	"strconv"
	"time"
)

// Time is true time: nanoseconds since the start of the run. Only the kernel and the
// checker know it; processes see their own clock readings (LocalTime) instead, which
// is how clock faults stay visible.
type Time int64

// Never is a time after every run's end (an open promise, an unset deadline).
const Never Time = math.MaxInt64

// Add returns t moved by d, saturating at Never.
func (t Time) Add(d time.Duration) Time {
	if t == Never || (d > 0 && t > Never-Time(d)) {
		return Never
	}
	return t + Time(d)
}

// satAdd is a+b, saturating at the largest and smallest durations instead of
// wrapping around: a sum of huge delays must stay huge, never turn into the past.
func satAdd(a, b time.Duration) time.Duration {
	s := a + b
	switch {
	case a > 0 && b > 0 && s < 0:
		return math.MaxInt64
	case a < 0 && b < 0 && s >= 0:
		return math.MinInt64
	}
	return s
}

// durationOf converts a non-negative float number of nanoseconds, saturating at
// the largest duration (a float conversion out of range gives any value at all).
func durationOf(ns float64) time.Duration {
	if ns >= math.MaxInt64 {
		return math.MaxInt64
	}
	return time.Duration(ns)
}

// Ms is t in milliseconds, the unit of the JSON output.
func (t Time) Ms() float64 { return float64(t) / 1e6 }

// String formats t as seconds with millisecond precision, or microsecond precision
// when the value needs it (half-millisecond network delays), so logs stay short.
func (t Time) String() string { return FormatDuration(time.Duration(t)) }

// FormatDuration is the one text form of a duration or reading in locksim: "12.500s".
func FormatDuration(d time.Duration) string {
	if Time(d) == Never {
		return "never"
	}
	if d == math.MinInt64 { // -d overflows: the general form
		return formatDurationSlow(d)
	}
	// Built without fmt: the trace's hash formats every event's times, and a
	// million-event run spent half its time here.
	var buf [32]byte
	b := buf[:0]
	if d < 0 {
		b, d = append(b, '-'), -d
	}
	s, ns := int64(d/time.Second), int64(d%time.Second)
	b = strconv.AppendInt(b, s, 10)
	b = append(b, '.')
	frac, digits := ns/1e6, 3
	switch {
	case ns%int64(time.Millisecond) == 0:
	case ns%int64(time.Microsecond) == 0:
		frac, digits = ns/1e3, 6
	default:
		frac, digits = ns, 9
	}
	var f [9]byte
	for i := digits - 1; i >= 0; i-- {
		f[i] = byte('0' + frac%10)
		frac /= 10
	}
	b = append(b, f[:digits]...)
	return string(append(b, 's'))
}

func formatDurationSlow(d time.Duration) string {
	sign := ""
	if d < 0 {
		sign, d = "-", -d
	}
	s, ns := int64(d/time.Second), int64(d%time.Second)
	switch {
	case ns%int64(time.Millisecond) == 0:
		return fmt.Sprintf("%s%d.%03ds", sign, s, ns/1e6)
	case ns%int64(time.Microsecond) == 0:
		return fmt.Sprintf("%s%d.%06ds", sign, s, ns/1e3)
	default:
		return fmt.Sprintf("%s%d.%09ds", sign, s, ns)
	}
}

// LocalTime is one process's reading of its own clock. Wall is what a process would
// get from gettimeofday: it includes the offset and every jump. Mono is what it would
// get from a monotonic clock: it drifts like the wall clock but never jumps. Both are
// durations since the local epoch.
type LocalTime struct {
	Wall time.Duration // the wall clock: offset, drift and jumps (gettimeofday)
	Mono time.Duration // the monotonic clock: drift only (CLOCK_MONOTONIC)
}

// String is the reading's text form: "wall 1.000s mono 1.000s".
func (l LocalTime) String() string {
	return "wall " + FormatDuration(l.Wall) + " mono " + FormatDuration(l.Mono)
}
