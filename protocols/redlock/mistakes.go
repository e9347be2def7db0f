package redlock

import (
	"fmt"
	"slices"
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/protocols/redis"
	"github.com/locksim/locksim/sim"
)

// The published ways to get Redlock wrong, each a Config option beside the
// distlock page's algorithm (the default). Sources are in
// docs/protocols/redlock.md, "Common mistakes".

// ExtendMode is how a client extends the lock it holds.
type ExtendMode uint8

const (
	// ExtendCompare is the distlock page's extension: compare-and-extend (the
	// key is extended only where it still holds the client's value) on every
	// node, counted only if a majority extended it before the old validity
	// ended, with a fresh validity measured from the extension's start.
	ExtendCompare ExtendMode = iota
	// ExtendSet re-SETs the key (SET key value PX ttl) without checking its
	// value (sbertrang/redis-distlock issue 2; redlock-rb issue 36: "it works
	// as if we always had the lock"). A SET always succeeds, so the client can
	// never learn that it lost the lock: a refresher that runs after its lock
	// expired takes the key over from the new holder and believes it holds it.
	ExtendSet
	// ExtendAnyNode compare-and-extends, but reports success when any node
	// extended, without a majority.
	ExtendAnyNode
)

var extendNames = [...]string{"compare-and-extend", "set", "any-node"}

func (m ExtendMode) String() string { return extendNames[m] }

// ExtendModes lists the modes' names, the default first.
func ExtendModes() []string { return extendNames[:] }

// Fencing is where a Redlock client's fencing token comes from.
type Fencing uint8

const (
	// FencingOff: no token. Redlock's random value is unique, not ordered.
	FencingOff Fencing = iota
	// FencingMaxOfNodes INCRs a counter on each node that granted the lock and
	// takes the largest answer: Kleppmann's point made runnable ("How to do
	// distributed locking", 2016: counters on several nodes go out of sync),
	// a later holder can get a smaller number than an earlier one.
	FencingMaxOfNodes
	// FencingCounter INCRs one counter kept apart from the lock nodes (a
	// service of its own, which must itself never lose a number).
	FencingCounter
)

var fencingNames = [...]string{"off", "max-of-nodes", "counter"}

func (f Fencing) String() string { return fencingNames[f] }

// FencingNames lists the token sources' names, the default first.
func FencingNames() []string { return fencingNames[:] }

// validity is what the client may count on after a round that ended at t2:
// the TTL less the time acquiring took and the drift allowance, as the page
// says, or the whole TTL for a client that forgets the elapsed time.
func (c *Client) validity(t2 time.Duration) time.Duration {
	if c.cfg.FullTTLValidity {
		return c.ttl
	}
	return c.ttl - (t2 - c.t1) - Drift(c.ttl, c.cfg.DriftFactor, c.cfg.DriftConst)
}

// extended reports whether a node's reply to an extension says it extended.
func (c *Client) extended(m sim.Message) bool {
	if c.cfg.Extend == ExtendSet {
		return m.Op == redis.ReplyOK
	}
	return m.Op == redis.ReplyInt && m.Num(redis.ArgInt) == 1
}

// extensionCounts decides whether an extension that n nodes accepted, leaving
// validity, counts.
func (c *Client) extensionCounts(n int, validity, t2 time.Duration) bool {
	switch c.cfg.Extend {
	case ExtendSet:
		// It never asks whether it still held the lock: its SETs succeeded.
		return c.ext.Majority() && validity > 0
	case ExtendAnyNode:
		return n > 0 && validity > 0 && c.belief.Holds() && t2 < c.validEnd
	}
	return c.ext.Majority() && validity > 0 && c.belief.Holds() && t2 < c.validEnd
}

// tokenRound is the INCR round of a fencing client, after a majority said OK.
type tokenRound struct {
	asking bool
	asked  []sim.ProcID // who was asked, in order
	got    []bool
	max    int64 // the token: the largest answer
	has    bool
	n      int // nodes in the majority, for the grant's text
}

// askTokens INCRs token:LOCK on the nodes that granted the lock, or on the
// counter.
func (c *Client) askTokens(out *sim.Outputs) {
	c.tok = tokenRound{asking: true, n: c.round.Yes(), asked: c.round.YesVoters()}
	if c.cfg.Fencing == FencingCounter {
		c.tok.asked = []sim.ProcID{c.cfg.Counter}
	}
	c.tok.got = make([]bool, len(c.tok.asked))
	c.reqID++
	for _, p := range c.tok.asked {
		out.Send(p, sim.Message{Op: redis.OpIncr, Key: redis.TokenKey(c.lock), ID: c.reqID})
	}
	out.SetTimer(timerNode, c.cfg.NodeTimeout)
}

func (c *Client) tokenReply(now sim.LocalTime, from sim.ProcID, m sim.Message, out *sim.Outputs) {
	i := slices.Index(c.tok.asked, from)
	if i < 0 || c.tok.got[i] {
		return
	}
	c.tok.got[i] = true
	if m.Op == redis.ReplyInt && (!c.tok.has || m.Num(redis.ArgInt) > c.tok.max) {
		c.tok.max, c.tok.has = m.Num(redis.ArgInt), true
	}
	if !slices.Contains(c.tok.got, false) {
		out.CancelTimer(timerNode)
		c.tokensDone(now, out)
	}
}

// tokensDone ends the token round: with a token and validity left the client
// holds the lock, else the attempt fails like a round without a majority.
func (c *Client) tokensDone(now sim.LocalTime, out *sim.Outputs) {
	c.tok.asking = false
	t := c.clock(now)
	c.lastT2 = t
	validity := c.validity(t)
	if c.tok.has && validity > 0 {
		c.becomeHolder(validity, c.tok.n, out)
		return
	}
	why := fmt.Sprintf("no fencing token within %s", sim.FormatDuration(c.cfg.NodeTimeout))
	if c.tok.has {
		why = fmt.Sprintf("validity %s is not positive after the token", sim.FormatDuration(validity))
	}
	c.unlockAll(out)
	if !c.tries.Fail(out, why) {
		c.st = idle
	}
}

// majority is the quorum of the client's nodes (for messages).
func (c *Client) majority() int { return lockkit.Majority(len(c.cfg.Nodes)) }
