package zset

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/protocols/redis"
	"github.com/locksim/locksim/sim"
)

// Mode is which of lostinsoba's sorted-set locks the client takes.
type Mode uint8

const (
	ModeMutex  Mode = iota + 1 // ZADD NX 0, then ZADD XX CH 1 (mutex.go)
	ModeBucket                 // ZADD GT CH floor(ts / period) (bucket.go)
	ModeState                  // ZADD GT CH 1 over job states (state.go)
)

var modeNames = [...]string{ModeMutex: "mutex", ModeBucket: "bucket", ModeState: "state"}

func (m Mode) String() string { return modeNames[m] }

// ParseMode reads a mode's name.
func ParseMode(s string) (Mode, bool) {
	for i, n := range modeNames {
		if n != "" && n == s {
			return Mode(i), true
		}
	}
	return 0, false
}

// ModeNames lists the modes' names, for hints.
func ModeNames() []string { return modeNames[1:] }

// Config configures a client.
type Config struct {
	Server sim.ProcID
	Mode   Mode
	// Key is the sorted set; by default "locks" for a mutex, "jobs" otherwise.
	Key string
	// Retry is the policy after CH = 0 (mutex, state); the scenario language's
	// retry=R waits exactly R, and retry=0 is the zero policy, which never
	// retries. A time-bucket worker never retries, whatever this says: its
	// bucket is taken.
	Retry lockkit.Retry
	// Period is a time bucket's length (bucket).
	Period time.Duration
	// Hold is how long the client holds the lock or runs the job before it lets
	// go by itself; 0: until the scenario releases it.
	Hold time.Duration
	// ReapAfter (state) makes a worker that finds a job in progress reset it to
	// failed, and claim it, once it has been in progress this long by the
	// worker's wall clock against the claimer's; 0: no reaper.
	ReapAfter time.Duration
	// ReleaseToNew (state) is the mistake: a release sets the job back to new
	// (0), a state a claim can take again, as a mutex's release does, instead
	// of done (2), the terminal state. The job then runs again at the next
	// claim. The default releases to done.
	ReleaseToNew bool
	Timeout      time.Duration // a request with no reply by then has failed (default 1 s)
}

// Client commands, sent by scenarios.
const (
	CmdAcquire = lockkit.CmdAcquire
	CmdRelease = lockkit.CmdRelease
)

// Counters the clients report: the CH replies of their claims (the mutex's flip,
// a bucket's or a job's claim).
const (
	CounterWon  = "zadd_ch_won"  // replies CH = 1: this client's write changed the score
	CounterLost = "zadd_ch_lost" // replies CH = 0: someone else's write came first
)

type phase uint8

const (
	phaseIdle       phase = iota
	phaseCreating         // mutex: ZADD NX 0 sent
	phaseClaiming         // ZADD ... CH sent: the flip, a bucket's or a job's claim
	phaseHolding          // the client believes it holds the lock / runs the job
	phaseInspecting       // state: ZSCORE of the job's state sent
	phaseStarted          // state: ZSCORE of the job's claim time sent
	phaseReaping          // state: ZADD XX CH -1 sent
	phaseWaiting          // an attempt failed: waiting to try again
)

var phaseNames = [...]string{"idle", "creating", "claiming", "holding", "inspecting", "reading the claim time", "reaping",
	"trying to acquire"}

const (
	timerRetry sim.TimerID = iota + 1
	timerHold
	timerTimeout
)

// Client is a process that takes one of the sorted-set locks on a Redis node.
type Client struct {
	env      sim.Env
	cfg      Config
	phase    phase
	lock     string // the member: the lock's or the job's name
	value    string // this acquisition's name ("c1#2"), for the belief
	acquired int
	tries    lockkit.Attempts
	reqID    uint64
	pending  bool
	belief   sim.Belief
	bucket   int64 // bucket: the bucket claimed
}

