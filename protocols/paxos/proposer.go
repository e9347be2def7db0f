package paxos

import (
	"fmt"
	"slices"
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/sim"
)

// ProposerConfig configures a proposer.
type ProposerConfig struct {
	Acceptors []sim.ProcID
	Value     string // the value it proposes
	// Timeout: a round not chosen by then (counted from its PREPARE) is
	// abandoned, and the next one starts after the Retry policy's wait.
	Timeout time.Duration
	// Retry is the backoff between rounds. The scenario language's backoff=B
	// waits uniformly in [0, 2B), or exactly B with retry=fixed; the zero
	// policy starts no second round.
	Retry lockkit.Retry
}

const (
	timerPhase sim.TimerID = iota + 1
	timerRetry
)

const recRound = "ROUND"

// argRound is the ROUND record's number: the highest round the proposer used.
const argRound = sim.Num1

type phase uint8

const (
	idle phase = iota
	preparing
	accepting
	learned
	waiting // backing off before the next round
)

var phaseNames = [...]string{"idle", "preparing", "accepting", "learned", "backing off"}

// Proposer drives rounds until it learns the chosen value.
type Proposer struct {
	env      sim.Env
	cfg      ProposerConfig
	round    int64
	n        int64
	ph       phase
	promises lockkit.Tally // this round's promises
	failed   int           // rounds abandoned since the proposal began
	bestN    int64         // the highest accepted proposal among the promises
	bestV    string        // and its value
	value    string        // the value of this round's ACCEPT
	// accepted counts ACCEPTED answers per proposal this proposer made: it
	// learns from any of its proposals, even one whose round it has abandoned.
	accepted map[int64]*lockkit.Tally
	values   map[int64]string
	chosen   string
}

// NewProposer returns a constructor for a proposer with cfg.
func NewProposer(cfg ProposerConfig) func(sim.Env) sim.Process {
	if cfg.Timeout == 0 {
		cfg.Timeout = 100 * time.Millisecond
	}
	return func(env sim.Env) sim.Process {
		return &Proposer{env: env, cfg: cfg, promises: lockkit.NewTally(cfg.Acceptors)}
	}
}

// Step handles one input.
func (p *Proposer) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InRestart:
		for _, r := range in.Disk {
			p.round = max(p.round, r.Num(argRound))
		}
	case sim.InCommand:
		if in.Msg.Op == CmdPropose && (p.ph == idle) {
			if in.Msg.Key != "" {
				p.cfg.Value = in.Msg.Key
			}
			out.Observe(sim.Observation{Kind: sim.ObsBegin, Client: sim.NoProc, By: sim.NoProc, Lock: Decree, Grant: p.cfg.Value})
			p.failed = 0
			p.prepare(out)
		}
	case sim.InTimer:
		switch in.Timer {
		case timerPhase:
			if p.ph == preparing || p.ph == accepting {
				p.retry(fmt.Sprintf("proposal %d was not chosen within %s", p.n, sim.FormatDuration(p.cfg.Timeout)), out)
			}
		case timerRetry:
			if p.ph == waiting {
				p.prepare(out)
			}
		}
	case sim.InMessage:
		if slices.Contains(p.cfg.Acceptors, in.From) {
			p.message(in.From, in.Msg, out)
		}
	}
}

// prepare starts a round with a number higher than any this proposer used, even
// before a crash: the round is on disk before the number goes out.
func (p *Proposer) prepare(out *sim.Outputs) {
	p.round++
	out.Write(sim.Message{Op: recRound}.With(argRound, p.round))
	out.Fsync()
	p.n = p.round*1000 + int64(p.env.ID) + 1
	p.ph, p.bestN, p.bestV = preparing, 0, ""
	p.promises.Reset()
	if p.accepted == nil {
		p.accepted, p.values = map[int64]*lockkit.Tally{}, map[int64]string{}
	}
	for _, a := range p.cfg.Acceptors {
		out.Send(a, sim.Message{Op: OpPrepare}.With(ArgProposal, p.n))
	}
	out.SetTimer(timerPhase, p.cfg.Timeout)
}

func (p *Proposer) message(from sim.ProcID, m sim.Message, out *sim.Outputs) {
	if m.Op == OpAccepted {
		p.learn(from, m, out)
		return
	}
	if m.Num(ArgProposal) != p.n {
		return // an answer to an earlier round
	}
	switch m.Op {
	case OpPromise:
		if p.ph != preparing {
			return
		}
		p.promises.Vote(from, true)
		if m.Num(ArgAccepted) > p.bestN {
			p.bestN, p.bestV = m.Num(ArgAccepted), string(m.Body.(promiseValue))
		}
		if !p.promises.Majority() {
			return
		}
		p.value = p.cfg.Value
		if p.bestN > 0 {
			p.value = p.bestV // a value may already be chosen: propose it
			out.Observe(sim.Note(p.env.ID, "%s must propose %s, accepted under proposal %d, not its own %s", p.env.Name, p.bestV, p.bestN, p.cfg.Value))
		}
		p.ph = accepting
		acc := lockkit.NewTally(p.cfg.Acceptors)
		p.values[p.n], p.accepted[p.n] = p.value, &acc
		for _, a := range p.cfg.Acceptors {
			out.Send(a, sim.Message{Op: OpAccept, Value: p.value}.With(ArgProposal, p.n))
		}
	case OpNack:
		p.round = max(p.round, m.Num(ArgPromised)/1000) // its next number goes above the one promised
		if p.ph == preparing || p.ph == accepting {
			p.retry(fmt.Sprintf("%s has promised %d, above its %d", p.env.Names[from], m.Num(ArgPromised), p.n), out)
		}
	}
}

// learn counts an ACCEPTED answer to one of its proposals; a majority for one
// proposal means its value is chosen.
func (p *Proposer) learn(from sim.ProcID, m sim.Message, out *sim.Outputs) {
	acc, ok := p.accepted[m.Num(ArgProposal)]
	if !ok || p.ph == learned {
		return
	}
	acc.Vote(from, true)
	if !acc.Majority() {
		return
	}
	p.ph, p.chosen = learned, p.values[m.Num(ArgProposal)]
	out.CancelTimer(timerPhase)
	out.CancelTimer(timerRetry)
	out.Observe(sim.Note(p.env.ID, "%s learns that %s is chosen (a majority accepted proposal %d)", p.env.Name, p.chosen, m.Num(ArgProposal)))
}

// retry abandons the round and starts the next after the backoff, or gives up
// when the policy says so.
func (p *Proposer) retry(why string, out *sim.Outputs) {
	out.CancelTimer(timerPhase)
	p.failed++
	if !p.cfg.Retry.Again(p.failed) {
		p.ph = idle
		out.Observe(sim.Note(p.env.ID, "%s abandons proposal %d (%s) and gives up after %d rounds", p.env.Name, p.n, why, p.failed))
		return
	}
	p.ph = waiting
	wait := p.cfg.Retry.Wait(p.failed, p.env.Rand)
	out.Observe(sim.Note(p.env.ID, "%s abandons proposal %d (%s); next round in %s", p.env.Name, p.n, why, sim.FormatDuration(wait)))
	out.SetTimer(timerRetry, wait)
}

// TimerName names the proposer's timers.
func (p *Proposer) TimerName(id sim.TimerID) string {
	if id == timerRetry {
		return "backoff over"
	}
	return "phase timeout"
}

// Describe is the proposer's state.
func (p *Proposer) Describe() string {
	s := fmt.Sprintf("%s, proposal %d", phaseNames[p.ph], p.n)
	if p.chosen != "" {
		s += ", learned " + p.chosen
	}
	return s
}
