package twopc

import (
	"strings"
	"time"

	"github.com/locksim/locksim/protocols/atomiccommit"
	"github.com/locksim/locksim/sim"
)

// ParticipantConfig configures a participant.
type ParticipantConfig struct {
	Coordinator sim.ProcID
	Peers       []sim.ProcID // the other participants
	Vote        bool         // its vote: yes (true) or no
	// Timeout: uncertain this long, it asks for the decision, and again every
	// Timeout until it has one (default 1 s).
	Timeout time.Duration
	// Cooperative asks the other participants as well as the coordinator.
	Cooperative bool
	// AbortWhenUncertain is the mistake: a participant that voted yes and
	// hears no decision within Timeout aborts on its own. Its yes promised the
	// coordinator it would commit if told to, so it may no longer abort
	// unilaterally (Bernstein, Hadzilacos and Goodman 1987, section 7.3, the
	// uncertainty period; Gray and Reuter 1993, section 10.3): the coordinator
	// may have decided commit. The default waits and asks.
	AbortWhenUncertain bool
	// VoteTimeout: a participant that has done the transaction's work (WORK)
	// and gets no vote request this long after it may abort on its own, which
	// is legal: it has not voted (BHG, section 7.3). It then answers the vote
	// request with no. 0: it waits.
	VoteTimeout time.Duration
}

type pState uint8

const (
	pInit      pState = iota // has not voted
	pUncertain               // voted yes: may not abort, cannot commit
	pCommitted
	pAborted
)

var pStateNames = [...]string{"has not voted", "uncertain (voted yes)", "committed", "aborted"}

const (
	timerAsk  sim.TimerID = 1
	timerVote sim.TimerID = 2 // VoteTimeout
)

// Participant votes, and applies the decision.
type Participant struct {
	env sim.Env
	cfg ParticipantConfig
	txn string
	st  pState
}

// NewParticipant returns a constructor for a participant with cfg.
func NewParticipant(cfg ParticipantConfig) func(sim.Env) sim.Process {
	if cfg.Timeout == 0 {
		cfg.Timeout = time.Second
	}
	return func(env sim.Env) sim.Process { return &Participant{env: env, cfg: cfg} }
}

// Step handles one input.
func (p *Participant) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InRestart:
		p.recover(in.Disk, out)
	case sim.InTimer:
		switch {
		case in.Timer == timerAsk && p.st == pUncertain && p.cfg.AbortWhenUncertain:
			p.apply(p.txn, Abort, "it voted yes, heard no decision within "+sim.FormatDuration(p.cfg.Timeout)+
				", and aborted on its own", out)
		case in.Timer == timerAsk && p.st == pUncertain:
			p.ask(out)
		case in.Timer == timerVote && p.st == pInit && p.txn != "":
			p.apply(p.txn, Abort, "no vote request came within "+sim.FormatDuration(p.cfg.VoteTimeout)+
				" of its work: it had not voted, so it may abort on its own", out)
		}
	case sim.InMessage:
		p.message(in.From, in.Msg, out)
	}
}

func (p *Participant) message(from sim.ProcID, m sim.Message, out *sim.Outputs) {
	switch m.Op {
	case OpWork:
		if p.st != pUncertain && (p.txn != m.Key || p.st == pInit) {
			p.txn, p.st = m.Key, pInit // a new transaction; the last one is decided
			if p.cfg.VoteTimeout > 0 {
				out.SetTimer(timerVote, p.cfg.VoteTimeout)
			}
		}
	case OpPrepare:
		p.prepare(m.Key, out)
	case OpCommit, OpAbort:
		d := Commit
		if m.Op == OpAbort {
			d = Abort
		}
		how := "the coordinator's decision"
		if from != p.cfg.Coordinator {
			how = "learned from " + p.env.Names[from]
		}
		p.apply(m.Key, d, how, out)
		if from == p.cfg.Coordinator {
			out.Send(from, sim.Message{Op: OpAck, Key: m.Key})
		}
	case OpAsk:
		p.answer(from, m.Key, out)
	}
}

