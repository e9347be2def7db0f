package redlock

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/protocols/redis"
	"github.com/locksim/locksim/sim"
)

// CmdExtend asks a holding client to extend its lock by its TTL.
const CmdExtend = "extend"

// Service names the Redlock grants in observations: the promise is made by the
// algorithm over all N nodes, not by one of them.
const Service = "redlock"

// Config configures a Redlock client.
type Config struct {
	Nodes       []sim.ProcID  // the N independent masters
	TTL         time.Duration // used when the acquire command gives none
	Multiplex   bool          // send to all nodes at once (default: one after another)
	NodeTimeout time.Duration // how long to wait for one node (small against the TTL)
	DriftFactor float64       // clock drift allowance as a fraction of the TTL (0.01)
	DriftConst  time.Duration // plus this constant (2 ms)
	WallClock   bool          // measure elapsed time on the wall clock, not the monotonic one
	// Retry is the policy after a failed round: the distlock page retries after
	// a random delay, which the scenario language's retry=R draws uniformly from
	// [0, R] (retry-mode=fixed: exactly R).
	Retry lockkit.Retry
	// Work, when set, makes the client loop: once it holds the lock it works for
	// this long, releases, and acquires again (a workload for benchmarks and
	// property tests).
	Work time.Duration

	// The published mistakes (mistakes.go), each off by default: the zero
	// Config is the distlock page's algorithm.
	//
	// FullTTLValidity counts the whole TTL as the validity, however long
	// acquiring took (no elapsed-time check).
	FullTTLValidity bool
	// UnlockGrantedOnly releases (and cleans up after a failed round) only the
	// nodes that said OK, not every instance.
	UnlockGrantedOnly bool
	// Extend is how the client extends its lock.
	Extend ExtendMode
	// Fencing is where the client's fencing token comes from (none by default:
	// Redlock mints none); Counter is the token counter's node for
	// FencingCounter.
	Fencing Fencing
	Counter sim.ProcID
}

// DefaultConfig is the distlock page's suggestion.
func DefaultConfig() Config {
	return Config{TTL: 10 * time.Second, NodeTimeout: 50 * time.Millisecond, DriftFactor: 0.01,
		DriftConst: 2 * time.Millisecond, Retry: lockkit.Retry{Backoff: lockkit.Uniform, Max: 200 * time.Millisecond}}
}

type state uint8

const (
	idle state = iota
	acquiring
	holding
)

var stateNames = [...]string{"idle", "acquiring", "holding"}

const (
	timerNode     sim.TimerID = iota + 1 // the per-node (or per-round, multiplexed) timeout
	timerRetry                           // the delay before the next attempt
	timerValidity                        // the validity the client computed runs out
	timerWork                            // a looping client's work is done
)

// Client is a Redlock client.
type Client struct {
	env      sim.Env
	cfg      Config
	st       state
	lock     string
	ttl      time.Duration
	value    string
	acquired int
	tries    lockkit.Attempts
	t1       time.Duration // the clock reading before the first SET
	next     int           // sequential: the node being asked
	round    lockkit.Tally // this round's answers: yes when SET succeeded (a timeout is a no)
	reqID    uint64
	belief   sim.Belief
	// extension round
	extending bool
	extT1     time.Duration
	ext       lockkit.Tally // the extension's answers: yes when the node extended
	validEnd  time.Duration // the clock reading at which the current validity ends
	lastT2    time.Duration
	// token round (Fencing): after a majority, INCR the counter(s)
	tok tokenRound
}

// New returns a constructor for a Redlock client with cfg.
func New(cfg Config) func(sim.Env) sim.Process {
	return func(env sim.Env) sim.Process {
		return &Client{env: env, cfg: cfg, round: lockkit.NewTally(cfg.Nodes), ext: lockkit.NewTally(cfg.Nodes),
			tries: lockkit.Attempts{Client: env.ID, Rand: env.Rand, Retry: cfg.Retry, Timer: timerRetry, Nodes: len(cfg.Nodes)}}
	}
}

// Drift is the clock drift allowance for a TTL: TTL x factor + constant.
func Drift(ttl time.Duration, factor float64, constant time.Duration) time.Duration {
	return time.Duration(float64(ttl)*factor) + constant
}

