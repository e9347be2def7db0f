package etcd

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// entry is one log entry. Cmd nil is a new leader's empty entry.
type entry struct {
	Term, Index int64
	Cmd         *cmd
}

type entries []entry

func (es entries) String() string {
	var parts []string
	for _, e := range es {
		s := fmt.Sprintf("%d@%d", e.Index, e.Term)
		if e.Cmd != nil {
			s += " " + e.Cmd.String()
		} else {
			s += " (empty)"
		}
		parts = append(parts, s)
	}
	return "[" + strings.Join(parts, "; ") + "]"
}

// appMsg is Raft's AppendEntries (etcd's MsgApp): the entries after Prev, which
// the follower must already hold with term PrevTerm, and the leader's commit.
type appMsg struct {
	Term, Prev, PrevTerm, Commit int64
	Entries                      entries
}

func (a *appMsg) String() string {
	s := fmt.Sprintf("term %d prev %d@%d commit %d", a.Term, a.Prev, a.PrevTerm, a.Commit)
	if len(a.Entries) > 0 {
		s += " " + a.Entries.String()
	}
	return s
}

// appResp is a follower's answer to MsgApp: the last index it now holds, or,
// rejecting, a hint of where its log ends.
type appResp struct {
	Term, Index int64
	Reject      bool
}

func (a *appResp) String() string {
	if a.Reject {
		return fmt.Sprintf("term %d reject: its log ends at %d", a.Term, a.Index)
	}
	return fmt.Sprintf("term %d index %d", a.Term, a.Index)
}

// voteMsg is Raft's RequestVote: the candidate's term and how far its log goes.
type voteMsg struct{ Term, LastIndex, LastTerm int64 }

func (v *voteMsg) String() string {
	return fmt.Sprintf("term %d last %d@%d", v.Term, v.LastIndex, v.LastTerm)
}

// Between members, as etcd's raft names them; and the records on a member's disk.
const (
	opApp      = "MsgApp"
	opAppResp  = "MsgAppResp"  // Body: appResp
	opVote     = "MsgVote"     // Body: voteMsg
	opVoteResp = "MsgVoteResp" // argTerm, Value: granted or rejected

	recHardState = "HardState" // argTerm, argVote
	recEntries   = "Entries"   // argAfter: the entries follow this index (later ones are cut), Body: entries
	recCommit    = "Commit"    // argCommit (written, not fsynced: it may be learnt again)

	maxBatch = 64 // entries per MsgApp

	// The numbers on MsgVoteResp and the records (sim.Arg).
	argTerm   = sim.Num1 // a term
	argVote   = sim.Num2 // the member voted for in argTerm
	argAfter  = sim.Num1 // the index the written entries follow
	argCommit = sim.Num1 // the commit index
)

// role is a member's Raft role.
type role uint8

const (
	roleFollower role = iota
	roleCandidate
	roleLeader
)

var roleNames = [...]string{"follower", "candidate", "leader"}

func (r role) String() string { return roleNames[r] }

// The core's timers: a follower's or a candidate's election timeout, a leader's
// heartbeat.
const (
	timerHeartbeat sim.TimerID = iota + 1
	timerElection
)

// raftConfig is all the core knows of the member that runs it.
type raftConfig struct {
	ID              sim.ProcID
	Name            string       // for the notes
	Peers           []sim.ProcID // the cluster, ID among them; the first leads a fresh cluster
	Heartbeat       time.Duration
	ElectionTimeout time.Duration // randomised in [T, 2T)
	Rand            *rand.Rand    // the member's own stream, for the randomised timeouts
}

// stateMachine is what the core replicates, and whom it tells of its role: the
// member that runs it (etcd's raft hands the same over in Ready, as
// CommittedEntries and SoftState).
type stateMachine interface {
	// applyEntry applies one committed entry; each comes once, in log order.
	// replaying: the member is rebuilding itself from its disk after a
	// restart, and answers nobody.
	applyEntry(now sim.LocalTime, e entry, replaying bool, out *sim.Outputs)
	// roleChanged: the core has moved from one role to another.
	roleChanged(now sim.LocalTime, from, to role)
}

