package redis

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// StampLock chooses the legacy lock of the old SETNX page ("Design pattern:
// Locking with SETNX", https://redis.io/commands/setnx/ before Redis 2.6.12):
// the key has no TTL; its value is the time the lock expires, in Unix
// milliseconds by the holder's clock. A client that finds the key taken GETs
// it and, if that time has passed by its own clock, takes the lock over.
type StampLock uint8

const (
	// StampOff is the default: the client uses SET NX PX (or SETNX+EXPIRE).
	StampOff StampLock = iota
	// StampDel takes an expired lock over with DEL then SETNX, which the page
	// itself says is wrong: two waiters that both saw the old stamp both DEL
	// and both win (the second DEL deletes the first waiter's new key).
	StampDel
	// StampGetSet takes it over with GETSET, the page's fix: only the waiter
	// whose GETSET returns the expired stamp wins; a loser has overwritten the
	// winner's stamp with its own (by a few milliseconds, the page says, "not a
	// problem"). It is safe only while the clients' clocks agree: a client
	// whose clock runs ahead reads a live stamp as expired and takes the lock.
	StampGetSet
)

// stampValue is a stamp lock's value: the expiry time in Unix milliseconds by
// the client's wall clock, which is all the page's clients read, tagged with
// the acquisition so that the log and the checker can tell two clients' equal
// stamps apart ("1767225610001/c2#1").
func stampValue(now sim.LocalTime, ttl time.Duration, acq string) string {
	return strconv.FormatInt(wallMs(now)+ttl.Milliseconds()+1, 10) + "/" + acq
}

// stampOf reads the expiry time of a stamp lock's value.
func stampOf(v string) (int64, bool) {
	ms, _, _ := strings.Cut(v, "/")
	return parseInt(ms)
}

// stampExpired reports whether a stamp lock's value has passed by the client's
// wall clock (a value that is not a stamp counts as expired, as the page's
// clients would read it).
func stampExpired(now sim.LocalTime, v string) bool {
	ms, ok := stampOf(v)
	return !ok || ms < wallMs(now)
}

// tryStamp sends a stamp lock's first command: SETNX key <expiry time>.
func (c *Client) tryStamp(now sim.LocalTime, out *sim.Outputs) {
	c.value = stampValue(now, c.ttl, LockValue(c.env, c.acquired))
	c.request(sim.Message{Op: OpSetNX, Key: c.lock, Value: c.value}, out)
}

// stampReply moves a stamp lock's acquisition on after the reply to op.
func (c *Client) stampReply(now sim.LocalTime, op string, m sim.Message, out *sim.Outputs) {
	switch op {
	case OpSetNX:
		if m.Op == ReplyInt && m.Num(ArgInt) == 1 {
			c.stampHolder(now, out)
			return
		}
		c.request(sim.Message{Op: OpGet, Key: c.lock}, out) // taken: is it expired?
	case OpGet:
		switch {
		case m.Op == ReplyNil: // gone meanwhile: try SETNX again
			c.tryStamp(now, out)
		case !stampExpired(now, m.Value):
			ms, _ := stampOf(m.Value)
			c.failAttempt(fmt.Sprintf("locked until %d by my clock's reading %d", ms, wallMs(now)), out)
		case c.cfg.Stamp == StampDel:
			c.request(sim.Message{Op: OpDel, Key: c.lock}, out)
		default:
			c.value = stampValue(now, c.ttl, LockValue(c.env, c.acquired))
			c.request(sim.Message{Op: OpGetSet, Key: c.lock, Value: c.value}, out)
		}
	case OpDel:
		c.tryStamp(now, out)
	case OpGetSet:
		if m.Op == ReplyNil || m.Op == ReplyBulk && stampExpired(now, m.Value) {
			c.stampHolder(now, out)
			return
		}
		c.failAttempt("GETSET returned a stamp that has not expired: another client took it first", out)
	}
}

// stampHolder makes the client the holder. The lock's promise is the stamp,
// which only the clients read: the client reports the grant its protocol
// concluded, for the node's service, until its stamp by its own clock (after a
// SETNX, a renewal of the node's grant, which has no expiry; after a GETSET
// takeover, a grant the node could not have told from a loser's overwrite).
func (c *Client) stampHolder(now sim.LocalTime, out *sim.Outputs) {
	ms, _ := stampOf(c.value)
	out.Observe(sim.Observation{Kind: sim.ObsGrant, Service: c.env.Names[c.cfg.Server], Client: c.env.ID, By: sim.NoProc,
		Lock: c.lock, Grant: c.value, Window: max(time.Duration(ms-wallMs(now))*time.Millisecond, 0)})
	c.becomeHolder(now, out)
}

// releaseStamp is the page's release: DEL the key, but only if the client's own
// stamp has not passed (else another client may hold the lock by now).
func (c *Client) releaseStamp(now sim.LocalTime, out *sim.Outputs) {
	if stampExpired(now, c.value) {
		out.Observe(c.note("%s's stamp %s has passed: it does not DEL %s", c.env.Name, c.value, c.lock))
		return
	}
	// It gives back the grant it reported (the node reports the end of a
	// grant it made itself when the DEL arrives).
	out.Observe(sim.Observation{Kind: sim.ObsGrantEnd, Service: c.env.Names[c.cfg.Server], Client: c.env.ID, By: c.env.ID,
		Lock: c.lock, Grant: c.value, Reason: sim.ReasonReleased})
	out.Send(c.cfg.Server, sim.Message{Op: OpDel, Key: c.lock, ID: c.reqID})
}
