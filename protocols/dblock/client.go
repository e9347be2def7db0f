package dblock

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/sim"
)

// Mode is how a client locks.
type Mode uint8

const (
	ModeInsert    Mode = iota // INSERT the lock row, DELETE it to unlock
	ModeLease                 // take a lease row whose locked_until has passed
	ModeForUpdate             // SELECT ... FOR UPDATE in a transaction, COMMIT to unlock
	ModeCAS                   // no lock: optimistic UPDATE ... WHERE version = v
	ModeAdvisory              // a session-level advisory lock: pg_try_advisory_lock, pg_advisory_unlock (advisory.go)
)

var modeNames = [...]string{ModeInsert: "insert", ModeLease: "lease", ModeForUpdate: "for-update", ModeCAS: "cas", ModeAdvisory: "advisory"}

func (m Mode) String() string { return modeNames[m] }

// ModeNames lists the modes, for the scenario language.
func ModeNames() []string { return modeNames[:] }

// ParseMode reads a mode's name.
func ParseMode(s string) (Mode, bool) {
	for i, n := range modeNames {
		if n == s {
			return Mode(i), true
		}
	}
	return 0, false
}

// ClientConfig configures a database lock client.
type ClientConfig struct {
	Server sim.ProcID
	Mode   Mode
	// Lease: the lease's length, and whose clock says "now": the client's own
	// (sent with the statement) or the database's now().
	TTL         time.Duration
	ClientClock bool
	// NoValidity (lease): the client sets no timer for its lease and goes on
	// working, believing it holds the lock, until its work is done, however
	// long that is: ShedLock's lockAtMostFor shorter than the task ("if the
	// task takes longer than lockAtMostFor, the resulting behavior may be
	// unpredictable (more than one process will effectively hold the lock)",
	// ShedLock's README). The default stops at the lease's end.
	NoValidity bool
	// CommitRelease (advisory) is the mistake: the client "releases" its
	// session-level advisory lock by ending its transaction (COMMIT), as if it
	// were a transaction-level one. The lock stays with the session, which
	// lives on, and the lock table grows with every key it locks (advisory.go).
	// The default unlocks (pg_advisory_unlock).
	CommitRelease bool
	// CAS: compare the version (optimistic); false is a blind read-modify-write.
	Compare bool
	// Fencing takes a token from the database's sequence with each lock.
	Fencing bool
	// Hold, when set, releases the lock this long after acquiring it.
	Hold time.Duration
	// Retry is the policy after a failed attempt or an optimistic update's
	// conflict. With database locks it decides how the lock performs under
	// contention: a fixed delay keeps clients that collided in step, a random
	// one spreads them, an exponential one backs off from a busy row.
	Retry lockkit.Retry
	// Timeout: an attempt unanswered this long fails (0: wait for the answer,
	// which is what a blocked FOR UPDATE does). A FOR UPDATE that times out is
	// rolled back before the next try.
	Timeout time.Duration
	// Keepalive: a for-update client with a transaction open pings the database
	// this often; no answer for two periods, or an answer from a restarted
	// database or one that no longer has the transaction, means the connection
	// is lost, and the transaction with it (default 1 s).
	Keepalive time.Duration
}

// Commands a client takes besides acquire, release, read and write.
const (
	CmdAcquire = lockkit.CmdAcquire
	CmdRelease = lockkit.CmdRelease
	CmdUpdate  = "update" // cas: add one to the row's value, optimistically
)

type state uint8

const (
	idle     state = iota
	trying         // the lock statement is on its way
	backoff        // waiting to try again
	holding        // it believes it holds the lock
	reading        // cas: the SELECT is on its way
	updating       // cas: the UPDATE is on its way
)

var stateNames = [...]string{"idle", "trying", "backing off", "holding", "reading", "updating"}

const (
	timerRetry sim.TimerID = iota + 1
	timerValidity
	timerHold
	timerTimeout
	timerPing
)

// Client locks through the database in its mode.
type Client struct {
	env       sim.Env
	cfg       ClientConfig
	st        state
	lock      string
	grant     string // this acquisition's owner value
	n         int    // acquisitions started (for grant values)
	tries     lockkit.Attempts
	conflicts int // cas: the update's conflicts so far
	reqID     uint64
	sentMono  time.Duration // when the lease statement went out (its validity counts from then)
	version   int64         // cas: the version read
	belief    sim.Belief
	ka        lockkit.Keepalive
	dbLife    int64 // which incarnation of the database answers the keepalives (-1: none yet)
	session   bool  // advisory: its session (the connection, kept open like a pool's) is open
}

