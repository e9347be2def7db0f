package redlock

import (
	"fmt"
	"strings"
	"time"

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
	Retry       time.Duration // the retry delay: random in [0, Retry], or exactly Retry if FixedRetry
	FixedRetry  bool
	MaxAttempts int // 0: unlimited
	// Work, when set, makes the client loop: once it holds the lock it works for
	// this long, releases, and acquires again (a workload for benchmarks and
	// property tests).
	Work time.Duration
}

// DefaultConfig is the distlock page's suggestion.
func DefaultConfig() Config {
	return Config{TTL: 10 * time.Second, NodeTimeout: 50 * time.Millisecond, DriftFactor: 0.01,
		DriftConst: 2 * time.Millisecond, Retry: 200 * time.Millisecond}
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
	attempts int
	t1       time.Duration // the clock reading before the first SET
	next     int           // sequential: the node being asked
	answered []bool        // per node: replied (or timed out) this round
	got      []bool        // per node: SET succeeded this round
	reqID    uint64
	belief   sim.Belief
	// extension round
	extending bool
	extT1     time.Duration
	extended  []bool
	extAnswer []bool
	validEnd  time.Duration // the clock reading at which the current validity ends
	lastT2    time.Duration
}

// New returns a constructor for a Redlock client with cfg.
func New(cfg Config) func(sim.Env) sim.Process {
	return func(env sim.Env) sim.Process {
		n := len(cfg.Nodes)
		return &Client{env: env, cfg: cfg, answered: make([]bool, n), got: make([]bool, n),
			extended: make([]bool, n), extAnswer: make([]bool, n)}
	}
}

// Quorum is N/2+1.
func (c *Client) Quorum() int { return len(c.cfg.Nodes)/2 + 1 }

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
	if m.HasN {
		c.ttl = time.Duration(m.N) * time.Millisecond
	}
	c.acquired++
	c.attempts = 0
	c.value = redis.LockValue(c.env, c.acquired)
	c.st = acquiring
	out.Observe(sim.Observation{Kind: sim.ObsAttempt, Client: c.env.ID, By: sim.NoProc, Lock: c.lock, Grant: c.value,
		Value: int64(len(c.cfg.Nodes))})
	c.try(now, out)
}

// try starts one round: T1, then SET NX PX on the nodes.
func (c *Client) try(now sim.LocalTime, out *sim.Outputs) {
	if c.st != acquiring {
		return
	}
	c.attempts++
	c.t1 = c.clock(now)
	c.reqID++
	for i := range c.cfg.Nodes {
		c.answered[i], c.got[i] = false, false
	}
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
	out.Send(c.cfg.Nodes[i], sim.Message{Op: redis.OpSet, Key: c.lock, Value: c.value, Opts: "NX PX", ID: c.reqID}.WithN(ms))
}

func (c *Client) nodeIndex(p sim.ProcID) int {
	for i, n := range c.cfg.Nodes {
		if n == p {
			return i
		}
	}
	return -1
}

func (c *Client) reply(now sim.LocalTime, from sim.ProcID, m sim.Message, out *sim.Outputs) {
	i := c.nodeIndex(from)
	if i >= 0 && c.extending && m.ID == c.reqID && !c.extAnswer[i] {
		c.extAnswer[i] = true
		c.extended[i] = m.Op == redis.ReplyInt && m.N == 1
		for _, a := range c.extAnswer {
			if !a {
				return
			}
		}
		out.CancelTimer(timerNode)
		c.finishExtend(now, out)
		return
	}
	if i < 0 || c.st != acquiring || m.ID != c.reqID || c.answered[i] {
		return // a resource's reply, an unlock's reply, or a reply too late for its round
	}
	if !c.cfg.Multiplex && i != c.next {
		return
	}
	c.answered[i] = true
	c.got[i] = m.Op == redis.ReplyOK
	c.advance(now, out)
}

// timeout gives up on the node being asked (sequential) or on every node that has
// not answered (multiplexed).
func (c *Client) timeout(now sim.LocalTime, out *sim.Outputs) {
	if c.extending {
		c.finishExtend(now, out)
		return
	}
	if c.st != acquiring {
		return
	}
	if c.cfg.Multiplex {
		for i := range c.answered {
			c.answered[i] = true
		}
	} else {
		c.answered[c.next] = true
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
	} else {
		for _, a := range c.answered {
			if !a {
				return
			}
		}
	}
	out.CancelTimer(timerNode)
	c.finishRound(now, out)
}