// New returns a constructor for a client with cfg.
func New(cfg Config) func(sim.Env) sim.Process {
	if cfg.Key == "" {
		cfg.Key = "jobs"
		if cfg.Mode == ModeMutex {
			cfg.Key = "locks"
		}
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = time.Second
	}
	tries := lockkit.Attempts{Retry: cfg.Retry, Timer: timerRetry}
	if cfg.Mode == ModeBucket {
		if cfg.Period <= 0 {
			panic("zset: a time-bucket client needs a period")
		}
		// a claim of the period its clock is in (every-period), made once
		tries.Retry, tries.Period = lockkit.Retry{}, cfg.Period
	}
	return func(env sim.Env) sim.Process {
		c := &Client{env: env, cfg: cfg, tries: tries}
		c.tries.Client, c.tries.Rand = env.ID, env.Rand
		return c
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
			if c.phase == phaseWaiting {
				c.try(now, out)
			}
		case timerHold:
			if c.phase == phaseHolding {
				c.letGo("done", out)
			}
		case timerTimeout:
			if c.pending {
				c.pending = false
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
		if c.phase != phaseIdle {
			out.Observe(sim.Note(c.env.ID, "%s is already %s %s; acquire ignored", c.env.Name, phaseNames[c.phase], c.lock))
			return
		}
		c.lock = m.Key
		c.acquired++
		c.value = redis.LockValue(c.env, c.acquired)
		c.tries.Begin(out, c.lock, c.value)
		c.try(now, out)
	case CmdRelease:
		switch {
		case m.Key != "" && m.Key != c.lock, c.lock == "":
			out.Observe(sim.Note(c.env.ID, "%s holds nothing called %s; release ignored", c.env.Name, m.Key))
		case c.phase == phaseHolding:
			c.letGo(sim.ReasonReleased, out)
		case c.phase != phaseIdle:
			// Told to release while still trying: it stops trying, visibly.
			c.tries.GiveUp(out)
			c.phase, c.pending = phaseIdle, false
			out.CancelTimer(timerTimeout)
		default:
			out.Observe(sim.Note(c.env.ID, "%s does not hold %s; release ignored", c.env.Name, c.lock))
		}
	case lockkit.CmdRead, lockkit.CmdWrite:
		c.belief.Operate(out, c.env, m)
	}
}

// try sends one attempt, as the mode takes the lock.
func (c *Client) try(now sim.LocalTime, out *sim.Outputs) {
	switch c.cfg.Mode {
	case ModeMutex:
		c.create(out)
	case ModeBucket:
		c.claimBucket(now, out)
	case ModeState:
		c.claimJob(out)
	}
}

// zadd sends ZADD key ARGS as a request whose reply the client awaits.
func (c *Client) zadd(key, args string, out *sim.Outputs) {
	c.request(sim.Message{Op: redis.OpZAdd, Key: key, Opts: args}, out)
}

// zaddNoReply sends ZADD key ARGS and does not wait for the reply (a release, a
// record): the reply would change nothing the client believes.
func (c *Client) zaddNoReply(key, args string, out *sim.Outputs) {
	c.reqID++
	out.Send(c.cfg.Server, sim.Message{Op: redis.OpZAdd, Key: key, Opts: args, ID: c.reqID})
}

func (c *Client) request(m sim.Message, out *sim.Outputs) {
	c.reqID++
	m.ID = c.reqID
	c.pending = true
	out.Send(c.cfg.Server, m)
	out.SetTimer(timerTimeout, c.cfg.Timeout)
}

func (c *Client) reply(now sim.LocalTime, m sim.Message, out *sim.Outputs) {
	if m.ID != c.reqID || !c.pending {
		return // a late reply, or one the client does not wait for
	}
	c.pending = false
	out.CancelTimer(timerTimeout)
	if m.Op == redis.ReplyErr {
		c.failAttempt(m.Value, out)
		return
	}
	switch c.phase {
	case phaseCreating:
		c.flip(out)
	case phaseClaiming:
		won := m.Op == redis.ReplyInt && m.Num(redis.ArgInt) == 1
		name := CounterLost
		if won {
			name = CounterWon
		}
		out.Observe(sim.Observation{Kind: sim.ObsCounter, Client: c.env.ID, By: sim.NoProc, Lock: c.lock, Name: name, Value: 1})
		switch c.cfg.Mode {
		case ModeMutex:
			c.flipped(won, out)
		case ModeBucket:
			c.bucketClaimed(won, out)
		case ModeState:
			c.jobClaimed(now, won, out)
		}
	case phaseInspecting:
		c.inspected(m, out)
	case phaseStarted:
		c.startRead(now, m, out)
	case phaseReaping:
		c.claimJob(out)
	}
}

// becomeHolder: the client believes it holds the lock (runs the job).
func (c *Client) becomeHolder(out *sim.Outputs) {
	c.phase = phaseHolding
	c.belief.Start(out, c.env.ID, c.lock, c.value, 0, 0, false)
	if c.cfg.Hold > 0 {
		out.SetTimer(timerHold, c.cfg.Hold)
	}
}

// letGo ends the holder's belief, and tells the node what the mode says.
func (c *Client) letGo(reason string, out *sim.Outputs) {
	c.belief.End(out, c.env.ID, reason)
	c.phase = phaseIdle
	out.CancelTimer(timerHold)
	switch c.cfg.Mode {
	case ModeMutex:
		c.zaddNoReply(c.cfg.Key, "XX CH 0 "+c.lock, out) // flip back: released
	case ModeState:
		c.zaddNoReply(c.cfg.Key, fmt.Sprintf("XX %d %s", c.releaseState(), c.lock), out)
	}
}

// failAttempt reports a failed try; the client retries by its policy, or gives up.
func (c *Client) failAttempt(why string, out *sim.Outputs) {
	c.phase = phaseIdle
	if c.tries.Fail(out, why) {
		c.phase = phaseWaiting
	}
}

// giveUp reports a failed try after which there is nothing to try again.
func (c *Client) giveUp(why string, out *sim.Outputs) {
	c.phase = phaseIdle
	c.tries.FailFinally(out, why)
}

// TimerName names the client's timers for the log.
func (c *Client) TimerName(id sim.TimerID) string {
	switch id {
	case timerRetry:
		return "retry"
	case timerHold:
		return "work done"
	case timerTimeout:
		return "request timeout"
	}
	return ""
}

// Describe is the client's state.
func (c *Client) Describe() string {
	s := fmt.Sprintf("%s on %s: %s", c.cfg.Mode, c.cfg.Key, phaseNames[c.phase])
	if c.lock != "" {
		s += " " + c.lock
	}
	if c.cfg.Mode == ModeBucket && c.phase == phaseHolding {
		s += fmt.Sprintf(" (bucket %d)", c.bucket)
	}
	if c.belief.Holds() {
		s += " (believes it holds)"
	}
	return s
}