// NewClient returns a constructor for a client with cfg.
func NewClient(cfg ClientConfig) func(sim.Env) sim.Process {
	if cfg.Keepalive == 0 {
		cfg.Keepalive = time.Second
	}
	return func(env sim.Env) sim.Process {
		return &Client{env: env, cfg: cfg,
			tries: lockkit.Attempts{Client: env.ID, Rand: env.Rand, Retry: cfg.Retry, Timer: timerRetry},
			// A ping unanswered for two periods means the connection is lost.
			ka: lockkit.Keepalive{Detect: lockkit.Unanswered, Period: cfg.Keepalive, Timeout: 2 * cfg.Keepalive, Heartbeat: timerPing}}
	}
}

// Step handles one input.
func (c *Client) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InCommand:
		c.command(now, in.Msg, out)
	case sim.InTimer:
		switch in.Timer {
		case timerRetry:
			if c.st == backoff {
				c.attempt(now, out)
			}
		case timerValidity:
			// The lease may be gone: the client stops believing and may acquire
			// again (a release still names the lease it had).
			c.belief.End(out, c.env.ID, sim.ReasonValidity)
			if c.st == holding {
				c.st = idle
				out.CancelTimer(timerHold)
			}
		case timerHold:
			if c.st == holding {
				c.command(now, sim.Message{Op: CmdRelease, Key: c.lock}, out)
			}
		case timerTimeout:
			if c.st == trying || c.st == reading || c.st == updating {
				if c.cfg.Mode == ModeForUpdate { // cancel the statement still waiting on the server
					c.send(&Stmt{Kind: StCommit, Row: c.lock}, out)
				}
				c.fail(now, "no answer within "+sim.FormatDuration(c.cfg.Timeout), out)
			}
		case timerPing:
			if c.inTxn() {
				c.ping(now, out)
			}
		}
	case sim.InMessage:
		switch {
		case in.From != c.cfg.Server:
		case in.Msg.Op == OpPong:
			c.pong(now, in.Msg, out)
		case in.Msg.ID == c.reqID:
			c.reply(now, in.Msg, out)
			if !c.inTxn() {
				c.ka.Stop(out) // nothing awaited, no transaction: no keepalive
			}
		}
	}
}

// inTxn: the client waits for an answer, or (for-update) holds the row in an
// open transaction. Either way it keeps its connection alive with pings: an
// answer lost, a server that restarted or one that rolled the transaction back
// shows there.
func (c *Client) inTxn() bool {
	return c.session || c.st == trying || c.st == reading || c.st == updating || c.cfg.Mode == ModeForUpdate && c.st == holding
}

// ping keeps a transaction's connection alive and finds out when it is gone.
func (c *Client) ping(now sim.LocalTime, out *sim.Outputs) {
	if c.ka.Beat(now, out) {
		c.connectionLost(now, "no answer from "+c.env.Names[c.cfg.Server]+" for "+sim.FormatDuration(c.ka.Timeout), out)
		return
	}
	c.ka.Send(now, out, c.cfg.Server, sim.Message{Op: OpPing})
}

func (c *Client) pong(now sim.LocalTime, m sim.Message, out *sim.Outputs) {
	if !c.inTxn() {
		return
	}
	c.ka.Heard(out)
	switch {
	case c.dbLife >= 0 && m.Num(argIncarnation) != c.dbLife:
		c.connectionLost(now, c.env.Names[c.cfg.Server]+" restarted", out)
	case c.session: // a session holds its advisory locks whether or not a statement is pending
		c.dbLife = m.Num(argIncarnation)
	case m.Num(argOpen) == 0 && c.cfg.Mode == ModeForUpdate:
		c.connectionLost(now, c.env.Names[c.cfg.Server]+" closed the connection", out)
	case m.Num(argOpen) == 0: // an autocommit statement is answered at once: its answer was lost
		c.connectionLost(now, "no answer from "+c.env.Names[c.cfg.Server]+", which has nothing pending", out)
	default:
		c.dbLife = m.Num(argIncarnation)
	}
}

// connectionLost: the transaction is gone with the connection (the server
// rolled it back). A holder no longer holds the row; a waiter's statement failed.
func (c *Client) connectionLost(now sim.LocalTime, why string, out *sim.Outputs) {
	c.ka.Stop(out)
	c.session = false // its advisory locks, if any, went with it
	c.reqID++         // whatever answer was awaited will not come on this connection
	if c.st == holding {
		out.Observe(sim.Note(c.env.ID, "%s: connection lost (%s): its transaction, and the row lock, are gone", c.env.Name, why))
		c.belief.End(out, c.env.ID, "connection lost")
		out.CancelTimer(timerHold)
		c.st = idle
		return
	}
	c.fail(now, "connection lost: "+why, out)
}

