package threepc

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/protocols/atomiccommit"
	"github.com/locksim/locksim/sim"
)

// ParticipantConfig configures a participant.
type ParticipantConfig struct {
	Coordinator sim.ProcID
	Peers       []sim.ProcID // the other participants
	Vote        bool
	// Timeout: uncertain or pre-committed this long with no word, it runs the
	// termination protocol (default 2 s).
	Timeout time.Duration
	// StateWait is how long the termination protocol waits for the others'
	// states before deciding who is reachable (default 200 ms).
	StateWait time.Duration
}

type pState uint8

const (
	pInit         pState = iota // has not voted
	pUncertain                  // voted yes
	pPreCommitted               // got PreCommit: everyone voted yes
	pCommitted
	pAborted
)

var pStateNames = [...]string{"init", "uncertain", "pre-committed", "committed", "aborted"}

func parseState(s string) pState {
	for i, n := range pStateNames {
		if n == s {
			return pState(i)
		}
	}
	return pInit
}

const (
	timerWait  sim.TimerID = iota + 1 // no word from the coordinator (or the new one)
	timerElect                        // the states are in: decide who coordinates
)

// Participant votes, pre-commits, commits, and terminates without the
// coordinator when it must.
type Participant struct {
	env    sim.Env
	cfg    ParticipantConfig
	txn    string
	st     pState
	states map[sim.ProcID]pState // termination: the states the others reported
	rounds int                   // termination rounds run
}

// NewParticipant returns a constructor for a participant with cfg.
func NewParticipant(cfg ParticipantConfig) func(sim.Env) sim.Process {
	if cfg.Timeout == 0 {
		cfg.Timeout = 2 * time.Second
	}
	if cfg.StateWait == 0 {
		cfg.StateWait = 200 * time.Millisecond
	}
	return func(env sim.Env) sim.Process { return &Participant{env: env, cfg: cfg} }
}

func (p *Participant) decided() bool { return p.st == pCommitted || p.st == pAborted }

// Step handles one input.
func (p *Participant) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InRestart:
		p.recover(in.Disk, out)
	case sim.InTimer:
		switch in.Timer {
		case timerWait:
			if !p.decided() && p.st != pInit {
				p.terminate(out)
			}
		case timerElect:
			if !p.decided() {
				p.elect(out)
			}
		}
	case sim.InMessage:
		p.message(in.From, in.Msg, out)
	}
}

func (p *Participant) message(from sim.ProcID, m sim.Message, out *sim.Outputs) {
	if m.Op == OpCanCommit && p.txn != "" && m.Key != p.txn && p.decided() {
		p.txn, p.st, p.states = "", pInit, nil // a new transaction; the last one is decided
	}
	if p.txn != "" && m.Key != p.txn {
		return
	}
	if m.Op != OpCanCommit && p.txn == "" {
		p.txn = m.Key // it hears of the transaction from a peer first
	}
	switch m.Op {
	case OpCanCommit:
		if p.txn != "" {
			if p.st == pAborted { // it aborted before the question came
				out.Send(from, sim.Message{Op: OpNo, Key: m.Key})
			}
			return
		}
		p.txn = m.Key
		atomiccommit.CastVote(out, m.Key, p.cfg.Vote)
		if !p.cfg.Vote {
			p.finish(Abort, "it voted no", out)
			out.Send(from, sim.Message{Op: OpNo, Key: m.Key})
			return
		}
		p.st = pUncertain
		atomiccommit.Force(out, sim.Message{Op: recVoted, Key: m.Key}) // a yes survives a crash
		out.Send(from, sim.Message{Op: OpYes, Key: m.Key})
		out.SetTimer(timerWait, p.cfg.Timeout)
	case OpPreCommit:
		if p.st == pUncertain {
			p.st = pPreCommitted
			atomiccommit.Force(out, sim.Message{Op: recPreCommitted, Key: m.Key})
			out.SetTimer(timerWait, p.cfg.Timeout)
		}
		if p.st == pPreCommitted && from == p.cfg.Coordinator {
			out.Send(from, sim.Message{Op: OpAck, Key: m.Key})
		}
	case OpDoCommit, OpAbort:
		d, how := Commit, "the coordinator's decision"
		if m.Op == OpAbort {
			d = Abort
		}
		if from != p.cfg.Coordinator {
			how = "the decision of " + p.env.Names[from] + ", the new coordinator"
		}
		p.finish(d, how, out)
	case OpStateReq:
		if p.st == pInit { // it never voted: it may abort on its own, and does
			p.finish(Abort, "it had not voted when "+p.env.Names[from]+" asked, so it aborts on its own", out)
		}
		out.Send(from, sim.Message{Op: OpState, Key: m.Key, Value: pStateNames[p.st]})
	case OpState:
		if p.states != nil {
			p.states[from] = parseState(m.Value)
		}
	case OpDecisionReq:
		if p.st == pInit { // as for STATE?: it never voted, so it may abort on its own (BHG 7.4), and says so
			p.finish(Abort, "it had not voted when "+p.env.Names[from]+" asked for the decision, so it aborts on its own", out)
		}
		if p.decided() {
			out.Send(from, sim.Message{Op: OpDecision, Key: m.Key, Value: decisionOf(p.st)})
		}
	case OpDecision:
		p.finish(m.Value, "the decision "+p.env.Names[from]+" reported when it asked", out)
	}
}

