package zset

import (
	"fmt"

	"github.com/locksim/locksim/sim"
)

// The time bucket of lostinsoba's "Distributed locks: NoSQL": an hourly job's
// score is the hour it last ran in.
//
//	ZADD jobs GT CH floor(ts / period) JOB
//
// GT only raises a score, so within one bucket the first worker's write changes
// it (CH = 1: it runs the job) and every later one leaves it alone (CH = 0). The
// lock "will simply be re-acquired when passed ts/timeout value is higher than
// stored": no release, no expiry. Each worker reads ts from its own wall clock,
// so the buckets are only as true as the clocks; and nothing ends a run when its
// bucket does: a run longer than the period overlaps the next one.

// claimBucket sends the claim of the bucket the client's wall clock is in.
func (c *Client) claimBucket(now sim.LocalTime, out *sim.Outputs) {
	c.bucket = floorDiv(int64(now.Wall), int64(c.cfg.Period))
	c.phase = phaseClaiming
	c.zadd(c.cfg.Key, fmt.Sprintf("GT CH %d %s", c.bucket, c.lock), out)
}

func (c *Client) bucketClaimed(won bool, out *sim.Outputs) {
	if !won {
		c.giveUp(fmt.Sprintf("CH = 0: bucket %d of %s is already claimed", c.bucket, c.lock), out)
		return
	}
	out.Observe(sim.Observation{Kind: sim.ObsJobStart, Client: c.env.ID, By: sim.NoProc, Lock: c.lock,
		Grant: c.value, Window: c.cfg.Period, Value: c.bucket})
	c.becomeHolder(out)
}

// floorDiv is a / b rounded down (b > 0): a wall clock behind the epoch is in a
// negative bucket.
func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && a < 0 {
		q--
	}
	return q
}
