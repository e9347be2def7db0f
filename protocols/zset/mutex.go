package zset

import "github.com/locksim/locksim/sim"

// The mutex of lostinsoba's "Distributed locks: NoSQL": two states as the
// member's score, 0 released and 1 acquired.
//
//	ZADD locks NX 0 L      create it released (1: created, 0: it exists)
//	ZADD locks XX CH 1 L   flip it: 1 for the one client whose write changed
//	                       the score, 0 for everyone after it
//	ZADD locks XX CH 0 L   release
//
// Redis runs commands one at a time, so of clients racing to flip, exactly one
// sees CH = 1. Nothing ever expires: "since it's not guaranteed that client will
// be able to release the lock, this approach is more suitable for cases when it's
// necessary to cancel next task processing if previous attempt did not succeed".

// create sends ZADD key NX 0 L: the member exists, released, unless it did.
func (c *Client) create(out *sim.Outputs) {
	c.phase = phaseCreating
	c.zadd(c.cfg.Key, "NX 0 "+c.lock, out)
}

// flip sends ZADD key XX CH 1 L, whatever the creation's reply was.
func (c *Client) flip(out *sim.Outputs) {
	c.phase = phaseClaiming
	c.zadd(c.cfg.Key, "XX CH 1 "+c.lock, out)
}

func (c *Client) flipped(won bool, out *sim.Outputs) {
	if won {
		c.becomeHolder(out)
		return
	}
	c.failAttempt("CH = 0: "+c.lock+" is already acquired", out)
}