// raft is a member's Raft core (Ongaro and Ousterhout, "In Search of an
// Understandable Consensus Algorithm", 2014, figure 2), as etcd's raft library
// runs it: with CheckQuorum, and a leader's empty entry at the start of its term.
// It is shaped like etcd's raft: Step handles what every role shares and hands
// the rest to the role's step function; Tick hands a timer to the role's tick
// function; the become* transitions swap both.
type raft struct {
	cfg      raftConfig
	sm       stateMachine
	role     role
	step     stepFunc // stepFollower, stepCandidate, stepLeader
	tick     tickFunc // tickElection, tickHeartbeat
	leader   sim.ProcID
	term     int64
	vote     sim.ProcID
	log      []entry // log[0] is a sentinel: index 0, term 0
	commit   int64
	applied  int64
	lastHear time.Duration // when it last heard from a leader (mono)
	// the leader's view of each member, by position in the cluster
	next, match []int64
	acked       []time.Duration
	votes       []bool // a candidate's votes, by position in the cluster
}

type (
	stepFunc func(r *raft, now sim.LocalTime, from sim.ProcID, msg sim.Message, out *sim.Outputs)
	tickFunc func(r *raft, now sim.LocalTime, id sim.TimerID, out *sim.Outputs)
)

func newRaft(cfg raftConfig, sm stateMachine) raft {
	return raft{cfg: cfg, sm: sm, role: roleFollower, step: stepFollower, tick: tickElection,
		leader: sim.NoProc, vote: sim.NoProc, log: []entry{{}}}
}

func (r *raft) quorum() int          { return len(r.cfg.Peers)/2 + 1 }
func (r *raft) lastIndex() int64     { return int64(len(r.log) - 1) }
func (r *raft) lastTerm() int64      { return r.log[len(r.log)-1].Term }
func (r *raft) pos(p sim.ProcID) int { return slices.Index(r.cfg.Peers, p) }

// Bootstrap starts a member of a fresh cluster: the first member leads term 1,
// as if the first election had just happened.
func (r *raft) Bootstrap(now sim.LocalTime, out *sim.Outputs) {
	first := r.cfg.Peers[0]
	r.term, r.vote = 1, first
	r.saveHardState(out)
	if first == r.cfg.ID {
		r.becomeLeader(now, out)
		return
	}
	r.becomeFollower(now, r.term, first, out)
}

// Restart rebuilds term, vote and log from disk and re-applies what it knew
// was committed, answering nobody; then it follows, knowing no leader.
func (r *raft) Restart(now sim.LocalTime, disk []sim.Message, out *sim.Outputs) {
	for _, rec := range disk {
		switch rec.Op {
		case recHardState:
			r.term, r.vote = rec.Num(argTerm), sim.ProcID(rec.Num(argVote))
		case recEntries:
			r.log = append(r.log[:min(rec.Num(argAfter)+1, int64(len(r.log)))], rec.Body.(entries)...)
		case recCommit:
			r.commit = max(r.commit, rec.Num(argCommit))
		}
	}
	r.commit = min(r.commit, r.lastIndex())
	r.applyCommitted(now, true, out)
	r.becomeFollower(now, r.term, sim.NoProc, out)
}

func (r *raft) saveHardState(out *sim.Outputs) {
	out.Write(sim.Message{Op: recHardState}.With(argTerm, r.term).With(argVote, int64(r.vote)))
	out.Fsync()
}

// saveEntries logs entries durably: Raft acknowledges only what is on disk.
func (r *raft) saveEntries(after int64, es []entry, out *sim.Outputs) {
	out.Write(sim.Message{Op: recEntries, Body: entries(es)}.With(argAfter, after)) // Write copies them (entries.Clone)
	out.Fsync()
}

// resetElection arms the election timeout, randomised in [T, 2T) from the
// member's own random stream so that candidates rarely collide.
func (r *raft) resetElection(out *sim.Outputs) {
	t := r.cfg.ElectionTimeout
	out.SetTimer(timerElection, t+time.Duration(r.cfg.Rand.Int64N(int64(t))))
}

// setRole swaps in the role's step and tick functions, and tells the state
// machine when the role changes.
func (r *raft) setRole(now sim.LocalTime, to role) {
	from := r.role
	r.role = to
	switch to {
	case roleFollower:
		r.step, r.tick = stepFollower, tickElection
	case roleCandidate:
		r.step, r.tick = stepCandidate, tickElection
	case roleLeader:
		r.step, r.tick = stepLeader, tickHeartbeat
	}
	if from != to {
		r.sm.roleChanged(now, from, to)
	}
}