func (c *Client) clock(now sim.LocalTime) time.Duration {
	if c.cfg.WallClock {
		return now.Wall
	}
	return now.Mono
}

// Step handles one input.
func (c *Client) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InCommand:
		switch in.Msg.Op {
		case redis.CmdAcquire:
			c.startAcquire(now, in.Msg, out)
		case redis.CmdRelease:
			if in.Msg.Key != "" && in.Msg.Key != c.lock {
				out.Observe(c.note("%s holds nothing called %s; release ignored", c.env.Name, in.Msg.Key))
				return
			}
			c.release(out)
		case CmdExtend:
			c.extend(now, out)
		case redis.CmdRead, redis.CmdWrite:
			c.belief.Operate(out, c.env, in.Msg)
		}
	case sim.InTimer:
		switch in.Timer {
		case timerNode:
			c.timeout(now, out)
		case timerRetry:
			c.try(now, out)
		case timerValidity:
			c.endBelief(sim.ReasonValidity, out)
			c.st = idle
			out.CancelTimer(timerWork)
			c.loop(now, out)
		case timerWork:
			c.release(out)
			c.loop(now, out)
		}
	case sim.InMessage:
		c.reply(now, in.From, in.Msg, out)
	}
}

func (c *Client) startAcquire(now sim.LocalTime, m sim.Message, out *sim.Outputs) {
	if c.st != idle {
		out.Observe(c.note("%s is already %s %s; acquire ignored", c.env.Name, stateNames[c.st], c.lock))
		return
	}
	c.lock, c.ttl = m.Key, c.cfg.TTL
	if m.Has(sim.ArgTTL) {
		c.ttl = time.Duration(m.Num(sim.ArgTTL)) * time.Millisecond
	}
	c.acquired++
	c.value = redis.LockValue(c.env, c.acquired)
	c.tok = tokenRound{}
	c.st = acquiring
	c.tries.Begin(out, c.lock, c.value)
	c.try(now, out)
}

// try starts one round: T1, then SET NX PX on the nodes.
func (c *Client) try(now sim.LocalTime, out *sim.Outputs) {
	if c.st != acquiring {
		return
	}
	c.t1 = c.clock(now)
	c.reqID++
	c.round.Reset()
	if c.cfg.Multiplex {
		for i := range c.cfg.Nodes {
			c.sendSet(i, out)
		}
	} else {
		c.next = 0
		c.sendSet(0, out)
	}
	out.SetTimer(timerNode, c.cfg.NodeTimeout)
}

func (c *Client) sendSet(i int, out *sim.Outputs) {
	ms := int64(c.ttl / time.Millisecond)
	out.Send(c.cfg.Nodes[i], sim.Message{Op: redis.OpSet, Key: c.lock, Value: c.value, Opts: "NX PX", ID: c.reqID}.With(redis.ArgTime, ms))
}

func (c *Client) reply(now sim.LocalTime, from sim.ProcID, m sim.Message, out *sim.Outputs) {
	if c.tok.asking && m.ID == c.reqID {
		c.tokenReply(now, from, m, out)
		return
	}
	if c.extending && m.ID == c.reqID && c.ext.Vote(from, c.extended(m)) {
		if c.ext.Done() {
			out.CancelTimer(timerNode)
			c.finishExtend(now, out)
		}
		return
	}
	if c.st != acquiring || m.ID != c.reqID || !c.cfg.Multiplex && slices.Index(c.cfg.Nodes, from) != c.next {
		return // an unlock's reply, a reply too late for its round, or from a node not asked
	}
	if c.round.Vote(from, m.Op == redis.ReplyOK) { // not a resource's reply, nor a duplicate
		c.advance(now, out)
	}
}

// timeout gives up on the node being asked (sequential) or on every node that has
// not answered (multiplexed).
func (c *Client) timeout(now sim.LocalTime, out *sim.Outputs) {
	if c.extending {
		c.finishExtend(now, out)
		return
	}
	if c.tok.asking {
		c.tokensDone(now, out)
		return
	}
	if c.st != acquiring {
		return
	}
	if c.cfg.Multiplex {
		c.round.Close()
	} else {
		c.round.Vote(c.cfg.Nodes[c.next], false)
	}
	c.advance(now, out)
}

