package twopc

import (
	"time"

	"github.com/locksim/locksim/protocols/atomiccommit"
	"github.com/locksim/locksim/sim"
)

// CoordinatorConfig configures a coordinator.
type CoordinatorConfig struct {
	Participants []sim.ProcID
	// Timeout: votes not in by then count as no (default 1 s).
	Timeout time.Duration
	// LogDelay is the time to force the decision record to disk; the decision is
	// sent only once it is durable (the write-ahead rule). Default 10 ms.
	LogDelay time.Duration
	// Resend: the decision goes again to participants that have not acknowledged
	// it (default 1 s).
	Resend time.Duration
	// Work, when set, runs the transaction's work before the vote: the
	// coordinator sends each participant WORK, and PREPARE only this long
	// after (default 0: PREPARE at once). A participant learns of the
	// transaction from WORK, and may time out waiting for the vote request.
	Work time.Duration
}

const (
	timerVotes sim.TimerID = iota + 1
	timerLogged
	timerResend
	timerWork
)

type coPhase uint8

const (
	coIdle coPhase = iota
	coVoting
	coLogging // the decision is being forced to disk
	coDecided
	coDone
	coWorking // the transaction's work, before the vote (Work)
)

var coPhaseNames = [...]string{"idle", "collecting votes", "logging its decision", "decided", "done", "running the work"}

// Coordinator runs one transaction at a time.
type Coordinator struct {
	env   sim.Env
	cfg   CoordinatorConfig
	phase coPhase
	tx    atomiccommit.Txn // the transaction, its votes and decision
	why   string
	acked map[sim.ProcID]bool
}

// NewCoordinator returns a constructor for a coordinator with cfg.
func NewCoordinator(cfg CoordinatorConfig) func(sim.Env) sim.Process {
	if cfg.Timeout == 0 {
		cfg.Timeout = time.Second
	}
	if cfg.LogDelay == 0 {
		cfg.LogDelay = 10 * time.Millisecond
	}
	if cfg.Resend == 0 {
		cfg.Resend = time.Second
	}
	return func(env sim.Env) sim.Process {
		return &Coordinator{env: env, cfg: cfg, tx: atomiccommit.NewTxn(env, cfg.Participants), acked: map[sim.ProcID]bool{}}
	}
}

// Step handles one input.
func (c *Coordinator) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InRestart:
		c.recover(in.Disk, out)
	case sim.InCommand:
		if in.Msg.Op == CmdBegin {
			c.begin(in.Msg.Key, out)
		}
	case sim.InTimer:
		switch in.Timer {
		case timerVotes:
			if c.phase == coVoting {
				c.decide(Abort, "not every vote arrived within "+sim.FormatDuration(c.cfg.Timeout), out)
			}
		case timerLogged:
			c.logged(out)
		case timerResend:
			c.sendDecision(out)
		case timerWork:
			if c.phase == coWorking {
				c.prepare(out)
			}
		}
	case sim.InMessage:
		if c.tx.Participant(in.From) {
			c.message(in.From, in.Msg, out)
		}
	}
}

func (c *Coordinator) begin(txn string, out *sim.Outputs) {
	if !c.tx.Begin(txn, c.phase != coIdle && c.phase != coDone, out) {
		return
	}
	c.phase = coVoting
	clear(c.acked)
	atomiccommit.Force(out, sim.Message{Op: recBegin, Key: txn})
	sim.BeginTxn(out, c.env, txn, c.cfg.Participants)
	if c.cfg.Work > 0 {
		c.phase = coWorking
		for _, p := range c.cfg.Participants {
			out.Send(p, sim.Message{Op: OpWork, Key: txn})
		}
		out.SetTimer(timerWork, c.cfg.Work)
		return
	}
	c.prepare(out)
}

// prepare asks every participant for its vote.
func (c *Coordinator) prepare(out *sim.Outputs) {
	c.phase = coVoting
	for _, p := range c.cfg.Participants {
		out.Send(p, sim.Message{Op: OpPrepare, Key: c.tx.Name})
	}
	out.SetTimer(timerVotes, c.cfg.Timeout)
}