func (r *raft) becomeFollower(now sim.LocalTime, term int64, leader sim.ProcID, out *sim.Outputs) {
	if term > r.term {
		r.term, r.vote = term, sim.NoProc
		r.saveHardState(out)
	}
	if r.role == roleLeader {
		out.CancelTimer(timerHeartbeat)
	}
	r.setRole(now, roleFollower)
	r.leader = leader
	if leader != sim.NoProc {
		r.lastHear = now.Mono
	}
	r.resetElection(out)
}

// becomeCandidate: it votes for itself in a new term.
func (r *raft) becomeCandidate(now sim.LocalTime, out *sim.Outputs) {
	r.setRole(now, roleCandidate)
	r.leader = sim.NoProc
	r.term++
	r.vote = r.cfg.ID
	r.saveHardState(out)
	r.votes = make([]bool, len(r.cfg.Peers))
	r.votes[r.pos(r.cfg.ID)] = true
	out.Observe(sim.Note(sim.NoProc, "%s heard from no leader: it stands for election in term %d", r.cfg.Name, r.term))
}

func (r *raft) becomeLeader(now sim.LocalTime, out *sim.Outputs) {
	r.setRole(now, roleLeader)
	r.leader = r.cfg.ID
	n := len(r.cfg.Peers)
	r.next, r.match, r.acked = make([]int64, n), make([]int64, n), make([]time.Duration, n)
	for i := range n {
		r.next[i], r.acked[i] = r.lastIndex()+1, now.Mono
	}
	out.CancelTimer(timerElection)
	if r.term > 1 { // a fresh cluster's first leader was not elected
		out.Observe(sim.Observation{Kind: sim.ObsCounter, Client: sim.NoProc, By: sim.NoProc, Name: "elections", Value: 1})
	}
	out.Observe(sim.Note(sim.NoProc, "%s leads the cluster (term %d, last index %d)", r.cfg.Name, r.term, r.lastIndex()))
	r.Propose(now, nil, out) // the empty entry that commits the earlier terms' entries
	out.SetTimer(timerHeartbeat, r.cfg.Heartbeat)
}

// Tick handles one of the core's timers.
func (r *raft) Tick(now sim.LocalTime, id sim.TimerID, out *sim.Outputs) { r.tick(r, now, id, out) }

// tickElection: a follower or a candidate heard from no leader for an election
// timeout: it stands for election.
func tickElection(r *raft, now sim.LocalTime, id sim.TimerID, out *sim.Outputs) {
	if id == timerElection {
		r.campaign(now, out)
	}
}

// tickHeartbeat: the leader checks that a quorum still answers, then sends
// every member what it lacks (empty if nothing: a heartbeat).
func tickHeartbeat(r *raft, now sim.LocalTime, id sim.TimerID, out *sim.Outputs) {
	if id != timerHeartbeat {
		return
	}
	heard := 0
	for i, p := range r.cfg.Peers {
		if p == r.cfg.ID || now.Mono-r.acked[i] <= r.cfg.ElectionTimeout {
			heard++
		}
	}
	if heard < r.quorum() {
		out.Observe(sim.Note(sim.NoProc, "%s hears from only %d of %d members: it steps down (CheckQuorum)",
			r.cfg.Name, heard, len(r.cfg.Peers)))
		r.becomeFollower(now, r.term, sim.NoProc, out)
		return
	}
	r.broadcast(out)
	out.SetTimer(timerHeartbeat, r.cfg.Heartbeat)
}

// campaign asks every other member for its vote in a new term.
func (r *raft) campaign(now sim.LocalTime, out *sim.Outputs) {
	r.becomeCandidate(now, out)
	for _, p := range r.cfg.Peers {
		if p != r.cfg.ID {
			out.Send(p, sim.Message{Op: opVote, Body: &voteMsg{r.term, r.lastIndex(), r.lastTerm()}})
		}
	}
	r.resetElection(out)
	r.countVotes(now, out)
}

func (r *raft) countVotes(now sim.LocalTime, out *sim.Outputs) {
	n := 0
	for _, v := range r.votes {
		if v {
			n++
		}
	}
	if n >= r.quorum() {
		r.becomeLeader(now, out)
	}
}

