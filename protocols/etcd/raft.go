package etcd

import (
	"fmt"
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
	opVoteResp = "MsgVoteResp" // N: term, Value: granted or rejected

	recHardState = "HardState" // N: term, M: the member voted for
	recEntries   = "Entries"   // N: the entries follow this index (later ones are cut), Body: entries
	recCommit    = "Commit"    // N: the commit index (written, not fsynced: it may be learnt again)

	maxBatch = 64 // entries per MsgApp
)

// raft is a member's Raft state (Ongaro and Ousterhout, "In Search of an
// Understandable Consensus Algorithm", 2014, figure 2), as etcd's raft library
// runs it: with CheckQuorum, and a leader's empty entry at the start of its term.
type raft struct {
	m        *Member
	role     role
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
	votes       []bool
}

func newRaft(m *Member) raft {
	return raft{m: m, leader: sim.NoProc, vote: sim.NoProc, log: []entry{{}}}
}

func (r *raft) members() []sim.ProcID { return r.m.cfg.Members }
func (r *raft) me() sim.ProcID        { return r.m.env.ID }
func (r *raft) quorum() int           { return len(r.members())/2 + 1 }
func (r *raft) lastIndex() int64      { return int64(len(r.log) - 1) }
func (r *raft) lastTerm() int64       { return r.log[len(r.log)-1].Term }
func (r *raft) pos(p sim.ProcID) int  { return slices.Index(r.members(), p) }

// recover rebuilds term, vote and log from disk and re-applies what it knew was
// committed, answering nobody. A fresh cluster starts with its first member as
// the leader of term 1, as if the first election had just happened.
func (r *raft) recover(now sim.LocalTime, disk []sim.Message, out *sim.Outputs) {
	for _, rec := range disk {
		switch rec.Op {
		case recHardState:
			r.term, r.vote = rec.N, sim.ProcID(rec.M)
		case recEntries:
			r.log = append(r.log[:min(rec.N+1, int64(len(r.log)))], rec.Body.(entries)...)
		case recCommit:
			r.commit = max(r.commit, rec.N)
		}
	}
	r.commit = min(r.commit, r.lastIndex())
	r.applyCommitted(now, true, out)
	if len(disk) == 0 && r.m.env.Incarnation == 0 {
		first := r.members()[0]
		r.term, r.vote = 1, first
		r.saveHardState(out)
		if first == r.me() {
			r.becomeLeader(now, out)
			return
		}
		r.role, r.leader, r.lastHear = roleFollower, first, now.Mono
		r.resetElection(out)
		return
	}
	r.becomeFollower(now, r.term, sim.NoProc, out)
}

func (r *raft) saveHardState(out *sim.Outputs) {
	out.Write(sim.Message{Op: recHardState}.WithN(r.term).WithM(int64(r.vote)))
	out.Fsync()
}

// saveEntries logs entries durably: Raft acknowledges only what is on disk.
func (r *raft) saveEntries(after int64, es []entry, out *sim.Outputs) {
	out.Write(sim.Message{Op: recEntries, Body: entries(slices.Clone(es))}.WithN(after))
	out.Fsync()
}

// resetElection arms the election timeout, randomised in [T, 2T) from the
// member's own random stream so that candidates rarely collide.
func (r *raft) resetElection(out *sim.Outputs) {
	t := r.m.cfg.ElectionTimeout
	out.SetTimer(timerElection, t+time.Duration(r.m.env.Rand.Int64N(int64(t))))
}

func (r *raft) becomeFollower(now sim.LocalTime, term int64, leader sim.ProcID, out *sim.Outputs) {
	if term > r.term {
		r.term, r.vote = term, sim.NoProc
		r.saveHardState(out)
	}
	if r.role == roleLeader {
		r.m.lessor.demote()
		out.CancelTimer(timerHeartbeat)
	}
	r.role, r.leader = roleFollower, leader
	if leader != sim.NoProc {
		r.lastHear = now.Mono
	}
	r.resetElection(out)
}