func (c *Coordinator) message(from sim.ProcID, m sim.Message, out *sim.Outputs) {
	if m.Key != c.tx.Name {
		if m.Op == OpAsk { // a transaction it has no record of: presumed abort
			out.Send(from, sim.Message{Op: OpAbort, Key: m.Key})
		}
		return
	}
	switch m.Op {
	case OpYes, OpNo:
		if c.phase != coVoting {
			return
		}
		switch c.tx.Vote(from, m.Op == OpYes) {
		case atomiccommit.VotedNo:
			c.decide(Abort, c.env.Names[from]+" voted no", out)
		case atomiccommit.AllYes:
			c.decide(Commit, "every participant voted yes", out)
		}
	case OpAck:
		c.acked[from] = true
		if c.phase == coDecided && len(c.acked) == len(c.cfg.Participants) {
			c.phase = coDone
			out.Write(sim.Message{Op: recEnd, Key: c.tx.Name})
			out.CancelTimer(timerResend)
		}
	case OpAsk:
		if c.phase == coDecided || c.phase == coDone {
			out.Send(from, sim.Message{Op: decisionOp(c.tx.Decision), Key: c.tx.Name})
		}
	}
}

// decide starts forcing the decision to the log; it is sent once durable.
func (c *Coordinator) decide(d, why string, out *sim.Outputs) {
	c.phase, c.tx.Decision, c.why = coLogging, d, why
	out.CancelTimer(timerVotes)
	out.SetTimer(timerLogged, c.cfg.LogDelay)
}

func (c *Coordinator) logged(out *sim.Outputs) {
	if c.phase != coLogging {
		return
	}
	atomiccommit.Force(out, sim.Message{Op: recDecision, Key: c.tx.Name, Value: c.tx.Decision})
	c.phase = coDecided
	decide(out, c.tx.Name, c.tx.Decision, c.why)
	c.sendDecision(out)
}

// sendDecision sends the decision to every participant that has not
// acknowledged it, and again after Resend until all have.
func (c *Coordinator) sendDecision(out *sim.Outputs) {
	if c.phase != coDecided {
		return
	}
	for _, p := range c.cfg.Participants {
		if !c.acked[p] {
			out.Send(p, sim.Message{Op: decisionOp(c.tx.Decision), Key: c.tx.Name})
		}
	}
	out.SetTimer(timerResend, c.cfg.Resend)
}

// recover reads the log: a decision is sent again; a transaction begun with no
// decision is aborted (presumed abort: no participant can have committed).
func (c *Coordinator) recover(disk []sim.Message, out *sim.Outputs) {
	for _, r := range disk {
		switch r.Op {
		case recBegin:
			c.tx.Name, c.phase, c.tx.Decision = r.Key, coVoting, ""
		case recDecision:
			c.phase, c.tx.Decision = coDecided, r.Value
		case recEnd:
			c.phase = coDone
		}
	}
	switch c.phase {
	case coVoting:
		out.Observe(sim.Note(c.env.ID, "%s recovers %s with no decision in its log: it aborts (presumed abort)", c.env.Name, c.tx.Name))
		c.phase, c.tx.Decision, c.why = coLogging, Abort, "recovered with no decision logged"
		c.logged(out)
	case coDecided:
		out.Observe(sim.Note(c.env.ID, "%s recovers its decision %s for %s and sends it again", c.env.Name, c.tx.Decision, c.tx.Name))
		c.sendDecision(out)
	}
}

// TimerName names the coordinator's timers.
func (c *Coordinator) TimerName(id sim.TimerID) string {
	switch id {
	case timerVotes:
		return "vote timeout"
	case timerLogged:
		return "decision logged"
	case timerResend:
		return "resend decision"
	case timerWork:
		return "work done"
	}
	return ""
}

// Describe is the coordinator's state.
func (c *Coordinator) Describe() string {
	return c.tx.Describe(coPhaseNames[c.phase])
}