// advance moves the round on after a node answered or timed out.
func (c *Client) advance(now sim.LocalTime, out *sim.Outputs) {
	if !c.cfg.Multiplex {
		c.next++
		if c.next < len(c.cfg.Nodes) {
			c.sendSet(c.next, out)
			out.SetTimer(timerNode, c.cfg.NodeTimeout)
			return
		}
	} else if !c.round.Done() {
		return
	}
	out.CancelTimer(timerNode)
	c.finishRound(now, out)
}

// finishRound takes T2 and decides, as the distlock page says.
func (c *Client) finishRound(now sim.LocalTime, out *sim.Outputs) {
	t2 := c.clock(now)
	c.lastT2 = t2
	n := c.round.Yes()
	validity := c.validity(t2)
	if c.round.Majority() && validity > 0 {
		if c.cfg.Fencing != FencingOff {
			c.askTokens(out)
			return
		}
		c.becomeHolder(validity, n, out)
		return
	}
	why := fmt.Sprintf("%d of %d nodes, quorum %d", n, len(c.cfg.Nodes), c.majority())
	if c.round.Majority() {
		why = fmt.Sprintf("validity %s is not positive", sim.FormatDuration(validity))
	}
	c.unlockAll(out)
	if !c.tries.Fail(out, why) {
		c.st = idle
	}
}

func (c *Client) becomeHolder(validity time.Duration, n int, out *sim.Outputs) {
	c.st = holding
	out.Observe(sim.Observation{Kind: sim.ObsGrant, Service: Service, Client: c.env.ID, By: sim.NoProc,
		Lock: c.lock, Grant: c.value, Window: validity, Value: int64(len(c.cfg.Nodes)),
		Text: fmt.Sprintf("%d of %d nodes", n, len(c.cfg.Nodes)), Token: c.tok.max, HasToken: c.tok.has})
	c.belief.Start(out, c.env.ID, c.lock, c.value, validity, c.tok.max, c.tok.has)
	out.Observe(sim.Observation{Kind: sim.ObsMetric, Client: c.env.ID, By: sim.NoProc, Name: "validity_ms",
		Value: int64(validity / time.Millisecond)})
	out.SetTimer(timerValidity, validity)
	c.validEnd = c.lastT2 + validity
	if c.cfg.Work > 0 {
		out.SetTimer(timerWork, c.cfg.Work)
	}
}

// extend sends compare-and-extend to every node, as the distlock page describes:
// the extension counts only if a majority extends it within the validity.
func (c *Client) extend(now sim.LocalTime, out *sim.Outputs) {
	// A refresher that re-SETs does not ask whether it still holds the lock:
	// it extends whatever it last acquired.
	blind := c.cfg.Extend == ExtendSet && c.st == idle && c.value != ""
	if c.st != holding && !blind || c.extending {
		out.Observe(c.note("%s holds no lock to extend; extend ignored", c.env.Name))
		return
	}
	c.extending = true
	c.extT1 = c.clock(now)
	c.reqID++
	c.ext.Reset()
	ms := int64(c.ttl / time.Millisecond)
	for _, n := range c.cfg.Nodes {
		if c.cfg.Extend == ExtendSet {
			out.Send(n, sim.Message{Op: redis.OpSet, Key: c.lock, Value: c.value, Opts: "PX", ID: c.reqID}.With(redis.ArgTime, ms))
			continue
		}
		out.Send(n, sim.Message{Op: redis.OpCAX, Key: c.lock, Value: c.value, ID: c.reqID}.With(redis.ArgTime, ms))
	}
	out.SetTimer(timerNode, c.cfg.NodeTimeout)
}