// Propose appends a command to the leader's log and sends it out; a member
// that does not lead drops it.
func (r *raft) Propose(now sim.LocalTime, c *cmd, out *sim.Outputs) {
	if r.role != roleLeader {
		return
	}
	e := entry{Term: r.term, Index: r.lastIndex() + 1, Cmd: c}
	r.log = append(r.log, e)
	r.saveEntries(e.Index-1, []entry{e}, out)
	r.match[r.pos(r.cfg.ID)] = e.Index
	r.broadcast(out)
	r.maybeCommit(now, out)
}

func (r *raft) broadcast(out *sim.Outputs) {
	for i, p := range r.cfg.Peers {
		if p != r.cfg.ID {
			r.sendApp(i, out)
		}
	}
}

// sendApp sends member i the entries it has not been sent yet, optimistically
// (etcd's replicate state): a lost message shows up as a gap the follower
// rejects at the next heartbeat, and the leader then goes back.
func (r *raft) sendApp(i int, out *sim.Outputs) {
	prev := min(r.next[i]-1, r.lastIndex())
	es := r.log[prev+1 : min(prev+1+maxBatch, int64(len(r.log)))]
	m := sim.Message{Op: opApp, Body: &appMsg{Term: r.term, Prev: prev, PrevTerm: r.log[prev].Term,
		Commit: r.commit, Entries: es}} // Send copies them (appMsg.Clone)
	if len(es) == 0 {
		m = m.InBackground() // only "alive, committed up to": etcd's MsgHeartbeat
	}
	out.Send(r.cfg.Peers[i], m)
	r.next[i] = prev + int64(len(es)) + 1
}

// Step handles a message from another member: first the rules on terms every
// role follows (figure 2, "all servers") and the vote, which every role
// answers; then the role's own step function.
func (r *raft) Step(now sim.LocalTime, from sim.ProcID, msg sim.Message, out *sim.Outputs) {
	term := msg.Num(argTerm)
	switch b := msg.Body.(type) {
	case *appMsg:
		term = b.Term
	case *voteMsg:
		term = b.Term
	case *appResp:
		term = b.Term
	}
	if msg.Op == opVote && term > r.term && r.inLease(now) {
		return // a leader is alive: ignore a disrupting candidate (etcd, with CheckQuorum)
	}
	if term > r.term {
		ld := sim.NoProc
		if msg.Op == opApp {
			ld = from
		}
		r.becomeFollower(now, term, ld, out)
	}
	if term < r.term {
		switch msg.Op {
		case opApp:
			out.Send(from, sim.Message{Op: opAppResp, Body: &appResp{r.term, r.lastIndex(), true}})
		case opVote:
			out.Send(from, sim.Message{Op: opVoteResp, Value: "rejected"}.With(argTerm, r.term))
		}
		return
	}
	if msg.Op == opVote {
		r.handleVote(from, msg.Body.(*voteMsg), out)
		return
	}
	r.step(r, now, from, msg, out)
}

// handleVote grants a vote to a candidate whose log is at least as up to date,
// once per term. A candidate or a leader has voted for itself in its term, so
// only a follower grants.
func (r *raft) handleVote(from sim.ProcID, v *voteMsg, out *sim.Outputs) {
	upToDate := v.LastTerm > r.lastTerm() || (v.LastTerm == r.lastTerm() && v.LastIndex >= r.lastIndex())
	if (r.vote == sim.NoProc || r.vote == from) && upToDate {
		r.vote = from
		r.saveHardState(out)
		r.resetElection(out)
		out.Send(from, sim.Message{Op: opVoteResp, Value: "granted"}.With(argTerm, r.term))
		return
	}
	out.Send(from, sim.Message{Op: opVoteResp, Value: "rejected"}.With(argTerm, r.term))
}

// stepFollower: a follower takes the leader's entries; answers to a role it
// no longer has (MsgAppResp, MsgVoteResp) are dropped.
func stepFollower(r *raft, now sim.LocalTime, from sim.ProcID, msg sim.Message, out *sim.Outputs) {
	if msg.Op == opApp {
		r.handleAppend(now, from, msg.Body.(*appMsg), out)
	}
}

