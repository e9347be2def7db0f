package paxos

import (
	"fmt"

	"github.com/locksim/locksim/sim"
)

// AcceptorConfig configures an acceptor.
type AcceptorConfig struct {
	// Persist forces the promise and the acceptance to disk before answering;
	// without it a restart forgets both.
	Persist bool
	// Nack answers a proposal it ignores with the number it has promised.
	Nack bool
}

const recState = "STATE"

// The numbers Paxos messages carry (sim.Arg). The proposal number is shown
// (PREPARE 1001); the second number of a PROMISE or a NACK is carried without
// showing it, since Opts says it in words.
const (
	ArgProposal = sim.Num1 // the proposal number a message is about
	ArgAccepted = sim.Num2 // PROMISE: the highest proposal the acceptor accepted (0: none)
	ArgPromised = sim.Num2 // NACK: the proposal the acceptor has promised
	// The STATE record: the promise and the acceptance the acceptor keeps.
	argStatePromised, argStateAccepted = sim.Num1, sim.Num2
)

// Acceptor promises and accepts.
type Acceptor struct {
	env      sim.Env
	cfg      AcceptorConfig
	promised int64
	accN     int64
	accV     string
}

// NewAcceptor returns a constructor for an acceptor with cfg.
func NewAcceptor(cfg AcceptorConfig) func(sim.Env) sim.Process {
	return func(env sim.Env) sim.Process { return &Acceptor{env: env, cfg: cfg} }
}

// Step handles one input.
func (a *Acceptor) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InRestart:
		for _, r := range in.Disk {
			a.promised, a.accN, a.accV = r.Num(argStatePromised), r.Num(argStateAccepted), r.Value
		}
		if a.env.Incarnation > 0 && len(in.Disk) == 0 {
			out.Observe(sim.Note(a.env.ID, "%s restarts with nothing on disk: it has forgotten every promise and acceptance", a.env.Name))
		}
	case sim.InMessage:
		a.message(in.From, in.Msg, out)
	}
}

func (a *Acceptor) message(from sim.ProcID, m sim.Message, out *sim.Outputs) {
	switch m.Op {
	case OpPrepare:
		n := m.Num(ArgProposal)
		if n < a.promised {
			a.nack(from, n, out)
			return
		}
		if n > a.promised { // the same PREPARE again (a duplicate) is answered again
			a.promised = n
			a.persist(out)
		}
		// The promise carries the highest proposal it accepted and its value.
		r := sim.Message{Op: OpPromise, Value: a.accV, Opts: fmt.Sprintf("%d, nothing accepted", n)}.
			Carrying(ArgProposal, n).Carrying(ArgAccepted, a.accN)
		if a.accN > 0 {
			r.Opts = fmt.Sprintf("%d, having accepted %s under %d", n, a.accV, a.accN)
			r.Value = ""
		}
		r.Body = promiseValue(a.accV)
		out.Send(from, r)
	case OpAccept:
		n := m.Num(ArgProposal)
		if n < a.promised {
			a.nack(from, n, out)
			return
		}
		a.promised, a.accN, a.accV = n, n, m.Value
		a.persist(out)
		out.Observe(sim.Observation{Kind: sim.ObsAccepted, Client: sim.NoProc, By: sim.NoProc, Lock: Decree,
			Grant: m.Value, Token: n})
		out.Send(from, sim.Message{Op: OpAccepted, Value: m.Value}.With(ArgProposal, n))
	}
}

func (a *Acceptor) nack(to sim.ProcID, n int64, out *sim.Outputs) {
	if a.cfg.Nack {
		out.Send(to, sim.Message{Op: OpNack, Opts: fmt.Sprintf("%d: promised %d", n, a.promised)}.
			Carrying(ArgProposal, n).Carrying(ArgPromised, a.promised))
	}
}

func (a *Acceptor) persist(out *sim.Outputs) {
	if a.cfg.Persist {
		out.Write(sim.Message{Op: recState, Value: a.accV}.
			Carrying(argStatePromised, a.promised).Carrying(argStateAccepted, a.accN))
		out.Fsync()
	}
}

// Describe is the acceptor's memory.
func (a *Acceptor) Describe() string {
	if a.accN == 0 {
		return fmt.Sprintf("promised %d, accepted nothing", a.promised)
	}
	return fmt.Sprintf("promised %d, accepted %s under %d", a.promised, a.accV, a.accN)
}

// promiseValue carries a promise's accepted value without showing it twice in
// the log (the text already names it).
type promiseValue string