// prepare votes. A yes is forced to the log before it is sent: from then on the
// participant must be able to commit, even after a crash.
func (p *Participant) prepare(txn string, out *sim.Outputs) {
	if p.txn == txn && p.st != pInit {
		if p.st == pUncertain { // the coordinator asks again: answer again
			out.Send(p.cfg.Coordinator, sim.Message{Op: OpYes, Key: txn})
		} else if p.st == pAborted {
			out.Send(p.cfg.Coordinator, sim.Message{Op: OpNo, Key: txn})
		}
		return
	}
	if p.txn != txn && p.st != pUncertain {
		p.st = pInit // a new transaction; the last one is decided
	}
	p.txn = txn
	atomiccommit.CastVote(out, txn, p.cfg.Vote)
	if p.cfg.VoteTimeout > 0 {
		out.CancelTimer(timerVote)
	}
	if !p.cfg.Vote {
		p.apply(txn, Abort, "it voted no", out)
		out.Send(p.cfg.Coordinator, sim.Message{Op: OpNo, Key: txn})
		return
	}
	atomiccommit.Force(out, sim.Message{Op: recPrepared, Key: txn})
	p.st = pUncertain
	out.Send(p.cfg.Coordinator, sim.Message{Op: OpYes, Key: txn})
	out.SetTimer(timerAsk, p.cfg.Timeout)
}

// apply records and reports the decision, once.
func (p *Participant) apply(txn, d, how string, out *sim.Outputs) {
	if p.txn != "" && p.txn != txn || p.st == pCommitted || p.st == pAborted {
		return
	}
	p.txn = txn
	p.st = pAborted
	if d == Commit {
		p.st = pCommitted
	}
	atomiccommit.Force(out, sim.Message{Op: recDecision, Key: txn, Value: d})
	out.CancelTimer(timerAsk)
	decide(out, txn, d, how)
}

// ask: an uncertain participant asks the coordinator (and, cooperatively, the
// other participants) for the decision.
func (p *Participant) ask(out *sim.Outputs) {
	whom := []sim.ProcID{p.cfg.Coordinator}
	if p.cfg.Cooperative {
		whom = append(whom, p.cfg.Peers...)
	}
	var names []string
	for _, q := range whom {
		names = append(names, p.env.Names[q])
		out.Send(q, sim.Message{Op: OpAsk, Key: p.txn})
	}
	out.Observe(sim.Note(p.env.ID, "%s is uncertain about %s: it asks %s", p.env.Name, p.txn, strings.Join(names, ", ")))
	out.SetTimer(timerAsk, p.cfg.Timeout)
}

// answer tells a peer what it knows. One that has not voted may still abort, and
// does: then the transaction can never commit, and the asker may abort too.
func (p *Participant) answer(from sim.ProcID, txn string, out *sim.Outputs) {
	if p.txn != "" && p.txn != txn {
		return
	}
	switch p.st {
	case pInit:
		p.apply(txn, Abort, "it had not voted when "+p.env.Names[from]+" asked, so it aborts on its own", out)
		out.Send(from, sim.Message{Op: OpAbort, Key: txn})
	case pUncertain:
		out.Send(from, sim.Message{Op: OpUncertain, Key: txn})
	case pCommitted:
		out.Send(from, sim.Message{Op: OpCommit, Key: txn})
	case pAborted:
		out.Send(from, sim.Message{Op: OpAbort, Key: txn})
	}
}

// recover reads the log: a decision stands; a yes without a decision leaves it
// uncertain, and it asks.
func (p *Participant) recover(disk []sim.Message, out *sim.Outputs) {
	for _, r := range disk {
		p.txn = r.Key
		switch {
		case r.Op == recPrepared:
			p.st = pUncertain
		case r.Op == recDecision && r.Value == Commit:
			p.st = pCommitted
		case r.Op == recDecision:
			p.st = pAborted
		}
	}
	if p.st == pUncertain {
		out.Observe(sim.Note(p.env.ID, "%s recovers a yes vote on %s and no decision: it is uncertain", p.env.Name, p.txn))
		p.ask(out)
	}
}

// TimerName names the participant's timers.
func (p *Participant) TimerName(id sim.TimerID) string {
	if id == timerVote {
		return "vote request timeout"
	}
	return "decision timeout"
}

// Describe is the participant's state.
func (p *Participant) Describe() string {
	return atomiccommit.Describe("no transaction", p.txn, pStateNames[p.st], "")
}
