package dblock

import (
	"math/rand/v2"
	"time"
)

// Retry is a client's policy between failed attempts. With database locks it
// decides how the lock performs under contention: a fixed delay keeps clients
// that collided in step, a random one spreads them, an exponential one backs
// off from a busy row.
type Retry struct {
	Policy   RetryPolicy
	Delay    time.Duration // the first (fixed: every) delay
	Max      time.Duration // the cap of exponential backoff (0: none)
	Attempts int           // attempts before giving up (0: no limit)
}

// RetryPolicy names a retry policy.
type RetryPolicy uint8

const (
	RetryFixed       RetryPolicy = iota // Delay every time
	RetryRandom                         // uniform in [Delay/2, 3 Delay/2)
	RetryExponential                    // Delay, 2 Delay, 4 Delay, ... up to Max, each with up to 10% jitter
)

var retryNames = [...]string{RetryFixed: "fixed", RetryRandom: "random", RetryExponential: "exponential"}

func (p RetryPolicy) String() string { return retryNames[p] }

// RetryPolicyNames lists the policies, for the scenario language.
func RetryPolicyNames() []string { return retryNames[:] }

// ParseRetryPolicy reads a policy's name.
func ParseRetryPolicy(s string) (RetryPolicy, bool) {
	for i, n := range retryNames {
		if n == s {
			return RetryPolicy(i), true
		}
	}
	return 0, false
}

// wait is the delay before attempt n+1, after n failed attempts (n >= 1).
func (r Retry) wait(n int, rnd *rand.Rand) time.Duration {
	switch r.Policy {
	case RetryRandom:
		return r.Delay/2 + time.Duration(rnd.Int64N(int64(max(r.Delay, 1))))
	case RetryExponential:
		d := r.Delay
		for i := 1; i < n && (r.Max == 0 || d < r.Max); i++ {
			d *= 2
		}
		if r.Max > 0 { // 0: no cap
			d = min(d, r.Max)
		}
		return d + time.Duration(rnd.Int64N(int64(max(d/10, 1))))
	}
	return r.Delay
}

// more reports whether a client that has failed n attempts tries again.
func (r Retry) more(n int) bool { return r.Attempts == 0 || n < r.Attempts }
