package etcd

import (
	"fmt"
	"slices"
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/sim"
)

// ClientConfig configures a lock client.
type ClientConfig struct {
	Members []sim.ProcID  // the cluster; the client talks to the first and fails over in order
	TTL     time.Duration // the session's lease TTL (default 5 s)
	// Fencing carries the lock key's create revision to the resource as a token.
	Fencing bool
	// Hold, when set, releases the lock this long after acquiring it.
	Hold time.Duration
	// Timeout: a request unanswered this long goes to the next member (default 1 s).
	Timeout time.Duration
	// NoWaitCheck is the Mutex before the fix of etcd issue 11456 (PR 11408,
	// December 2019): once nobody is left before its key, Lock returned
	// without checking that its own key still existed, and nothing in the wait
	// looked at the session's lease, so a waiter whose lease had expired (its
	// key deleted) was told it held the lock. Off, the Mutex of today: after
	// the wait it reads its key back and gives up if the key is gone, and the
	// lease's loss ends the wait.
	NoWaitCheck bool
	// DeadlineLoop checks the client-side lease deadline as clientv3's lessor
	// does (deadlineLoop): once a second it closes every keepalive whose
	// deadline (the last answer's TTL after it came) has passed, so the client
	// learns that its lease may be gone up to a second after the deadline.
	// Off, the deadline is a timer that fires exactly at it.
	DeadlineLoop bool
	// IgnoreSessionDone is an application that never looks at its session's
	// Done channel (clientv3's Session.Done: "a channel that closes when the
	// lease is orphaned, expires, or is otherwise no longer being refreshed").
	// Once the Mutex has told it that it holds the lock, it goes on believing
	// so after its lease is lost and its key deleted, until it releases: the
	// application Jepsen's etcd 3.4.3 test was, which etcd issue 11456 answered
	// with "the lock holder have to check ... the remaining lease timeout
	// before doing anything". Off, the application stops believing when Done
	// closes.
	IgnoreSessionDone bool
}

// deadlineLoopPeriod is how often clientv3's lessor looks at its keepalives'
// deadlines (clientv3's lease.go, deadlineLoop: once a second, by the wall clock).
const deadlineLoopPeriod = time.Second

// Client commands (acquire, release, read, write) are those of every lock client.
const (
	CmdAcquire = lockkit.CmdAcquire
	CmdRelease = lockkit.CmdRelease
)

type lockState uint8

const (
	lockIdle       lockState = iota
	lockGranting             // LeaseGrant sent
	lockPutting              // the Txn sent
	lockFinding              // looking for the predecessor
	lockWatching             // watching the predecessor's key
	lockConfirming           // checking that my key survived the wait
	lockHolding
	lockReleasing // DeleteRange of my key sent
	lockRevoking  // LeaseRevoke sent
)

var lockNames = [...]string{"idle", "granting a lease", "putting its key", "finding its predecessor",
	"waiting", "confirming", "holding", "releasing", "revoking its lease"}

const (
	timerKeepAlive sim.TimerID = iota + 1
	timerDeadline
	timerRequest
	timerHold
	timerRetry
	timerDeadlineLoop
)

// requestRetry is clientv3's pause between retries of a request a member
// refused (25 ms, with 10% jitter): without it a client cut off from the leader
// would spin through the members a thousand times a second. It never gives up.
var requestRetry = lockkit.Retry{Backoff: lockkit.Fixed, Delay: 25 * time.Millisecond, JitterPercent: 10}

// Client takes a lock as etcd's concurrency.Mutex does, inside a session whose
// lease it keeps alive every TTL/3.
type Client struct {
	env     sim.Env
	cfg     ClientConfig
	member  int // index into cfg.Members
	reqID   uint64
	pending sim.Message // the request awaiting its answer (Op "" when none)
	state   lockState
	lock    string
	lease   int64
	ka      lockkit.Keepalive
	tries   lockkit.Attempts
	key     string // my key: the lock prefix and my lease in hex
	rev     int64  // its create revision
	watched string // the predecessor's key while waiting
	from    int64  // the revision its watch starts from
	belief  sim.Belief
	// deadline (DeadlineLoop): when, on its monotonic clock, the lease may be
	// gone unless a keepalive answer moves it on.
	deadline time.Duration
}

