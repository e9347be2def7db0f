package paxos

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/sim"
)

// AcceptorConfig configures an acceptor.
type AcceptorConfig struct {
	// Persist forces the promise and the acceptance to disk before answering;
	// without it a restart forgets both.
	Persist bool
	// WriteAfterReply (with Persist) answers first and writes the promise and
	// the acceptance to disk WriteDelay later, in a step of its own: the
	// mistake Paxos Made Simple rules out ("an acceptor ... must remember this
	// information even if it fails and then restarts", so it records before it
	// answers; Paxos Made Live, section 4: the promise is logged before the
	// reply). A crash between the reply and the write forgets what the reply
	// promised.
	WriteAfterReply bool
	WriteDelay      time.Duration // default 5 ms
	// Nack answers a proposal it ignores with the number it has promised.
	Nack bool
}

// timerWrite: the state's write, due after a reply (WriteAfterReply).
const timerWrite sim.TimerID = 1

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
	writing  bool // WriteAfterReply: a write of the state is due
}

// NewAcceptor returns a constructor for an acceptor with cfg.
func NewAcceptor(cfg AcceptorConfig) func(sim.Env) sim.Process {
	if cfg.WriteDelay == 0 {
		cfg.WriteDelay = 5 * time.Millisecond
	}
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
	case sim.InTimer:
		if in.Timer == timerWrite && a.writing {
			a.writing = false
			a.write(out)
		}
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

// persist records the state before the reply goes out (the reply is sent in
// the same step, after it); with WriteAfterReply the write is only scheduled,
// and the reply goes out first.
func (a *Acceptor) persist(out *sim.Outputs) {
	switch {
	case !a.cfg.Persist:
	case a.cfg.WriteAfterReply:
		if !a.writing {
			a.writing = true
			out.SetTimer(timerWrite, a.cfg.WriteDelay)
		}
	default:
		a.write(out)
	}
}

func (a *Acceptor) write(out *sim.Outputs) {
	out.Write(sim.Message{Op: recState, Value: a.accV}.
		Carrying(argStatePromised, a.promised).Carrying(argStateAccepted, a.accN))
	out.Fsync()
}

// TimerName names the acceptor's timer for the log.
func (a *Acceptor) TimerName(sim.TimerID) string { return "write to disk" }

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