func (c *Client) command(now sim.LocalTime, m sim.Message, out *sim.Outputs) {
	switch m.Op {
	case CmdAcquire, CmdUpdate:
		if (m.Op == CmdUpdate) != (c.cfg.Mode == ModeCAS) {
			out.Observe(sim.Note(c.env.ID, "%s locks by %s: %s ignored", c.env.Name, c.cfg.Mode, m.Op))
			return
		}
		if c.st != idle {
			out.Observe(sim.Note(c.env.ID, "%s is already %s %s; %s ignored", c.env.Name, stateNames[c.st], c.lock, m.Op))
			return
		}
		c.n++
		c.lock = m.Key
		c.grant = sim.AcquisitionValue(c.env, c.n)
		if c.cfg.Mode != ModeCAS {
			c.tries.Begin(out, c.lock, "")
		} else {
			c.conflicts = 0
		}
		c.attempt(now, out)
	case CmdRelease:
		c.release(m.Key, out)
	case lockkit.CmdRead, lockkit.CmdWrite:
		if InTransaction(m) {
			c.operateInTxn(m, out)
			return
		}
		c.belief.Operate(out, c.env, m)
	}
}

// attempt sends the mode's lock statement (cas: the read of the version).
func (c *Client) attempt(now sim.LocalTime, out *sim.Outputs) {
	s := &Stmt{Row: c.lock, Owner: c.grant, Fence: c.cfg.Fencing}
	c.st = trying
	c.dbLife = -1
	switch c.cfg.Mode {
	case ModeInsert:
		s.Kind = StInsert
	case ModeLease:
		s.Kind, s.TTL, s.DBNow = StLease, c.cfg.TTL, !c.cfg.ClientClock
		s.Now = now.Wall.Milliseconds()
		c.sentMono = now.Mono
	case ModeForUpdate:
		s.Kind = StForUpdate
	case ModeCAS:
		s = &Stmt{Kind: StRead, Row: c.lock}
		c.st = reading
	case ModeAdvisory:
		s.Kind, s.Fence = StAdvLock, false
		c.session = true
	}
	c.send(s, out)
}

func (c *Client) send(s *Stmt, out *sim.Outputs) {
	c.reqID++
	m := s.Message()
	m.ID = c.reqID
	out.Send(c.cfg.Server, m)
	if s.Kind != StCommit && s.Kind != StRollback && s.Kind != StDelete && s.Kind != StUnlease && s.Kind != StAdvUnlock {
		c.ka.Start(out) // the statement awaits its answer: keep the connection alive meanwhile
	}
	if c.cfg.Timeout > 0 {
		out.SetTimer(timerTimeout, c.cfg.Timeout)
	}
}

func (c *Client) reply(now sim.LocalTime, m sim.Message, out *sim.Outputs) {
	out.CancelTimer(timerTimeout)
	switch c.st {
	case trying:
		switch {
		case m.Op != RepError && m.Num(ArgRows) == 1:
			c.hold(now, m.Num(ArgFence), out)
		case c.cfg.Mode == ModeAdvisory && m.Op != RepError:
			c.fail(now, "pg_try_advisory_lock returned false: another session holds "+c.lock, out)
		case m.Op == OpSelect && m.Num(ArgRows) == 0: // FOR UPDATE found no row: nothing to lock, ever
			out.Observe(sim.Note(c.env.ID, "%s: row %s does not exist, so FOR UPDATE locked nothing; it gives up", c.env.Name, c.lock))
			c.tries.GiveUp(out)
			c.st = idle
		case m.Op == RepError && c.cfg.Mode == ModeForUpdate:
			// The error aborted its transaction (a lock timeout, a deadlock):
			// the server answers nothing but 25P02 until it rolls back.
			c.send(&Stmt{Kind: StRollback, Row: c.lock}, out)
			out.CancelTimer(timerTimeout)
			c.fail(now, m.Value, out)
		case m.Op == RepError:
			c.fail(now, m.Value, out)
		default:
			c.fail(now, "no row taken", out)
		}
	case reading:
		if m.Op == RepError || m.Value == "0" { // SELECT 0: no row
			why := m.Value
			if m.Op != RepError {
				why = "no such row" // SELECT 0
			}
			out.Observe(sim.Note(c.env.ID, "%s: %s; update abandoned", c.env.Name, why))
			c.st = idle
			return
		}
		c.version = m.Num(ArgVersion)
		c.st = updating
		c.send(&Stmt{Kind: StCAS, Row: c.lock, Owner: c.grant, Version: m.Num(ArgVersion), Value: m.Num(ArgValue) + 1, Compare: c.cfg.Compare}, out)
	case updating:
		if m.Op == RepError {
			out.Observe(sim.Note(c.env.ID, "%s: %s; update abandoned", c.env.Name, m.Value))
			c.st = idle
			return
		}
		if m.Num(ArgRows) == 1 {
			out.Observe(sim.Note(c.env.ID, "%s updated %s (version %d -> %d)", c.env.Name, c.lock, c.version, c.version+1))
			c.st = idle
			return
		}
		c.fail(now, fmt.Sprintf("version %d is no longer current: 0 rows updated", c.version), out)
	}
}