// NewClient returns a constructor for a lock client with cfg.
func NewClient(cfg ClientConfig) func(sim.Env) sim.Process {
	if cfg.TTL == 0 {
		cfg.TTL = 5 * time.Second
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = time.Second
	}
	return func(env sim.Env) sim.Process {
		return &Client{env: env, cfg: cfg, tries: lockkit.Attempts{Client: env.ID},
			// The model has no connections to break: a keepalive left unanswered
			// for a whole period is taken for a lost connection.
			ka: lockkit.Keepalive{Detect: lockkit.Unanswered, Period: cfg.TTL / 3, Timeout: cfg.TTL / 3, Heartbeat: timerKeepAlive}}
	}
}

func (c *Client) srv() sim.ProcID { return c.cfg.Members[c.member%len(c.cfg.Members)] }

// request sends a request and waits for its answer (one at a time).
func (c *Client) request(m sim.Message, out *sim.Outputs) {
	c.reqID++
	m.ID = c.reqID
	c.pending = m
	out.Send(c.srv(), m)
	out.SetTimer(timerRequest, c.cfg.Timeout)
	out.CancelTimer(timerRetry)
}

// Step handles one input.
func (c *Client) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InTimer:
		switch in.Timer {
		case timerKeepAlive:
			c.keepAlive(now, out)
		case timerDeadline:
			c.leaseLost("no keepalive answer for the lease's TTL", out)
		case timerDeadlineLoop:
			if c.lease == 0 {
				return
			}
			out.SetTimer(timerDeadlineLoop, deadlineLoopPeriod)
			if now.Mono > c.deadline {
				c.leaseLost(fmt.Sprintf("its deadline loop finds the lease's deadline %s past", sim.FormatDuration(now.Mono-c.deadline)), out)
			}
		case timerRequest:
			if c.pending.Op != "" {
				c.failover("no answer from "+c.env.Names[c.srv()], out)
			}
		case timerRetry:
			if c.pending.Op != "" {
				c.request(c.pending, out)
			}
		case timerHold:
			if c.state == lockHolding {
				c.command(sim.Message{Op: CmdRelease, Key: c.lock}, out)
			}
		}
	case sim.InCommand:
		c.command(in.Msg, out)
	case sim.InMessage:
		if slices.Contains(c.cfg.Members, in.From) {
			c.reply(now, in.Msg, out)
		}
	}
}

// keepAlive renews the session's lease every TTL/3. A keepalive still
// unanswered at the next one is taken for a lost connection, and the client
// moves to the next member (even when it was the leader behind a live member
// that failed: harmless, the next member serves it as well).
func (c *Client) keepAlive(now sim.LocalTime, out *sim.Outputs) {
	if c.lease == 0 {
		return
	}
	if c.ka.Beat(now, out) {
		c.failover("no keepalive answer from "+c.env.Names[c.srv()], out)
	}
	c.ka.Send(now, out, c.srv(), sim.Message{Op: OpKeepAlive, Value: fmt.Sprintf("lease %d", c.lease)}.Carrying(ArgLease, c.lease))
	if c.state == lockWatching {
		// clientv3 re-creates a watch whose stream broke (a member restart, a lost
		// event). The model has no streams: a waiter renews its watch with each
		// keepalive, and a member that still has it ignores the renewal.
		c.sendWatch(out, true)
	}
}

// sendWatch asks for the watch; renewed with each keepalive, it is background.
func (c *Client) sendWatch(out *sim.Outputs, renewal bool) {
	m := sim.Message{Op: OpWatch, Key: c.watched, Value: fmt.Sprintf("from revision %d", c.from)}.Carrying(ArgFromRev, c.from)
	if renewal {
		m = m.InBackground()
	}
	out.Send(c.srv(), m)
}

// failover moves to the next member and sends it what was unanswered; a watch
// died with the old connection, so a waiter looks for its predecessor again.
func (c *Client) failover(why string, out *sim.Outputs) {
	c.member++
	c.ka.Lost(out)
	out.Observe(sim.Note(c.env.ID, "%s: %s; it tries %s", c.env.Name, why, c.env.Names[c.srv()]))
	switch {
	case c.pending.Op != "":
		c.request(c.pending, out)
	case c.state == lockWatching:
		c.find(out)
	}
}

