package sim

import (
	"math/bits"
	"time"
)

// MaxDriftPPM bounds clock drift (10%) so that readings never overflow within
// MaxRunTime.
const MaxDriftPPM = 100_000

// Clock is one process's clock: it starts at Offset, runs fast or slow by DriftPPM
// parts per million, and its wall reading moves by every jump applied so far. The
// monotonic reading drifts too but ignores the offset and jumps, as CLOCK_MONOTONIC
// does. A clock belongs to the machine, so it survives the process's crashes.
type Clock struct {
	Offset   time.Duration // the wall reading at true time 0
	DriftPPM int64         // how fast it runs: +100 gains 100 µs a second, -100 loses it
	jumped   time.Duration
	base     Time          // true time of the last drift change
	baseMono time.Duration // monotonic reading at base
}

// Read returns the local readings at true time t.
func (c *Clock) Read(t Time) LocalTime {
	d := int64(t - c.base)
	if c.DriftPPM != 0 { // most clocks keep true time: spare them the division
		d += d * c.DriftPPM / 1_000_000
	}
	mono := c.baseMono + time.Duration(d)
	return LocalTime{Wall: c.Offset + mono + c.jumped, Mono: mono}
}

// maxJumped bounds the sum of a clock's jumps (a million hours either way), so that
// wall readings, and the deadlines protocols compute from them, never overflow
// however many jumps a scenario makes.
const maxJumped = 1_000_000 * time.Hour

// Jump moves the wall reading by d (an NTP step, an operator's date command).
func (c *Clock) Jump(d time.Duration) {
	c.jumped = min(max(satAdd(c.jumped, d), -maxJumped), maxJumped)
}

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
	if d > 2*MaxRunTime || c.DriftPPM == 0 {
		return d // past any run's end at any allowed drift; or a clock that keeps true time
	}
	// d*1e6/(1e6+ppm) in 128 bits: d*1e6 overflows 64 bits past about 2.5 hours.
	hi, lo := bits.Mul64(uint64(d), 1_000_000)
	q, _ := bits.Div64(hi, lo, uint64(1_000_000+c.DriftPPM))
	td := int64(q)
	for c.advance(td) < int64(d) {
		td++
	}
	return time.Duration(td)
}

// advance is how far the monotonic reading moves in td of true time (as Read
// computes it, without overflow for any td up to 2*MaxRunTime).
func (c *Clock) advance(td int64) int64 {
	hi, lo := bits.Mul64(uint64(td), uint64(absInt(c.DriftPPM)))
	q, _ := bits.Div64(hi, lo, 1_000_000)
	if c.DriftPPM < 0 {
		return td - int64(q)
	}
	return td + int64(q)
}

func absInt(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}