// fail handles a failed attempt: try again after the policy's wait, or give up.
func (c *Client) fail(now sim.LocalTime, why string, out *sim.Outputs) {
	again := false
	if c.cfg.Mode == ModeCAS {
		// An optimistic update takes no lock: its conflict is a note, not a
		// failed attempt to acquire one, and it ends without a give-up.
		out.Observe(sim.Note(c.env.ID, "%s: %s", c.env.Name, why))
		c.conflicts++
		if again = c.cfg.Retry.Again(c.conflicts); again {
			out.SetTimer(timerRetry, c.cfg.Retry.Wait(c.conflicts, c.env.Rand))
		}
	} else {
		again = c.tries.Fail(out, why)
	}
	c.st = idle
	if again {
		c.st = backoff
	}
}

func (c *Client) hold(now sim.LocalTime, token int64, out *sim.Outputs) {
	c.st = holding
	var window time.Duration
	if c.cfg.Mode == ModeLease {
		// The lease is the client's for TTL from when it asked, by its own clock.
		window = c.cfg.TTL - (now.Mono - c.sentMono)
		if !c.cfg.NoValidity {
			out.SetTimer(timerValidity, window)
		}
	}
	c.belief.Start(out, c.env.ID, c.lock, c.grant, window, token, c.cfg.Fencing)
	if c.cfg.Hold > 0 {
		out.SetTimer(timerHold, c.cfg.Hold)
	}
}

// release unlocks: DELETE the row, clear the lease, or COMMIT the transaction.
// The client stops believing at once.
func (c *Client) release(lock string, out *sim.Outputs) {
	if lock != "" && lock != c.lock || c.st == idle || c.cfg.Mode == ModeCAS {
		if lock == "" {
			lock = c.lock
		}
		out.Observe(sim.Note(c.env.ID, "%s holds no lock called %s; release ignored", c.env.Name, lock))
		return
	}
	if c.st != holding {
		c.tries.GiveUp(out)
	}
	c.belief.End(out, c.env.ID, sim.ReasonReleased)
	out.CancelTimer(timerValidity)
	out.CancelTimer(timerHold)
	s := &Stmt{Row: c.lock, Owner: c.grant}
	switch c.cfg.Mode {
	case ModeInsert:
		s.Kind = StDelete
	case ModeLease:
		s.Kind = StUnlease
	case ModeForUpdate:
		s.Kind = StCommit // also ends a transaction still blocked: its wait is rolled back
	case ModeAdvisory:
		s.Kind = StAdvUnlock
		if c.cfg.CommitRelease { // the mistake: COMMIT leaves a session-level lock held
			s.Kind = StCommit
		}
	}
	// It does not wait for the answer: the unlock is on its way, and the client
	// may acquire again.
	c.st = idle
	if !c.session {
		c.ka.Stop(out)
	}
	c.send(s, out)
	out.CancelTimer(timerTimeout)
}

// TimerName names the client's timers for the log.
func (c *Client) TimerName(id sim.TimerID) string {
	switch id {
	case timerRetry:
		return "retry"
	case timerValidity:
		return "lease validity"
	case timerHold:
		return "work done"
	case timerTimeout:
		return "request timeout"
	case timerPing:
		return "keepalive"
	}
	return ""
}

// BackgroundTimer: the keepalive pings the database.
func (c *Client) BackgroundTimer(id sim.TimerID) bool { return id == timerPing }

// Describe is the client's state.
func (c *Client) Describe() string {
	s := fmt.Sprintf("%s, %s", c.cfg.Mode, stateNames[c.st])
	if c.st != idle {
		s += " " + c.lock
	}
	return s
}