func (c *Client) command(m sim.Message, out *sim.Outputs) {
	switch m.Op {
	case CmdAcquire:
		if c.state != lockIdle {
			out.Observe(sim.Note(c.env.ID, "%s is already busy with %s (%s); acquire ignored", c.env.Name, c.lock, lockNames[c.state]))
			return
		}
		c.lock = m.Key
		c.tries.Begin(out, c.lock, "")
		c.state = lockGranting
		c.request(sim.Message{Op: OpGrant, Value: "ttl=" + sim.FormatDuration(c.cfg.TTL)}.Carrying(ArgTTL, c.cfg.TTL.Milliseconds()), out)
	case CmdRelease:
		if c.state == lockIdle || c.state >= lockReleasing || (m.Key != "" && m.Key != c.lock) {
			out.Observe(sim.Note(c.env.ID, "%s holds no lock called %s; release ignored", c.env.Name, m.Key))
			return
		}
		if c.state != lockHolding {
			c.tries.GiveUp(out)
		}
		c.belief.End(out, c.env.ID, sim.ReasonReleased)
		c.watched = ""
		switch {
		case c.key != "": // Unlock deletes the key, then the session's Close revokes the lease
			c.state = lockReleasing
			c.request(sim.Message{Op: OpDelete, Key: c.key}, out)
		case c.lease != 0:
			c.revoke(out)
		default:
			c.state, c.pending = lockIdle, sim.Message{} // the grant's late answer is ignored
		}
	case lockkit.CmdRead, lockkit.CmdWrite:
		c.belief.Operate(out, c.env, m)
	}
}

func (c *Client) revoke(out *sim.Outputs) {
	c.state = lockRevoking
	c.request(sim.Message{Op: OpRevoke, Value: fmt.Sprintf("lease %d", c.lease)}.Carrying(ArgLease, c.lease), out)
}

// find asks for the key created last before mine: the predecessor to wait for.
func (c *Client) find(out *sim.Outputs) {
	c.state = lockFinding
	c.request(sim.Message{Op: OpRange, Key: c.lock + "/", Opts: optLastCreate,
		Value: fmt.Sprintf("max-create-rev=%d", c.rev-1)}.Carrying(ArgMaxCreateRev, c.rev-1), out)
}

// setDeadline moves the client-side lease deadline to ttl from now: a timer,
// or with DeadlineLoop a time the loop compares with.
func (c *Client) setDeadline(now sim.LocalTime, ttl time.Duration, out *sim.Outputs) {
	if c.cfg.DeadlineLoop {
		c.deadline = now.Mono + ttl
		return
	}
	out.SetTimer(timerDeadline, ttl)
}

func (c *Client) reply(now sim.LocalTime, m sim.Message, out *sim.Outputs) {
	switch m.Op {
	case RepTTL:
		if m.Num(ArgLease) != c.lease || c.lease == 0 {
			return
		}
		c.ka.Heard(out)
		if m.Num(ArgLeaseTTL) <= 0 {
			c.leaseLost("the leader says its lease is gone", out)
			return
		}
		c.setDeadline(now, time.Duration(m.Num(ArgLeaseTTL))*time.Millisecond, out) // etcd's client-side deadline
		return
	case RepEvent:
		if c.state == lockWatching && m.Key == c.watched {
			c.find(out)
		}
		return
	}
	if m.ID == 0 || m.ID != c.reqID || c.pending.Op == "" {
		return // a keepalive's error, or a late answer
	}
	sent := c.pending
	c.pending = sim.Message{}
	out.CancelTimer(timerRequest)
	if m.Op == RepError {
		var at sim.ProcID
		switch m.Value {
		case ErrLeaseNotFound:
			c.leaseLost("its lease is gone", out)
		default: // no leader here: try the next member after a pause
			c.pending, at = sent, c.srv()
			c.member++
			out.Observe(sim.Note(c.env.ID, "%s: %s at %s; it tries %s", c.env.Name, m.Value, c.env.Names[at], c.env.Names[c.srv()]))
			out.SetTimer(timerRetry, requestRetry.Wait(1, c.env.Rand))
		}
		return
	}
	switch c.state {
	case lockGranting:
		c.lease = m.Num(ArgLease)
		c.ka.Start(out)
		c.setDeadline(now, time.Duration(m.Num(ArgLeaseTTL))*time.Millisecond, out)
		if c.cfg.DeadlineLoop {
			out.SetTimer(timerDeadlineLoop, deadlineLoopPeriod)
		}
		c.key = fmt.Sprintf("%s/%x", c.lock, c.lease)
		c.state = lockPutting
		c.request(sim.Message{Op: OpTxn, Key: c.key, Value: fmt.Sprintf("put-if-absent lease=%d", c.lease)}.Carrying(ArgLease, c.lease), out)
	case lockPutting:
		c.rev = m.Num(ArgMyRev)
		if m.Num(ArgOwnerRev) == m.Num(ArgMyRev) {
			c.hold(out) // my key is the oldest: the lock is mine in one round trip
			return
		}
		c.find(out)
	case lockFinding:
		if m.Key == "" && c.cfg.NoWaitCheck { // before etcd#11456's fix: no check
			c.hold(out)
			return
		}
		if m.Key == "" { // nobody before me is left: check that my key survived the wait
			c.state = lockConfirming
			c.request(sim.Message{Op: OpRange, Key: c.key}, out)
			return
		}
		c.state, c.watched, c.from = lockWatching, m.Key, m.Num(ArgRevision)
		c.sendWatch(out, false)
	case lockConfirming:
		if m.Num(ArgCreateRev) != c.rev {
			c.leaseLost("its key is gone while it waited (the session expired)", out)
			return
		}
		c.hold(out)
	case lockReleasing:
		c.key = ""
		if c.lease == 0 { // the session was over already (an application that ignored Done)
			c.state = lockIdle
			return
		}
		c.revoke(out)
	case lockRevoking:
		c.state, c.lease = lockIdle, 0
		c.ka.Stop(out)
		out.CancelTimer(timerDeadline)
	}
}

