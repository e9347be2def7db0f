package sessionlock

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/sim"
)

// tutorial:begin client-config
// ClientConfig configures a lock client.
type ClientConfig struct {
	Server sim.ProcID // the lock server
	// ValidityTimer makes the client stop believing it holds the lock once its
	// session may have expired on the server. Off is the broken variant.
	ValidityTimer bool
	// Margin is how much earlier than the server the client gives its session
	// up: room for clock drift and the reply's travel (100 ms when 0).
	Margin time.Duration
	// Retry is what the client does when the lock is busy (lockkit's meaning).
	Retry lockkit.Retry
}

// tutorial:end client-config

// DefaultMargin is the validity margin when the configuration leaves it 0.
const DefaultMargin = 100 * time.Millisecond

// DefaultClientConfig is a client's defaults, which its scenario kind starts
// from: a validity timer with DefaultMargin, and a retry every 100 to 300 ms
// (uniformly drawn, so that clients refused together spread out). Server is
// left to the caller.
func DefaultClientConfig() ClientConfig {
	return ClientConfig{Server: sim.NoProc, ValidityTimer: true, Margin: DefaultMargin,
		Retry: lockkit.Retry{Backoff: lockkit.Uniform, Delay: 100 * time.Millisecond, Max: 300 * time.Millisecond}}
}

// The client's timers.
const (
	timerRetry     sim.TimerID = iota + 1 // try to acquire again (lockkit.Attempts arms it)
	timerKeepalive                        // send the next heartbeat
	timerValidity                         // the session may have expired: stop
)

// Client acquires a lock, keeps its session alive, and works on a resource
// under it.
type Client struct {
	env    sim.Env
	cfg    ClientConfig
	tries  lockkit.Attempts
	belief sim.Belief
	lock   string
	grant  string
	// validUntil: from this monotonic reading on, the session may have expired
	validUntil time.Duration
	session    time.Duration
}

// NewClient returns the constructor of a client with cfg, for sim.World.AddProcess.
func NewClient(cfg ClientConfig) func(sim.Env) sim.Process {
	if cfg.Margin <= 0 {
		cfg.Margin = DefaultMargin
	}
	return func(env sim.Env) sim.Process {
		return &Client{env: env, cfg: cfg,
			tries: lockkit.Attempts{Client: env.ID, Rand: env.Rand, Retry: cfg.Retry, Timer: timerRetry}}
	}
}

// tutorial:begin client
// Step handles one input: a command, a reply, a timer.
func (c *Client) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InCommand:
		c.command(now, in.Msg, out)
	case sim.InMessage:
		c.reply(now, in.Msg, out)
	case sim.InTimer:
		switch in.Timer {
		case timerRetry:
			c.ask(now, out, sim.Message{Op: OpAcquire, Key: c.lock})
		case timerKeepalive:
			c.ask(now, out, sim.Message{Op: OpKeepalive, Key: c.lock, Value: c.grant}.InBackground())
			out.SetTimer(timerKeepalive, c.session/3)
		case timerValidity:
			c.stop(out, sim.ReasonValidity)
		}
	}
}

func (c *Client) command(now sim.LocalTime, m sim.Message, out *sim.Outputs) {
	switch m.Op {
	case lockkit.CmdAcquire:
		if c.belief.Holds() {
			return
		}
		c.lock = m.Key
		c.tries.Begin(out, c.lock, "")
		c.ask(now, out, sim.Message{Op: OpAcquire, Key: c.lock})
	case lockkit.CmdRelease:
		if c.belief.Holds() {
			out.Send(c.cfg.Server, sim.Message{Op: OpRelease, Key: c.lock, Value: c.grant})
			c.stop(out, sim.ReasonReleased)
		}
	case lockkit.CmdRead, lockkit.CmdWrite:
		// The check and the send are one step, so nothing can stop the client
		// between them here; a real client must fence for that (see the package doc).
		if c.cfg.ValidityTimer && c.belief.Holds() && now.Mono >= c.validUntil {
			c.stop(out, sim.ReasonValidity)
		}
		if c.cfg.ValidityTimer && !c.belief.Holds() {
			out.Observe(sim.Note(c.env.ID, "%s does not hold %s: %s not sent", c.env.Name, c.lock, m.Op))
			return
		}
		c.belief.Operate(out, c.env, m)
	}
}

// ask sends a request to the server. Its ID is the monotonic reading when it
// went out, which the server's answer carries back: the session the answer
// grants or renews started no earlier than that, whatever else was sent since.
func (c *Client) ask(now sim.LocalTime, out *sim.Outputs, m sim.Message) {
	m.ID = uint64(now.Mono)
	out.Send(c.cfg.Server, m)
}

func (c *Client) reply(now sim.LocalTime, m sim.Message, out *sim.Outputs) {
	switch m.Op {
	case OpGranted:
		if c.belief.Holds() || m.Key != c.lock {
			return
		}
		c.grant, c.session, c.validUntil = m.Value, time.Duration(m.Num(ArgSession))*time.Millisecond, 0
		c.renewed(now, m.ID, out)
		c.belief.Start(out, c.env.ID, c.lock, c.grant, c.validUntil-now.Mono, m.Num(ArgToken), true)
		out.SetTimer(timerKeepalive, c.session/3)
	case OpBusy:
		if !c.belief.Holds() && m.Key == c.lock {
			c.tries.Fail(out, "busy")
		}
	case OpAlive:
		if c.belief.Holds() && m.Value == c.grant {
			c.renewed(now, m.ID, out)
			// A server that mints a token with each renewal (renew-token=on)
			// sends it: fence with the newest. Answers can cross in the
			// network, so an older one is not taken back.
			if t, fenced := c.belief.Token(); m.Num(ArgToken) > 0 && (!fenced || m.Num(ArgToken) > t) {
				c.belief.Renew(out, c.env.ID, m.Num(ArgToken))
			}
		}
	case OpExpired:
		if c.belief.Holds() && m.Value == c.grant {
			c.stop(out, sim.ReasonExpired)
		}
	}
}

// renewed moves the validity on: a session from when the answered request
// (asked, its ID) went out, less the margin.
func (c *Client) renewed(now sim.LocalTime, asked uint64, out *sim.Outputs) {
	c.validUntil = max(c.validUntil, time.Duration(asked)+c.session-c.cfg.Margin)
	if c.cfg.ValidityTimer {
		out.SetTimer(timerValidity, max(c.validUntil-now.Mono, 0))
	}
}

// stop ends the client's belief and its session's timers.
func (c *Client) stop(out *sim.Outputs, reason string) {
	c.belief.End(out, c.env.ID, reason)
	out.CancelTimer(timerKeepalive)
	out.CancelTimer(timerValidity)
}

// tutorial:end client

// TimerName names the client's timers in the log.
func (c *Client) TimerName(id sim.TimerID) string {
	return map[sim.TimerID]string{timerRetry: "retry", timerKeepalive: "keepalive", timerValidity: "validity"}[id]
}

// BackgroundTimer marks the heartbeat timer as background (the TUI's quiet mode folds it).
func (c *Client) BackgroundTimer(id sim.TimerID) bool { return id == timerKeepalive }

// Describe is the client's state.
func (c *Client) Describe() string {
	if !c.belief.Holds() {
		return "holds nothing"
	}
	return fmt.Sprintf("holds %s as %s, valid until mono %s", c.lock, c.grant, sim.FormatDuration(c.validUntil))
}