// stepCandidate: a candidate counts its votes; entries from a leader of its
// term mean it lost, and it follows that leader.
func stepCandidate(r *raft, now sim.LocalTime, from sim.ProcID, msg sim.Message, out *sim.Outputs) {
	switch msg.Op {
	case opApp:
		r.handleAppend(now, from, msg.Body.(*appMsg), out)
	case opVoteResp:
		if msg.Value == "granted" {
			r.votes[r.pos(from)] = true
			r.countVotes(now, out)
		}
	}
}

// stepLeader: the leader learns how far each follower's log matches its own.
// (No other member leads its term, so no MsgApp reaches it.)
func stepLeader(r *raft, now sim.LocalTime, from sim.ProcID, msg sim.Message, out *sim.Outputs) {
	if msg.Op == opAppResp {
		r.handleAppendResp(now, from, msg.Body.(*appResp), out)
	}
}

// inLease: this member has a live leader (itself, or one heard from within an
// election timeout).
func (r *raft) inLease(now sim.LocalTime) bool {
	return r.role == roleLeader || (r.leader != sim.NoProc && now.Mono-r.lastHear < r.cfg.ElectionTimeout)
}

// handleAppend is a follower's side of MsgApp: check that its log matches the
// leader's at Prev, cut any conflicting suffix, log the new entries, learn the
// commit index.
func (r *raft) handleAppend(now sim.LocalTime, from sim.ProcID, a *appMsg, out *sim.Outputs) {
	if r.role != roleFollower || r.leader != from {
		r.becomeFollower(now, r.term, from, out)
	}
	r.lastHear = now.Mono
	r.resetElection(out)
	if a.Prev > r.lastIndex() || r.log[a.Prev].Term != a.PrevTerm {
		hint := min(r.lastIndex(), a.Prev-1)
		out.Send(from, sim.Message{Op: opAppResp, Body: &appResp{r.term, hint, true}})
		return
	}
	for i, e := range a.Entries {
		if e.Index <= r.lastIndex() {
			if r.log[e.Index].Term == e.Term {
				continue
			}
			r.log = r.log[:e.Index] // a conflicting suffix no quorum committed
		}
		r.log = append(r.log, a.Entries[i:]...)
		r.saveEntries(e.Index-1, a.Entries[i:], out)
		break
	}
	last := a.Prev + int64(len(a.Entries))
	if c := min(a.Commit, last); c > r.commit {
		r.commit = c
		out.Write(sim.Message{Op: recCommit}.With(argCommit, c))
		r.applyCommitted(now, false, out)
	}
	resp := sim.Message{Op: opAppResp, Body: &appResp{r.term, last, false}}
	if len(a.Entries) == 0 {
		resp = resp.InBackground() // the answer to a heartbeat: MsgHeartbeatResp
	}
	out.Send(from, resp)
}

// handleAppendResp is the leader's side of MsgAppResp.
func (r *raft) handleAppendResp(now sim.LocalTime, from sim.ProcID, a *appResp, out *sim.Outputs) {
	i := r.pos(from)
	r.acked[i] = now.Mono
	if a.Reject {
		r.next[i] = max(1, min(r.next[i]-1, a.Index+1), r.match[i]+1)
		r.sendApp(i, out)
		return
	}
	r.match[i] = max(r.match[i], a.Index)
	r.next[i] = max(r.next[i], a.Index+1)
	if r.maybeCommit(now, out) {
		r.broadcast(out) // tell the followers at once, as etcd's raft does
	}
}

// maybeCommit commits the highest entry of the leader's own term that a quorum
// holds (with it, everything before it); entries of earlier terms are never
// committed by counting (Raft, section 5.4.2).
func (r *raft) maybeCommit(now sim.LocalTime, out *sim.Outputs) bool {
	for n := r.lastIndex(); n > r.commit && r.log[n].Term == r.term; n-- {
		have := 0
		for _, m := range r.match {
			if m >= n {
				have++
			}
		}
		if have >= r.quorum() {
			r.commit = n
			out.Write(sim.Message{Op: recCommit}.With(argCommit, n))
			r.applyCommitted(now, false, out)
			return true
		}
	}
	return false
}

// applyCommitted hands the state machine, in order, every committed entry not
// applied yet.
func (r *raft) applyCommitted(now sim.LocalTime, replaying bool, out *sim.Outputs) {
	for r.applied < r.commit {
		r.applied++
		r.sm.applyEntry(now, r.log[r.applied], replaying, out)
	}
}
