package lockkit

import (
	"math"
	"math/rand/v2"
	"time"
)

// Backoff is how the wait before the next attempt is chosen.
type Backoff uint8

const (
	// Never: the client does not retry; its first failed attempt is its last.
	// The zero Retry never retries.
	Never Backoff = iota
	// Fixed waits Delay every time. Clients that failed together retry
	// together, and may collide again (redlock-split-vote-fixed-delay).
	Fixed
	// Uniform waits a duration drawn uniformly from [Delay, Max], both ends
	// included, from the client's own random stream: clients that failed
	// together spread out.
	Uniform
	// Exponential waits Delay after the first failure, then doubles the wait
	// after each further failure, up to Max (0: no cap): a client backs off from
	// a busy lock.
	Exponential
)

var backoffNames = [...]string{Never: "never", Fixed: "fixed", Uniform: "uniform", Exponential: "exponential"}

// String is the policy's name in the scenario language: "fixed", "exponential".
func (b Backoff) String() string {
	if int(b) < len(backoffNames) {
		return backoffNames[b]
	}
	return "backoff?"
}

// Retry is a lock client's policy after a failed attempt: whether it tries again,
// and after how long. Every client in locksim uses it with this meaning. The
// zero Retry never retries.
type Retry struct {
	Backoff Backoff // how each wait is chosen; Never (the zero value) does not retry
	// Delay is every wait (Fixed), the shortest wait (Uniform) or the first wait
	// (Exponential).
	Delay time.Duration
	// Max is the longest wait before jitter: the top of the Uniform draw, the
	// cap of Exponential backoff (0: none). Fixed ignores it.
	Max time.Duration
	// JitterPercent adds to each wait a draw uniform in [0, wait × JitterPercent
	// / 100), so that clients that waited the same do not collide again (etcd's
	// client and exponential backoff use 10). 0: none.
	JitterPercent int
	// Attempts is how many attempts the client makes before it gives up: 0 no
	// limit, 1 as good as Never.
	Attempts int
}

// Again reports whether a client that has failed `failed` attempts of one
// acquisition tries again.
func (r Retry) Again(failed int) bool {
	return r.Backoff != Never && (r.Attempts == 0 || failed < r.Attempts)
}

// Wait is the wait before the next attempt of a client that has failed `failed`
// attempts (failed >= 1). The random parts are drawn from rnd, the client's own
// stream, in a fixed order (the Uniform draw, then the jitter), and only when the
// policy has them: a Fixed policy without jitter draws nothing, so adding one to
// a client leaves the others' runs unchanged.
func (r Retry) Wait(failed int, rnd *rand.Rand) time.Duration {
	d := r.Delay
	switch r.Backoff {
	case Uniform:
		if r.Max > r.Delay {
			span := int64(r.Max - r.Delay)
			if span < math.MaxInt64 {
				span++ // Max itself may be drawn
			}
			d += time.Duration(rnd.Int64N(span))
		}
	case Exponential:
		for i := 1; i < failed && (r.Max == 0 || d < r.Max) && d <= math.MaxInt64/2; i++ {
			d *= 2
		}
		if r.Max > 0 {
			d = min(d, r.Max)
		}
	}
	if r.JitterPercent > 0 {
		// d × p / 100 without overflow, rounded down; a jitter always draws,
		// even when the wait is too short for it to add anything.
		p := int64(r.JitterPercent)
		spread := int64(d/100)*p + int64(d%100)*p/100
		d += time.Duration(rnd.Int64N(max(spread, 1)))
	}
	return d
}
