package threepc

import (
	"slices"
	"time"

	"github.com/locksim/locksim/protocols/atomiccommit"
	"github.com/locksim/locksim/sim"
)

// CoordinatorConfig configures a coordinator.
type CoordinatorConfig struct {
	Participants []sim.ProcID
	// Timeout: votes or PreCommit acknowledgements not in by then. Missing
	// votes abort; missing acknowledgements commit (default 1 s).
	Timeout time.Duration
	// AckTimeoutAbort is 3PC as many textbooks and Wikipedia's article state
	// it: a coordinator whose PreCommit acknowledgements are not all in by
	// Timeout aborts, while a participant in pre-commit that hears nothing
	// commits on its own timeout (here, by the termination protocol). Off,
	// Skeen's and Bernstein et al.'s rule: everyone voted yes, so missing
	// acknowledgements commit, which is what a pre-committed participant
	// left alone concludes too.
	AckTimeoutAbort bool
	// SendGap sends each phase's messages one participant at a time, this far
	// apart, in the participants' order (0: all at once), as a coordinator
	// making one call after another does.
	SendGap time.Duration
}

const (
	timerTimeout sim.TimerID = iota + 1
	timerSend
)

type coPhase uint8

const (
	coIdle coPhase = iota
	coVoting
	coPreCommitting
	coDone
)

var coPhaseNames = [...]string{"idle", "collecting votes", "collecting PreCommit acks", "decided"}

// Coordinator runs one transaction at a time.
type Coordinator struct {
	env   sim.Env
	cfg   CoordinatorConfig
	phase coPhase
	tx    atomiccommit.Txn // the transaction, its votes and decision
	acks  map[sim.ProcID]bool
	queue []sim.ProcID // participants still to be sent op
	op    string
}

// NewCoordinator returns a constructor for a coordinator with cfg.
func NewCoordinator(cfg CoordinatorConfig) func(sim.Env) sim.Process {
	if cfg.Timeout == 0 {
		cfg.Timeout = time.Second
	}
	return func(env sim.Env) sim.Process {
		return &Coordinator{env: env, cfg: cfg, tx: atomiccommit.NewTxn(env, cfg.Participants), acks: map[sim.ProcID]bool{}}
	}
}

// Step handles one input.
func (c *Coordinator) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InCommand:
		if in.Msg.Op == CmdBegin {
			c.begin(in.Msg.Key, out)
		}
	case sim.InTimer:
		switch in.Timer {
		case timerTimeout:
			switch {
			case c.phase == coVoting:
				c.finish(Abort, "not every vote arrived within "+sim.FormatDuration(c.cfg.Timeout), out)
			case c.phase == coPreCommitting && c.cfg.AckTimeoutAbort:
				c.finish(Abort, "not every PreCommit was acknowledged within "+sim.FormatDuration(c.cfg.Timeout)+
					"; it aborts (ack-timeout=abort), though everyone had voted yes", out)
			case c.phase == coPreCommitting:
				c.finish(Commit, "not every PreCommit was acknowledged within "+sim.FormatDuration(c.cfg.Timeout)+
					"; everyone had voted yes, so it commits", out)
			}
		case timerSend:
			c.sendNext(out)
		}
	case sim.InMessage:
		if c.tx.Participant(in.From) && in.Msg.Key == c.tx.Name {
			c.message(in.From, in.Msg, out)
		}
	}
}

func (c *Coordinator) begin(txn string, out *sim.Outputs) {
	if !c.tx.Begin(txn, c.phase != coIdle && c.phase != coDone, out) {
		return
	}
	c.phase = coVoting
	clear(c.acks)
	sim.BeginTxn(out, c.env, txn, c.cfg.Participants)
	c.broadcast(OpCanCommit, out)
}

// broadcast sends op to every participant, one after another when SendGap is set.
// The phase's timeout counts from the last send.
func (c *Coordinator) broadcast(op string, out *sim.Outputs) {
	c.op, c.queue = op, slices.Clone(c.cfg.Participants)
	c.sendNext(out)
}

func (c *Coordinator) sendNext(out *sim.Outputs) {
	for len(c.queue) > 0 {
		p := c.queue[0]
		c.queue = c.queue[1:]
		out.Send(p, sim.Message{Op: c.op, Key: c.tx.Name})
		if c.cfg.SendGap > 0 && len(c.queue) > 0 {
			out.SetTimer(timerSend, c.cfg.SendGap)
			return
		}
	}
	if c.phase != coDone {
		out.SetTimer(timerTimeout, c.cfg.Timeout)
	}
}

func (c *Coordinator) message(from sim.ProcID, m sim.Message, out *sim.Outputs) {
	switch m.Op {
	case OpYes, OpNo:
		if c.phase != coVoting {
			return
		}
		switch c.tx.Vote(from, m.Op == OpYes) {
		case atomiccommit.VotedNo:
			c.finish(Abort, c.env.Names[from]+" voted no", out)
		case atomiccommit.AllYes:
			c.phase = coPreCommitting
			out.CancelTimer(timerTimeout)
			out.Observe(sim.Note(c.env.ID, "%s: every participant voted yes; it sends PreCommit", c.env.Name))
			c.broadcast(OpPreCommit, out)
		}
	case OpAck:
		if c.phase != coPreCommitting {
			return
		}
		c.acks[from] = true
		if len(c.acks) == len(c.cfg.Participants) {
			c.finish(Commit, "every participant acknowledged PreCommit", out)
		}
	case OpStateReq: // a participant's termination protocol reaches the coordinator: not one of its peers
	case OpDecisionReq: // a participant that recovered asks what was decided
		if c.phase == coDone {
			out.Send(from, sim.Message{Op: OpDecision, Key: m.Key, Value: c.tx.Decision})
		}
	}
}

func (c *Coordinator) finish(d, why string, out *sim.Outputs) {
	c.phase, c.tx.Decision = coDone, d
	out.CancelTimer(timerTimeout)
	decide(out, c.tx.Name, d, why)
	op := OpAbort
	if d == Commit {
		op = OpDoCommit
	}
	c.broadcast(op, out)
}

// TimerName names the coordinator's timers.
func (c *Coordinator) TimerName(id sim.TimerID) string {
	if id == timerSend {
		return "next send"
	}
	return "phase timeout"
}

// Describe is the coordinator's state.
func (c *Coordinator) Describe() string {
	return c.tx.Describe(coPhaseNames[c.phase])
}
