package redis

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/sim"
)

// ClientConfig chooses among the published variants of the single-instance lock.
type ClientConfig struct {
	Server sim.ProcID
	// SetNXExpire takes the lock with SETNX and then EXPIRE, two commands: a client
	// that dies between them leaves a key that never expires. The default is the
	// atomic SET key value NX PX ttl.
	SetNXExpire bool
	// PlainDel releases with DEL, which deletes the key whoever holds it now. The
	// default is the compare-and-delete script.
	PlainDel bool
	// ValidityTimer makes the client stop believing once ttl has passed on its own
	// monotonic clock, counted from before it sent the request. Without it the
	// client believes until it releases.
	ValidityTimer bool
	TTL           time.Duration // used when the acquire command gives none
	// Retry is the policy after a failed acquire (the zero policy gives up).
	// The scenario language's retry=R jitter=J is a uniform wait in [R, R+J].
	Retry   lockkit.Retry
	Timeout time.Duration // a request with no reply by then has failed
	// FencingINCR makes the lock service mint a fencing token: once SET
	// succeeds, the client INCRs TokenKey(lock) on the same node and carries the
	// number to the resource with every operation (Kleppmann, 2016).
	FencingINCR bool
	// WaitReplicas makes the client send WAIT WaitReplicas WaitTimeout after SET
	// succeeds, and count the lock as taken only if that many replicas
	// acknowledged it. It does not make the lock safe: acknowledged is not
	// durable, and a failover may promote a replica that did not acknowledge.
	WaitReplicas int
	WaitTimeout  time.Duration
	// Hold, when set, releases the lock this long after acquiring it (the
	// work a contention workload does under the lock).
	Hold time.Duration
	// Stamp selects the legacy lock of the old SETNX page (stamp.go).
	Stamp StampLock
}

// TokenKey is the counter a fencing client INCRs for a lock's tokens.
func TokenKey(lock string) string { return "token:" + lock }

// Client commands, sent by scenarios.
const (
	CmdAcquire = lockkit.CmdAcquire
	CmdRelease = lockkit.CmdRelease
	CmdRead    = lockkit.CmdRead
	CmdWrite   = lockkit.CmdWrite
)

type clientState uint8

const (
	stateIdle clientState = iota
	stateAcquiring
	stateHolding
)

var stateNames = [...]string{"idle", "acquiring", "holding"}

const (
	timerRetry sim.TimerID = iota + 1
	timerValidity
	timerTimeout
	timerHold
)

// Client is a process that takes a lock on one Redis node.
type Client struct {
	env      sim.Env
	cfg      ClientConfig
	state    clientState
	lock     string
	ttl      time.Duration
	value    string // this acquisition's random value ("c1#2")
	acquired int    // acquisitions started
	tries    lockkit.Attempts
	start    time.Duration // monotonic reading before the request (validity start)
	pending  string        // the request awaiting a reply
	reqID    uint64
	belief   sim.Belief
	token    int64
	hasToken bool
	now      sim.LocalTime // the clocks at the current step
}

// NewClient returns a constructor for a lock client with cfg.
func NewClient(cfg ClientConfig) func(sim.Env) sim.Process {
	return func(env sim.Env) sim.Process {
		return &Client{env: env, cfg: cfg, tries: lockkit.Attempts{Client: env.ID, Rand: env.Rand, Retry: cfg.Retry, Timer: timerRetry}}
	}
}

// Step handles one input.
func (c *Client) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	c.now = now
	switch in.Kind {
	case sim.InCommand:
		c.command(now, in.Msg, out)
	case sim.InTimer:
		switch in.Timer {
		case timerRetry:
			c.try(now, out)
		case timerValidity:
			// The lock may be gone: the client stops believing and may acquire
			// again; it keeps its value, so a later release still names it.
			c.endBelief(sim.ReasonValidity, out)
			c.state = stateIdle
		case timerHold:
			if c.state == stateHolding {
				c.command(now, sim.Message{Op: CmdRelease, Key: c.lock}, out)
			}
		case timerTimeout:
			if c.state == stateAcquiring {
				c.pending = ""
				c.failAttempt("no reply within "+sim.FormatDuration(c.cfg.Timeout), out)
			}
		}
	case sim.InMessage:
		if in.From == c.cfg.Server {
			c.reply(now, in.Msg, out)
		}
	}
}

func (c *Client) command(now sim.LocalTime, m sim.Message, out *sim.Outputs) {
	switch m.Op {
	case CmdAcquire:
		if c.state != stateIdle {
			out.Observe(c.note("%s is already %s %s; acquire ignored", c.env.Name, stateNames[c.state], c.lock))
			return
		}
		c.lock, c.ttl = m.Key, c.cfg.TTL
		if m.Has(sim.ArgTTL) {
			c.ttl = time.Duration(m.Num(sim.ArgTTL)) * time.Millisecond
		}
		c.acquired++
		c.hasToken = false
		c.value = LockValue(c.env, c.acquired)
		c.state = stateAcquiring
		if c.cfg.Stamp != StampOff {
			c.value = "" // each attempt stamps its own expiry time
		}
		c.tries.Begin(out, c.lock, c.value)
		c.try(now, out)
	case CmdRelease:
		switch {
		case c.value == "":
			out.Observe(c.note("%s has acquired nothing; release ignored", c.env.Name))
			return
		case m.Key != "" && m.Key != c.lock:
			out.Observe(c.note("%s holds nothing called %s; release ignored", c.env.Name, m.Key))
			return
		}
		out.CancelTimer(timerHold)
		c.release(out)
	case CmdRead, CmdWrite:
		// The client acts under the grant it last held, believing or not: the
		// scenario decides when a stale client writes.
		c.belief.Operate(out, c.env, m)
	}
}