// decisionOf is a decided state's decision.
func decisionOf(st pState) string {
	if st == pCommitted {
		return Commit
	}
	return Abort
}

func (p *Participant) finish(d, how string, out *sim.Outputs) {
	if p.decided() {
		return
	}
	p.st = pAborted
	if d == Commit {
		p.st = pCommitted
	}
	atomiccommit.Force(out, sim.Message{Op: recDecision, Key: p.txn, Value: d})
	out.CancelTimer(timerWait)
	out.CancelTimer(timerElect)
	decide(out, p.txn, d, how)
}

// Log records, each forced to disk: a participant that recovers uncertain or
// pre-committed must not abort on its own (Skeen 1981 assumes each site's log).
const (
	recVoted        = "VOTED"
	recPreCommitted = "PRECOMMITTED"
	recDecision     = "DECISION"
)

// recover rebuilds the state from the log; one that is uncertain or
// pre-committed asks the others what was decided, and waits for an answer, or
// for its timeout (then it runs the termination protocol).
func (p *Participant) recover(disk []sim.Message, out *sim.Outputs) {
	for _, r := range disk {
		p.txn = r.Key
		switch r.Op {
		case recVoted:
			p.st = pUncertain
		case recPreCommitted:
			p.st = pPreCommitted
		case recDecision:
			p.st = pAborted
			if r.Value == Commit {
				p.st = pCommitted
			}
		}
	}
	if p.st == pUncertain || p.st == pPreCommitted {
		out.Observe(sim.Note(p.env.ID, "%s recovers %s from its log: it asks the others what was decided", p.env.Name, pStateNames[p.st]))
		for _, q := range append([]sim.ProcID{p.cfg.Coordinator}, p.cfg.Peers...) {
			out.Send(q, sim.Message{Op: OpDecisionReq, Key: p.txn})
		}
		out.SetTimer(timerWait, p.cfg.Timeout)
	}
}

// terminate starts the termination protocol: ask every other participant for its
// state, and wait StateWait for the answers.
func (p *Participant) terminate(out *sim.Outputs) {
	p.rounds++
	p.states = map[sim.ProcID]pState{}
	for _, q := range p.cfg.Peers {
		out.Send(q, sim.Message{Op: OpStateReq, Key: p.txn})
	}
	out.Observe(sim.Note(p.env.ID, "%s runs the termination protocol while %s: it asks the others for their states",
		p.env.Name, pStateNames[p.st]))
	out.SetTimer(timerElect, p.cfg.StateWait)
}

// elect: the reachable participants are those that answered, and itself; the
// lowest-numbered of them coordinates. If that is this one, it decides by the
// states and sends the decision to all; otherwise it waits for that decision
// and, if none comes, terminates again.
func (p *Participant) elect(out *sim.Outputs) {
	reach := append([]sim.ProcID{p.env.ID}, slices.Sorted(maps.Keys(p.states))...)
	slices.Sort(reach)
	var names []string
	for _, q := range reach {
		names = append(names, p.env.Names[q])
	}
	for _, q := range reach { // a peer that has decided settles it: follow it
		if st, ok := p.states[q]; ok && (st == pCommitted || st == pAborted) {
			d := Commit
			if st == pAborted {
				d = Abort
			}
			p.finish(d, "termination protocol: "+p.env.Names[q]+" had already "+pStateNames[st], out)
			return
		}
	}
	if reach[0] != p.env.ID {
		out.Observe(sim.Note(p.env.ID, "%s reaches %s: %s coordinates the termination", p.env.Name,
			strings.Join(names, ", "), p.env.Names[reach[0]]))
		out.SetTimer(timerWait, p.cfg.Timeout)
		return
	}
	states := maps.Clone(p.states)
	states[p.env.ID] = p.st
	var seen []string
	anyPre, anyAbort, anyCommit := false, false, false
	for _, q := range reach {
		s := states[q]
		seen = append(seen, p.env.Names[q]+" "+pStateNames[s])
		switch s {
		case pCommitted:
			anyCommit = true
		case pPreCommitted:
			anyPre = true
		case pAborted, pInit:
			anyAbort = true
		}
	}
	d, rule := Abort, "all are uncertain"
	switch {
	case anyCommit:
		d, rule = Commit, "one has committed"
	case anyAbort:
		d, rule = Abort, "one has aborted or never voted"
	case anyPre:
		d, rule = Commit, "one is pre-committed, so everyone voted yes"
	}
	p.finish(d, fmt.Sprintf("termination protocol: it coordinates %s (%s): %s", strings.Join(names, ", "),
		strings.Join(seen, ", "), rule), out)
	op := OpAbort
	if d == Commit {
		op = OpDoCommit
	}
	for _, q := range p.cfg.Peers {
		out.Send(q, sim.Message{Op: op, Key: p.txn})
	}
}

// TimerName names the participant's timers.
func (p *Participant) TimerName(id sim.TimerID) string {
	if id == timerElect {
		return "states collected"
	}
	return "no word"
}

// Describe is the participant's state.
func (p *Participant) Describe() string {
	return atomiccommit.Describe("no transaction", p.txn, pStateNames[p.st], "")
}
