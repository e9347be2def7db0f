package lockkit

import (
	"math/rand/v2"
	"time"

	"github.com/locksim/locksim/sim"
)

// Attempts is a lock client's account of its current acquisition: it counts the
// failed attempts, asks the Retry policy whether and when to try again, arms the
// retry timer, and reports the attempt, each failure and the give-up in the
// shared vocabulary, so that every client's timeline reads alike ("c1 failed to
// acquire L (key exists, retry)", "c1 gives up on L").
//
// The zero Attempts reports and never retries on its own timer; set the fields
// once, when the process is built.
type Attempts struct {
	Client sim.ProcID  // the client itself, as its reports name it
	Rand   *rand.Rand  // the client's own stream (sim.Env.Rand), for the waits
	Retry  Retry       // the policy
	Timer  sim.TimerID // the client's retry timer, armed after a failure it retries
	// Nodes > 0 says the client acquires by majority over Nodes nodes (Redlock):
	// the nodes' grants to it are votes (sim.ObsAttempt).
	Nodes int
	// Period > 0 says the lock is a once-per-period lock of that period (a time
	// bucket): each attempt claims the period the client's clock is in.
	Period time.Duration

	lock   string
	failed int
}

// Begin starts an acquisition of lock and reports that the client tries to
// acquire it; grant names the acquisition when the client names it before it
// holds the lock (a Redis lock's random value), else "".
func (a *Attempts) Begin(out *sim.Outputs, lock, grant string) {
	a.lock, a.failed = lock, 0
	out.Observe(sim.Observation{Kind: sim.ObsAttempt, Client: a.Client, By: sim.NoProc, Lock: lock, Grant: grant,
		Value: int64(a.Nodes), Window: a.Period})
}

// Failed is the number of attempts of this acquisition that have failed.
func (a *Attempts) Failed() int { return a.failed }

// Fail reports that an attempt failed for why and, by the policy, either arms
// the retry timer and returns true, or reports that the client gives up and
// returns false.
func (a *Attempts) Fail(out *sim.Outputs, why string) bool {
	a.failed++
	if !a.Retry.Again(a.failed) {
		a.FailFinally(out, why)
		return false
	}
	out.Observe(sim.Observation{Kind: sim.ObsAttemptFailed, Client: a.Client, By: sim.NoProc, Lock: a.lock,
		Reason: why + ", " + sim.ReasonRetry})
	out.SetTimer(a.Timer, a.Retry.Wait(a.failed, a.Rand))
	return true
}

// FailFinally reports a failed attempt after which there is nothing to try again
// (the job is already done, the bucket already claimed), whatever the policy
// says, and that the client gives up.
func (a *Attempts) FailFinally(out *sim.Outputs, why string) {
	out.Observe(sim.Observation{Kind: sim.ObsAttemptFailed, Client: a.Client, By: sim.NoProc, Lock: a.lock,
		Reason: why + ", " + sim.ReasonNoRetry})
	a.GiveUp(out)
}

// GiveUp reports that the client stops trying to acquire the lock without
// holding it (told to release while still trying, its session gone), and
// disarms the retry timer.
func (a *Attempts) GiveUp(out *sim.Outputs) {
	out.Observe(sim.Observation{Kind: sim.ObsGiveUp, Client: a.Client, By: sim.NoProc, Lock: a.lock})
	if a.Timer != 0 {
		out.CancelTimer(a.Timer)
	}
}