// LockValue is the unique value of one acquisition, as the Redis docs require
// (see sim.AcquisitionValue).
func LockValue(env sim.Env, n int) string { return sim.AcquisitionValue(env, n) }

// try sends one acquisition attempt.
func (c *Client) try(now sim.LocalTime, out *sim.Outputs) {
	if c.state != stateAcquiring {
		return
	}
	c.start = now.Mono
	ms := int64(c.ttl / time.Millisecond)
	if c.cfg.Stamp != StampOff {
		c.tryStamp(now, out)
		return
	}
	if c.cfg.SetNXExpire {
		c.request(sim.Message{Op: OpSetNX, Key: c.lock, Value: c.value}, out)
	} else {
		c.request(sim.Message{Op: OpSet, Key: c.lock, Value: c.value, Opts: "NX PX"}.With(ArgTime, ms), out)
	}
}

func (c *Client) request(m sim.Message, out *sim.Outputs) {
	c.reqID++
	m.ID = c.reqID
	c.pending = m.Op
	out.Send(c.cfg.Server, m)
	if c.cfg.Timeout > 0 {
		out.SetTimer(timerTimeout, c.cfg.Timeout)
	}
}

func (c *Client) reply(now sim.LocalTime, m sim.Message, out *sim.Outputs) {
	if m.ID != c.reqID || c.pending == "" {
		return // a late reply to a request already given up on
	}
	op := c.pending
	c.pending = ""
	out.CancelTimer(timerTimeout)
	if c.cfg.Stamp != StampOff {
		c.stampReply(now, op, m, out)
		return
	}
	switch op {
	case OpSet:
		switch {
		case m.Op == ReplyErr:
			c.failAttempt(m.Value, out)
		case m.Op != ReplyOK:
			c.failAttempt("key exists", out)
		case c.cfg.WaitReplicas > 0:
			c.request(sim.Message{Op: OpWait}.With(ArgReplicas, int64(c.cfg.WaitReplicas)).With(ArgWaitTimeout, int64(c.cfg.WaitTimeout/time.Millisecond)), out)
		case c.cfg.FencingINCR:
			c.request(sim.Message{Op: OpIncr, Key: TokenKey(c.lock)}, out)
		default:
			c.becomeHolder(now, out)
		}
	case OpWait:
		switch {
		case m.Op != ReplyInt || m.Num(ArgInt) < int64(c.cfg.WaitReplicas):
			// Too few replicas have it: give the key back and try again later.
			c.reqID++
			out.Send(c.cfg.Server, sim.Message{Op: OpCAD, Key: c.lock, Value: c.value, ID: c.reqID})
			c.failAttempt(fmt.Sprintf("WAIT: %d of %d replicas acknowledged", m.Num(ArgInt), c.cfg.WaitReplicas), out)
		case c.cfg.FencingINCR:
			c.request(sim.Message{Op: OpIncr, Key: TokenKey(c.lock)}, out)
		default:
			c.becomeHolder(now, out)
		}
	case OpIncr:
		if m.Op == ReplyInt {
			c.token, c.hasToken = m.Num(ArgInt), true
		}
		c.becomeHolder(now, out)
	case OpSetNX:
		if m.Op == ReplyInt && m.Num(ArgInt) == 1 {
			ms := int64(c.ttl / time.Millisecond)
			c.request(sim.Message{Op: OpPExpire, Key: c.lock}.With(ArgTime, ms), out)
		} else {
			c.failAttempt("key exists", out)
		}
	case OpPExpire:
		if c.cfg.FencingINCR {
			c.request(sim.Message{Op: OpIncr, Key: TokenKey(c.lock)}, out)
			return
		}
		c.becomeHolder(now, out)
	}
}

func (c *Client) becomeHolder(now sim.LocalTime, out *sim.Outputs) {
	c.state = stateHolding
	var window time.Duration
	if c.cfg.ValidityTimer {
		window = c.ttl - (now.Mono - c.start)
		out.SetTimer(timerValidity, window)
	}
	c.belief.Start(out, c.env.ID, c.lock, c.value, window, c.token, c.hasToken)
	if c.cfg.Hold > 0 {
		out.SetTimer(timerHold, c.cfg.Hold)
	}
}

func (c *Client) failAttempt(why string, out *sim.Outputs) {
	if !c.tries.Fail(out, why) {
		c.state = stateIdle
	}
}

func (c *Client) release(out *sim.Outputs) {
	if c.state == stateAcquiring {
		// Told to release while still trying: it stops trying, visibly.
		c.tries.GiveUp(out)
		out.CancelTimer(timerTimeout)
		c.pending = ""
	}
	c.endBelief(sim.ReasonReleased, out)
	c.state = stateIdle
	// The reply changes nothing the client believes, so it is not awaited.
	c.reqID++
	if c.cfg.Stamp != StampOff {
		c.releaseStamp(c.now, out)
	} else if c.cfg.PlainDel {
		out.Send(c.cfg.Server, sim.Message{Op: OpDel, Key: c.lock, ID: c.reqID})
	} else {
		out.Send(c.cfg.Server, sim.Message{Op: OpCAD, Key: c.lock, Value: c.value, ID: c.reqID})
	}
	c.pending = ""
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
	case timerRetry:
		return "retry"
	case timerValidity:
		return "validity ends"
	case timerTimeout:
		return "request timeout"
	case timerHold:
		return "work done"
	}
	return ""
}

// Describe is the client's state.
func (c *Client) Describe() string {
	s := "state: " + stateNames[c.state]
	if c.lock != "" {
		s += " lock: " + c.lock + " value: " + c.value
	}
	if c.belief.Holds() {
		s += " (believes it holds)"
	}
	return s
}