func (c *Client) finishExtend(now sim.LocalTime, out *sim.Outputs) {
	c.extending = false
	t2 := c.clock(now)
	n := c.ext.Yes()
	validity := c.ttl - (t2 - c.extT1) - Drift(c.ttl, c.cfg.DriftFactor, c.cfg.DriftConst)
	if !c.extensionCounts(n, validity, t2) {
		out.Observe(c.note("%s's extension of %s failed: %d of %d nodes; the lock stays valid only until its old validity ends",
			c.env.Name, c.lock, n, len(c.cfg.Nodes)))
		return
	}
	c.validEnd = t2 + validity
	if !c.belief.Holds() { // a blind refresher believes its SETs: it holds the lock again
		c.st = holding
		c.belief.Start(out, c.env.ID, c.lock, c.value, validity, c.tok.max, c.tok.has)
	}
	ob := sim.Observation{Kind: sim.ObsGrant, Service: Service, Client: c.env.ID, By: sim.NoProc,
		Lock: c.lock, Grant: c.value, Window: validity, Value: int64(len(c.cfg.Nodes)),
		Text: fmt.Sprintf("%d of %d nodes (extended)", n, len(c.cfg.Nodes))}
	if n < c.majority() {
		ob.Reason = "no majority, counted as enough"
	}
	out.Observe(ob)
	out.Observe(sim.Observation{Kind: sim.ObsMetric, Client: c.env.ID, By: sim.NoProc, Name: "validity_ms",
		Value: int64(validity / time.Millisecond)})
	out.SetTimer(timerValidity, validity)
}

// loop starts the next acquisition of a looping client.
func (c *Client) loop(now sim.LocalTime, out *sim.Outputs) {
	if c.cfg.Work > 0 && c.st == idle {
		c.startAcquire(now, sim.Message{Op: redis.CmdAcquire, Key: c.lock}.With(sim.ArgTTL, int64(c.ttl/time.Millisecond)), out)
	}
}

// unlockAll sends compare-and-delete to every node, as the algorithm requires after
// a failed round and on release: a node may hold the key though its reply was lost.
func (c *Client) unlockAll(out *sim.Outputs) {
	c.reqID++
	nodes := c.cfg.Nodes
	if c.cfg.UnlockGrantedOnly {
		nodes = c.round.YesVoters() // the mistake: the others may hold the key too
	}
	for _, n := range nodes {
		out.Send(n, sim.Message{Op: redis.OpCAD, Key: c.lock, Value: c.value, ID: c.reqID})
	}
}

func (c *Client) release(out *sim.Outputs) {
	if c.value == "" {
		out.Observe(c.note("%s has acquired nothing; release ignored", c.env.Name))
		return
	}
	if c.st == acquiring {
		c.tries.GiveUp(out)
		out.CancelTimer(timerNode)
	}
	if c.belief.Holds() {
		out.Observe(sim.Observation{Kind: sim.ObsGrantEnd, Service: Service, Client: c.env.ID, By: c.env.ID,
			Lock: c.lock, Grant: c.value, Reason: sim.ReasonReleased, Value: int64(len(c.cfg.Nodes))})
	}
	c.endBelief(sim.ReasonReleased, out)
	c.st = idle
	c.extending = false
	c.tok.asking = false
	out.CancelTimer(timerWork)
	c.unlockAll(out)
}

func (c *Client) endBelief(reason string, out *sim.Outputs) {
	if c.belief.End(out, c.env.ID, reason) {
		out.CancelTimer(timerValidity)
	}
}

func (c *Client) note(format string, args ...any) sim.Observation {
	return sim.Note(c.env.ID, format, args...)
}

// TimerName names the client's timers for the log.
func (c *Client) TimerName(id sim.TimerID) string {
	switch id {
	case timerNode:
		if c.cfg.Multiplex {
			return "round timeout"
		}
		return "node timeout"
	case timerRetry:
		return "retry"
	case timerValidity:
		return "validity ends"
	case timerWork:
		return "work done"
	}
	return ""
}

// Describe is the client's state.
func (c *Client) Describe() string {
	s := "state: " + stateNames[c.st]
	if c.lock != "" {
		s += " lock: " + c.lock + " value: " + c.value
	}
	if c.st == acquiring {
		var got []string
		for _, p := range c.round.YesVoters() {
			got = append(got, c.env.Names[p])
		}
		s += " set on: " + strings.Join(got, ",")
	}
	return s
}