// campaign: the election timeout fired without word from a leader.
func (r *raft) campaign(now sim.LocalTime, out *sim.Outputs) {
	if r.role == roleLeader {
		return
	}
	r.role, r.leader = roleCandidate, sim.NoProc
	r.term++
	r.vote = r.me()
	r.saveHardState(out)
	r.votes = make([]bool, len(r.members()))
	r.votes[r.pos(r.me())] = true
	out.Observe(sim.Note(sim.NoProc, "%s heard from no leader: it stands for election in term %d", r.m.env.Name, r.term))
	for _, p := range r.members() {
		if p != r.me() {
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

func (r *raft) becomeLeader(now sim.LocalTime, out *sim.Outputs) {
	r.role, r.leader = roleLeader, r.me()
	n := len(r.members())
	r.next, r.match, r.acked = make([]int64, n), make([]int64, n), make([]time.Duration, n)
	for i := range n {
		r.next[i], r.acked[i] = r.lastIndex()+1, now.Mono
	}
	out.CancelTimer(timerElection)
	if r.term > 1 { // a fresh cluster's first leader was not elected
		out.Observe(sim.Observation{Kind: sim.ObsCounter, Client: sim.NoProc, By: sim.NoProc, Name: "elections", Value: 1})
	}
	out.Observe(sim.Note(sim.NoProc, "%s leads the cluster (term %d, last index %d)", r.m.env.Name, r.term, r.lastIndex()))
	r.propose(now, nil, out) // the empty entry that commits the earlier terms' entries
	out.SetTimer(timerHeartbeat, r.m.cfg.Heartbeat)
}

// propose appends a command to the leader's log and sends it out.
func (r *raft) propose(now sim.LocalTime, c *cmd, out *sim.Outputs) {
	if r.role != roleLeader {
		return
	}
	e := entry{Term: r.term, Index: r.lastIndex() + 1, Cmd: c}
	r.log = append(r.log, e)
	r.saveEntries(e.Index-1, []entry{e}, out)
	r.match[r.pos(r.me())] = e.Index
	r.broadcast(out)
	r.maybeCommit(now, out)
}

func (r *raft) broadcast(out *sim.Outputs) {
	for i, p := range r.members() {
		if p != r.me() {
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
		Commit: r.commit, Entries: slices.Clone(es)}}
	if len(es) == 0 {
		m = m.InBackground() // only "alive, committed up to": etcd's MsgHeartbeat
	}
	out.Send(r.members()[i], m)
	r.next[i] = prev + int64(len(es)) + 1
}

// heartbeat: the leader checks that a quorum still answers, then sends every
// member what it lacks (empty if nothing: a heartbeat).
func (r *raft) heartbeat(now sim.LocalTime, out *sim.Outputs) {
	if r.role != roleLeader {
		return
	}
	heard := 0
	for i, p := range r.members() {
		if p == r.me() || now.Mono-r.acked[i] <= r.m.cfg.ElectionTimeout {
			heard++
		}
	}
	if heard < r.quorum() {
		out.Observe(sim.Note(sim.NoProc, "%s hears from only %d of %d members: it steps down (CheckQuorum)",
			r.m.env.Name, heard, len(r.members())))
		r.becomeFollower(now, r.term, sim.NoProc, out)
		return
	}
	r.broadcast(out)
	out.SetTimer(timerHeartbeat, r.m.cfg.Heartbeat)
}

// step handles a message from another member.
func (r *raft) step(now sim.LocalTime, from sim.ProcID, msg sim.Message, out *sim.Outputs) {
	term := msg.N
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
			out.Send(from, sim.Message{Op: opVoteResp, Value: "rejected"}.WithN(r.term))
		}
		return
	}
	switch msg.Op {
	case opApp:
		r.append(now, from, msg.Body.(*appMsg), out)
	case opAppResp:
		if r.role == roleLeader {
			r.appended(now, from, msg.Body.(*appResp), out)
		}
	case opVote:
		v := msg.Body.(*voteMsg)
		upToDate := v.LastTerm > r.lastTerm() || (v.LastTerm == r.lastTerm() && v.LastIndex >= r.lastIndex())
		if (r.vote == sim.NoProc || r.vote == from) && upToDate && r.role == roleFollower {
			r.vote = from
			r.saveHardState(out)
			r.resetElection(out)
			out.Send(from, sim.Message{Op: opVoteResp, Value: "granted"}.WithN(r.term))
			return
		}
		out.Send(from, sim.Message{Op: opVoteResp, Value: "rejected"}.WithN(r.term))
	case opVoteResp:
		if r.role == roleCandidate && msg.Value == "granted" {
			r.votes[r.pos(from)] = true
			r.countVotes(now, out)
		}
	}
}

// inLease: this member has a live leader (itself, or one heard from within an
// election timeout).
func (r *raft) inLease(now sim.LocalTime) bool {
	return r.role == roleLeader || (r.leader != sim.NoProc && now.Mono-r.lastHear < r.m.cfg.ElectionTimeout)
}

// append is a follower's side of MsgApp: check that its log matches the
// leader's at Prev, cut any conflicting suffix, log the new entries, learn the
// commit index.
func (r *raft) append(now sim.LocalTime, from sim.ProcID, a *appMsg, out *sim.Outputs) {
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
		out.Write(sim.Message{Op: recCommit}.WithN(c))
		r.applyCommitted(now, false, out)
	}
	resp := sim.Message{Op: opAppResp, Body: &appResp{r.term, last, false}}
	if len(a.Entries) == 0 {
		resp = resp.InBackground() // the answer to a heartbeat: MsgHeartbeatResp
	}
	out.Send(from, resp)
}

// appended is the leader's side of MsgAppResp.
func (r *raft) appended(now sim.LocalTime, from sim.ProcID, a *appResp, out *sim.Outputs) {
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
			out.Write(sim.Message{Op: recCommit}.WithN(n))
			r.applyCommitted(now, false, out)
			return true
		}
	}
	return false
}

// applyCommitted applies, in order, every committed entry not applied yet.
func (r *raft) applyCommitted(now sim.LocalTime, replaying bool, out *sim.Outputs) {
	for r.applied < r.commit {
		r.applied++
		r.m.applied(now, r.log[r.applied], replaying, out)
		// The lessor starts once the leader has applied every earlier term's
		// entries (etcd's Promote): only then does it know every lease.
		if r.role == roleLeader && !r.m.lessor.promoted && r.log[r.applied].Term == r.term {
			r.m.lessor.promote(r.m, now, out)
		}
	}
}
