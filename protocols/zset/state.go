package zset

import (
	"fmt"
	"strconv"
	"time"

	"github.com/locksim/locksim/protocols/redis"
	"github.com/locksim/locksim/sim"
)

// The state-transition lock of lostinsoba's "Distributed locks: NoSQL": a job's
// state is its score in a sorted set, and a worker takes the job by moving it to
// in progress. The article gives the interface (SetStatus, Capture); the scores
// and the reaper below are this model's, chosen so that one ZADD decides:
//
//	failed -1   new 0 (or absent)   in progress 1   done 2
//
//	ZADD jobs GT CH 1 J            claim: only from new or failed, so CH = 1 for
//	                               exactly one worker
//	ZADD jobs:started <ms> J       the claimer's wall clock, for the reaper
//	ZADD jobs XX 2 J               done
//
// The reaper (ReapAfter > 0): a worker whose claim gets CH = 0 reads the job's
// state; if it is in progress and was claimed at least ReapAfter ago (its own
// wall clock against the claimer's), it resets the job to failed
// (ZADD jobs XX CH -1 J) and claims it again. That frees the job of a crashed
// worker, but a worker that is merely slow is still running it: the reaper cannot
// tell the two apart, and then two workers run the job at once. Nor is the
// reaper atomic: it reads, then resets with a plain ZADD XX, so two reapers that
// read the same stale claim both reset and both claim (the second reset undoes
// the first reaper's fresh claim), and a job finished between the read and the
// reset is set back to failed and runs again. A Lua script (or WATCH/MULTI) that
// compares what it read would close that race; the model keeps the race, as the
// simple recipe has it.

const (
	stateFailed     = -1
	stateNew        = 0
	stateInProgress = 1
	stateDone       = 2
)

// releaseState is the state a worker's release writes: done, which no claim
// moves again (GT only raises a score); or, with ReleaseToNew (the mistake),
// new, which is below in progress, so the next claim takes the job and runs it
// again.
func (c *Client) releaseState() int {
	if c.cfg.ReleaseToNew {
		return stateNew
	}
	return stateDone
}

// startedKey holds each job's claim time, in milliseconds of the claimer's wall
// clock.
func (c *Client) startedKey() string { return c.cfg.Key + ":started" }

// claimJob sends the claim, marked as the state lock's (redis.JobClaim) so
// that the node reports a claim that moves the job to in progress as a grant.
func (c *Client) claimJob(out *sim.Outputs) {
	c.phase = phaseClaiming
	c.request(sim.Message{Op: redis.OpZAdd, Key: c.cfg.Key, Opts: fmt.Sprintf("GT CH %d %s", stateInProgress, c.lock),
		Body: redis.JobClaim{}}, out)
}

func (c *Client) jobClaimed(now sim.LocalTime, won bool, out *sim.Outputs) {
	switch {
	case won:
		c.zaddNoReply(c.startedKey(), fmt.Sprintf("%d %s", now.Wall.Milliseconds(), c.lock), out)
		// A job is run once: its start has no period (once-per-bucket judges
		// it as a one-shot job).
		out.Observe(sim.Observation{Kind: sim.ObsJobStart, Client: c.env.ID, By: sim.NoProc, Lock: c.lock, Grant: c.value})
		c.becomeHolder(out)
	case c.cfg.ReapAfter > 0:
		c.phase = phaseInspecting
		c.request(sim.Message{Op: redis.OpZScore, Key: c.cfg.Key, Opts: c.lock}, out)
	default:
		c.failAttempt("CH = 0: "+c.lock+" is in progress or done", out)
	}
}

// inspected reads the job's state: done ends the attempt; in progress asks when
// it was claimed.
func (c *Client) inspected(m sim.Message, out *sim.Outputs) {
	switch m.Value {
	case strconv.Itoa(stateDone):
		c.giveUp(c.lock+" is done", out)
	case strconv.Itoa(stateInProgress):
		c.phase = phaseStarted
		c.request(sim.Message{Op: redis.OpZScore, Key: c.startedKey(), Opts: c.lock}, out)
	default: // it changed since the claim: try again
		c.failAttempt(c.lock+" changed state meanwhile", out)
	}
}

// startRead reaps the job if it has been in progress at least ReapAfter. A
// missing claim time (the node lost it) counts as long ago.
func (c *Client) startRead(now sim.LocalTime, m sim.Message, out *sim.Outputs) {
	since := "an unknown time"
	if m.Op == redis.ReplyBulk {
		ms, err := strconv.ParseInt(m.Value, 10, 64)
		if err == nil {
			age := now.Wall - time.Duration(ms)*time.Millisecond
			if age < c.cfg.ReapAfter {
				c.failAttempt(fmt.Sprintf("%s is in progress, claimed %s ago (reap after %s)", c.lock,
					sim.FormatDuration(age), sim.FormatDuration(c.cfg.ReapAfter)), out)
				return
			}
			since = sim.FormatDuration(age)
		}
	}
	out.Observe(sim.Note(c.env.ID, "%s reaps %s: in progress for %s, at least reap-after %s; it resets it to failed",
		c.env.Name, c.lock, since, sim.FormatDuration(c.cfg.ReapAfter)))
	c.phase = phaseReaping
	// Marked as a reset (redis.JobReset), so that the node reports the claim it
	// ends as a recovery, not as another worker's deletion.
	c.request(sim.Message{Op: redis.OpZAdd, Key: c.cfg.Key, Opts: fmt.Sprintf("XX CH %d %s", stateFailed, c.lock),
		Body: redis.JobReset{}}, out)
}