func (c *Client) hold(out *sim.Outputs) {
	c.state = lockHolding
	var tok int64
	if c.cfg.Fencing {
		tok = c.rev
	}
	c.belief.Start(out, c.env.ID, c.lock, c.key, 0, tok, c.cfg.Fencing)
	if c.cfg.Hold > 0 {
		out.SetTimer(timerHold, c.cfg.Hold)
	}
}

// leaseLost: the session is over (etcd closes its Done channel). A client that
// was waiting gives up; one that held no longer believes it does. The Mutex
// itself checks nothing: a write already decided goes out regardless.
func (c *Client) leaseLost(why string, out *sim.Outputs) {
	if c.lease == 0 {
		return
	}
	if c.cfg.NoWaitCheck && (c.state == lockFinding || c.state == lockWatching) {
		// etcd#11456: the waiting Mutex watched only its predecessor's key.
		out.Observe(sim.Note(c.env.ID, "%s: %s; its Mutex, waiting, does not look", c.env.Name, why))
		return
	}
	if c.cfg.IgnoreSessionDone && c.state == lockHolding {
		// The session is over (Done closed) and the library stops renewing, but
		// the application never looks: it keeps its belief, and its key name,
		// until it releases.
		out.Observe(sim.Note(c.env.ID, "%s: %s; Session.Done() is closed, but the application does not look: it still believes it holds %s",
			c.env.Name, why, c.lock))
		c.lease, c.watched, c.pending = 0, "", sim.Message{}
		c.ka.Stop(out)
		out.CancelTimer(timerRequest)
		out.CancelTimer(timerRetry)
		out.CancelTimer(timerDeadline)
		return
	}
	out.Observe(sim.Note(c.env.ID, "%s: %s", c.env.Name, why))
	c.belief.End(out, c.env.ID, "lease expired")
	if c.state != lockIdle && c.state != lockHolding && c.state < lockReleasing {
		c.tries.GiveUp(out)
	}
	c.state, c.lease, c.key, c.watched = lockIdle, 0, "", ""
	c.pending = sim.Message{}
	c.ka.Stop(out)
	out.CancelTimer(timerRequest)
	out.CancelTimer(timerRetry)
	out.CancelTimer(timerDeadline)
}

// TimerName names the client's timers for the log.
func (c *Client) TimerName(id sim.TimerID) string {
	switch id {
	case timerKeepAlive:
		return "keepalive"
	case timerDeadline:
		return "lease deadline"
	case timerRequest:
		return "request timeout"
	case timerHold:
		return "work done"
	case timerRetry:
		return "retry"
	case timerDeadlineLoop:
		return "deadline loop"
	}
	return ""
}

// BackgroundTimer: the keepalive renews the lease; the deadline loop only looks.
func (c *Client) BackgroundTimer(id sim.TimerID) bool {
	return id == timerKeepAlive || id == timerDeadlineLoop
}

// Describe is the client's state.
func (c *Client) Describe() string {
	s := fmt.Sprintf("via %s, %s", c.env.Names[c.srv()], lockNames[c.state])
	if c.lock != "" && c.state != lockIdle {
		s += " " + c.lock
	}
	if c.lease != 0 {
		s += fmt.Sprintf(", lease %d", c.lease)
	}
	if c.key != "" {
		s += fmt.Sprintf(", key %s (create revision %d)", c.key, c.rev)
	}
	return s
}
