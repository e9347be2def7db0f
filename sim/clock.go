package sim

import "time"

// MaxDriftPPM bounds clock drift (10%) so that readings never overflow within
// MaxRunTime.
const MaxDriftPPM = 100_000

// Clock is one process's clock: it starts at Offset, runs fast or slow by DriftPPM
// parts per million, and its wall reading moves by every jump applied so far. The
// monotonic reading drifts too but ignores the offset and jumps, as CLOCK_MONOTONIC
// does. A clock belongs to the machine, so it survives the process's crashes.
type Clock struct {
	Offset   time.Duration
	DriftPPM int64
	jumped   time.Duration
	base     Time          // true time of the last drift change
	baseMono time.Duration // monotonic reading at base
}

// Read returns the local readings at true time t.
func (c *Clock) Read(t Time) LocalTime {
	d := int64(t - c.base)
	mono := c.baseMono + time.Duration(d+d*c.DriftPPM/1_000_000)
	return LocalTime{Wall: c.Offset + mono + c.jumped, Mono: mono}
}

// Jump moves the wall reading by d (an NTP step, an operator's date command).
func (c *Clock) Jump(d time.Duration) { c.jumped += d }

// SetDrift changes the drift rate from true time t on, keeping readings continuous.
func (c *Clock) SetDrift(t Time, ppm int64) {
	c.baseMono = c.Read(t).Mono
	c.base = t
	c.DriftPPM = ppm
}

// TrueDuration converts a local monotonic duration into the true duration after which
// the local clock has advanced by at least d. Timers use it: a fast clock fires early
// in true time, which is exactly the fault drift models.
func (c *Clock) TrueDuration(d time.Duration) time.Duration {
	if d <= 0 {
		return 0
	}
	// d*1e6/(1e6+ppm) written as d - d*ppm/(1e6+ppm), so it cannot overflow.
	td := int64(d) - int64(d)*c.DriftPPM/(1_000_000+c.DriftPPM)
	for td+td*c.DriftPPM/1_000_000 < int64(d) {
		td++
	}
	return time.Duration(td)
}
