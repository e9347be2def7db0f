package threepc

import (
	"fmt"
	"slices"
	"time"

	"github.com/locksim/locksim/sim"
)

// CoordinatorConfig configures a coordinator.
type CoordinatorConfig struct {
	Participants []sim.ProcID
	// Timeout: votes or PreCommit acknowledgements not in by then. Missing
	// votes abort; missing acknowledgements commit (default 1 s).
	Timeout time.Duration
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
	env      sim.Env
	cfg      CoordinatorConfig
	phase    coPhase
	txn      string
	votes    map[sim.ProcID]bool
	acks     map[sim.ProcID]bool
	decision string
	queue    []sim.ProcID // participants still to be sent op
	op       string
}

// NewCoordinator returns a constructor for a coordinator with cfg.
func NewCoordinator(cfg CoordinatorConfig) func(sim.Env) sim.Process {
	if cfg.Timeout == 0 {
		cfg.Timeout = time.Second
	}
	return func(env sim.Env) sim.Process {
		return &Coordinator{env: env, cfg: cfg, votes: map[sim.ProcID]bool{}, acks: map[sim.ProcID]bool{}}
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
			switch c.phase {
			case coVoting:
				c.finish(Abort, "not every vote arrived within "+sim.FormatDuration(c.cfg.Timeout), out)
			case coPreCommitting:
				c.finish(Commit, "not every PreCommit was acknowledged within "+sim.FormatDuration(c.cfg.Timeout)+
					"; everyone had voted yes, so it commits", out)
			}
		case timerSend:
			c.sendNext(out)
		}
	case sim.InMessage:
		if slices.Contains(c.cfg.Participants, in.From) && in.Msg.Key == c.txn {
			c.message(in.From, in.Msg, out)
		}
	}
}

func (c *Coordinator) begin(txn string, out *sim.Outputs) {
	if c.phase != coIdle && c.phase != coDone {
		out.Observe(sim.Note(c.env.ID, "%s is busy with %s; begin ignored", c.env.Name, c.txn))
		return
	}
	c.txn, c.phase, c.decision = txn, coVoting, ""
	clear(c.votes)
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
		out.Send(p, sim.Message{Op: c.op, Key: c.txn})
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
		c.votes[from] = m.Op == OpYes
		if m.Op == OpNo {
			c.finish(Abort, c.env.Names[from]+" voted no", out)
			return
		}
		if len(c.votes) == len(c.cfg.Participants) {
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
	}
}

func (c *Coordinator) finish(d, why string, out *sim.Outputs) {
	c.phase, c.decision = coDone, d
	out.CancelTimer(timerTimeout)
	decide(out, c.txn, d, why)
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
	if c.txn == "" {
		return "idle"
	}
	s := fmt.Sprintf("%s: %s", c.txn, coPhaseNames[c.phase])
	if c.decision != "" {
		s += ", decision " + c.decision
	}
	return s
}