// finishRound takes T2 and decides, as the distlock page says.
func (c *Client) finishRound(now sim.LocalTime, out *sim.Outputs) {
	t2 := c.clock(now)
	c.lastT2 = t2
	n := 0
	for _, g := range c.got {
		if g {
			n++
		}
	}
	drift := Drift(c.ttl, c.cfg.DriftFactor, c.cfg.DriftConst)
	validity := c.ttl - (t2 - c.t1) - drift
	if n >= c.Quorum() && validity > 0 {
		c.becomeHolder(validity, n, out)
		return
	}
	why := fmt.Sprintf("%d of %d nodes, quorum %d", n, len(c.cfg.Nodes), c.Quorum())
	if n >= c.Quorum() {
		why = fmt.Sprintf("validity %s is not positive", sim.FormatDuration(validity))
	}
	c.unlockAll(out)
	retry := c.cfg.MaxAttempts == 0 || c.attempts < c.cfg.MaxAttempts
	reason := sim.ReasonNoRetry
	if retry {
		reason = sim.ReasonRetry
	}
	out.Observe(sim.Observation{Kind: sim.ObsAttemptFailed, Client: c.env.ID, By: sim.NoProc, Lock: c.lock,
		Reason: why + ", " + reason})
	if !retry {
		c.st = idle
		out.Observe(sim.Observation{Kind: sim.ObsGiveUp, Client: c.env.ID, By: sim.NoProc, Lock: c.lock})
		return
	}
	wait := c.cfg.Retry
	if !c.cfg.FixedRetry && c.cfg.Retry > 0 {
		wait = time.Duration(c.env.Rand.Int64N(int64(c.cfg.Retry) + 1))
	}
	out.SetTimer(timerRetry, wait)
}

func (c *Client) becomeHolder(validity time.Duration, n int, out *sim.Outputs) {
	c.st = holding
	out.Observe(sim.Observation{Kind: sim.ObsGrant, Service: Service, Client: c.env.ID, By: sim.NoProc,
		Lock: c.lock, Grant: c.value, Window: validity, Value: int64(len(c.cfg.Nodes)),
		Text: fmt.Sprintf("%d of %d nodes", n, len(c.cfg.Nodes))})
	c.belief.Start(out, c.env.ID, c.lock, c.value, validity, 0, false)
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
	if c.st != holding || c.extending {
		out.Observe(c.note("%s holds no lock to extend; extend ignored", c.env.Name))
		return
	}
	c.extending = true
	c.extT1 = c.clock(now)
	c.reqID++
	for i, n := range c.cfg.Nodes {
		c.extended[i], c.extAnswer[i] = false, false
		out.Send(n, sim.Message{Op: redis.OpCAX, Key: c.lock, Value: c.value, ID: c.reqID}.WithN(int64(c.ttl/time.Millisecond)))
	}
	out.SetTimer(timerNode, c.cfg.NodeTimeout)
}

func (c *Client) finishExtend(now sim.LocalTime, out *sim.Outputs) {
	c.extending = false
	t2 := c.clock(now)
	n := 0
	for _, e := range c.extended {
		if e {
			n++
		}
	}
	validity := c.ttl - (t2 - c.extT1) - Drift(c.ttl, c.cfg.DriftFactor, c.cfg.DriftConst)
	if n < c.Quorum() || validity <= 0 || !c.belief.Holds() || t2 >= c.validEnd {
		out.Observe(c.note("%s's extension of %s failed: %d of %d nodes; the lock stays valid only until its old validity ends",
			c.env.Name, c.lock, n, len(c.cfg.Nodes)))
		return
	}
	c.validEnd = t2 + validity
	out.Observe(sim.Observation{Kind: sim.ObsGrant, Service: Service, Client: c.env.ID, By: sim.NoProc,
		Lock: c.lock, Grant: c.value, Window: validity, Value: int64(len(c.cfg.Nodes)),
		Text: fmt.Sprintf("%d of %d nodes (extended)", n, len(c.cfg.Nodes))})
	out.Observe(sim.Observation{Kind: sim.ObsMetric, Client: c.env.ID, By: sim.NoProc, Name: "validity_ms",
		Value: int64(validity / time.Millisecond)})
	out.SetTimer(timerValidity, validity)
}

// loop starts the next acquisition of a looping client.
func (c *Client) loop(now sim.LocalTime, out *sim.Outputs) {
	if c.cfg.Work > 0 && c.st == idle {
		c.startAcquire(now, sim.Message{Op: redis.CmdAcquire, Key: c.lock}.WithN(int64(c.ttl/time.Millisecond)), out)
	}
}

// unlockAll sends compare-and-delete to every node, as the algorithm requires after
// a failed round and on release: a node may hold the key though its reply was lost.
func (c *Client) unlockAll(out *sim.Outputs) {
	c.reqID++
	for _, n := range c.cfg.Nodes {
		out.Send(n, sim.Message{Op: redis.OpCAD, Key: c.lock, Value: c.value, ID: c.reqID})
	}
}

func (c *Client) release(out *sim.Outputs) {
	if c.value == "" {
		out.Observe(c.note("%s has acquired nothing; release ignored", c.env.Name))
		return
	}
	if c.st == acquiring {
		out.Observe(sim.Observation{Kind: sim.ObsGiveUp, Client: c.env.ID, By: sim.NoProc, Lock: c.lock})
		out.CancelTimer(timerNode)
		out.CancelTimer(timerRetry)
	}
	if c.belief.Holds() {
		out.Observe(sim.Observation{Kind: sim.ObsGrantEnd, Service: Service, Client: c.env.ID, By: c.env.ID,
			Lock: c.lock, Grant: c.value, Reason: sim.ReasonReleased, Value: int64(len(c.cfg.Nodes))})
	}
	c.endBelief(sim.ReasonReleased, out)
	c.st = idle
	c.extending = false
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
		for i, g := range c.got {
			if g {
				got = append(got, c.env.Names[c.cfg.Nodes[i]])
			}
		}
		s += " set on: " + strings.Join(got, ",")
	}
	return s
}
