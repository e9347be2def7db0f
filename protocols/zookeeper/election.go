package zookeeper

import (
	"time"

	"github.com/locksim/locksim/sim"
)

// Elections and the role transitions. A server that loses its leader (or its
// quorum, or a proposal) looks for a leader: it sends every server its last
// zxid and collects theirs for a while (ZooKeeper's fast leader election, with
// the rounds folded into one timer); with votes from a quorum, the server with
// the highest zxid (then the highest id) leads, in an epoch above every epoch
// the voters have seen, and syncs the others with a snapshot (NEWLEADER). Zab
// allows one leader per epoch: a follower acknowledges one, and the leader is
// established once a quorum has acknowledged it.

// setRole swaps in the role's step and tick functions.
func (s *Server) setRole(r role) {
	s.role = r
	switch r {
	case looking:
		s.step, s.tick = stepLooking, tickLooking
	case following:
		s.step, s.tick = stepFollowing, tickFollowing
	case leading:
		s.step, s.tick = stepLeading, tickLeading
	}
}

// bootstrap starts a server of a fresh ensemble: the first server leads epoch
// 1, the others follow it, as if the first election had just happened.
func (s *Server) bootstrap(now sim.LocalTime, out *sim.Outputs) {
	first := s.cfg.Servers[0]
	if first == s.env.ID {
		s.becomeLeader(now, out, 1)
		return
	}
	s.setRole(following)
	s.leader, s.epoch, s.lastHear = first, 1, now.Mono
	s.accepted, s.ackedLeader = 1, first
	out.SetTimer(timerTick, s.cfg.Tick/2)
}

// becomeLooking starts an election: the server votes for itself with its last
// zxid.
func (s *Server) becomeLooking(now sim.LocalTime, out *sim.Outputs) {
	s.setRole(looking)
	s.forgetContainers()
	s.dropReconnections(out)
	// A server that stops serving drops its clients' connections (ZooKeeper
	// shuts its request processors down when it leaves a role): it answers none
	// of the requests it took and had not committed, even if it commits them
	// later as the leader of a new epoch it may never establish. Their clients
	// see the connection lost and ask again; answering "created" for a write the
	// ensemble may never have made lets a client believe in a node that is not
	// its own (and later delete another session's node of the same name).
	for _, x := range s.log {
		x.Origin = sim.NoProc
	}
	s.votes = map[sim.ProcID]int64{s.env.ID: s.lastLogged()}
	for _, p := range s.cfg.Servers {
		if p != s.env.ID {
			out.Send(p, sim.Message{Op: opVote}.With(ArgZxid, s.lastLogged()))
		}
	}
	out.SetTimer(timerElection, s.cfg.ElectionTime)
}

// stepLooking: a looking server collects the votes of the others, and answers
// each voter once with its own.
func stepLooking(s *Server, now sim.LocalTime, from sim.ProcID, m sim.Message, out *sim.Outputs) {
	if m.Op != opVote {
		return
	}
	if _, ok := s.votes[from]; !ok {
		s.votes[from] = m.Num(ArgZxid)
		out.Send(from, sim.Message{Op: opVote}.With(ArgZxid, s.lastLogged()))
	}
}

// tickLooking: the election round ends (decide); the half tick only keeps
// ticking.
func tickLooking(s *Server, now sim.LocalTime, id sim.TimerID, out *sim.Outputs) {
	switch id {
	case timerTick:
		out.SetTimer(timerTick, s.cfg.Tick/2)
	case timerElection:
		s.decide(now, out)
	}
}

// decide ends an election round: with votes from a quorum, the winner leads;
// a server that did not win, or heard from no quorum, votes again (the winner,
// once leading, answers a vote with NEWLEADER; if it died, the next round
// elects someone else).
func (s *Server) decide(now sim.LocalTime, out *sim.Outputs) {
	if len(s.votes) < s.quorum() || winner(s.cfg.Servers, s.votes, s.env.ID) != s.env.ID {
		s.becomeLooking(now, out)
		return
	}
	s.becomeLeader(now, out, newEpoch(s.epoch, s.votes))
}

// winner is the voter with the highest zxid, and of those the highest id
// (self wins a tie only by id, like everyone else). A zxid's epoch is its
// high half, so a later epoch beats any counter of an earlier one.
func winner(servers []sim.ProcID, votes map[sim.ProcID]int64, self sim.ProcID) sim.ProcID {
	best := self
	for _, p := range servers {
		z, ok := votes[p]
		if ok && (z > votes[best] || (z == votes[best] && p > best)) {
			best = p
		}
	}
	return best
}

// newEpoch is the epoch a new leader takes: above its own and above every
// epoch the voters have seen.
func newEpoch(own int64, votes map[sim.ProcID]int64) int64 {
	epoch := own
	for _, z := range votes {
		epoch = max(epoch, z>>32)
	}
	return epoch + 1
}

// becomeLeader starts leading epoch: it commits what it logged, gives every
// session a fresh timeout, and sends every server its state (NEWLEADER).
func (s *Server) becomeLeader(now sim.LocalTime, out *sim.Outputs, epoch int64) {
	s.setRole(leading)
	s.leader, s.epoch, s.counter = s.env.ID, epoch, 0
	s.accepted, s.ackedLeader = epoch, sim.NoProc
	s.established, s.ackedBy, s.waiting = false, map[sim.ProcID]bool{}, nil
	s.followed = map[sim.ProcID]time.Duration{}
	for _, p := range s.cfg.Servers {
		s.followed[p] = now.Mono // every follower gets a leader timeout to answer
	}
	// Everything this server logged is committed by the new epoch (ZAB).
	if len(s.log) > 0 {
		s.applyUpTo(now, s.log[len(s.log)-1].Zxid, out)
	}
	for _, id := range s.t.sortedSessions() {
		s.heard.touch(id, now) // session timeouts restart with the leader
		s.t.sessions[id].closing = false
	}
	if epoch > 1 { // the first leader of a fresh ensemble was not elected
		out.Observe(sim.Observation{Kind: sim.ObsCounter, Client: sim.NoProc, By: sim.NoProc, Name: "elections", Value: 1})
	}
	out.Observe(sim.Note(sim.NoProc, "%s leads the ensemble (epoch %d, last zxid %s)", s.env.Name, epoch, zxidText(s.t.lastZxid)))
	snap := &snapshot{Epoch: epoch, Tree: s.t} // each Send takes its own copy (snapshot.Clone)
	for _, p := range s.cfg.Servers {
		if p != s.env.ID {
			out.Send(p, sim.Message{Op: opNewLeader, Body: snap})
		}
	}
	if len(s.cfg.Servers) == 1 || epoch == 1 {
		s.establish(now, out) // a fresh ensemble's first leader, or an ensemble of one
	}
	out.SetTimer(timerTick, s.cfg.Tick/2)
}

// establish: a quorum has acknowledged this leader's epoch, and with it the
// history in its snapshot. Only now does it report the holder changes of that
// history that no leader has reported (its own, and those of a leader that
// failed before it was established, whose history it took), and propose the
// writes it held back.
func (s *Server) establish(now sim.LocalTime, out *sim.Outputs) {
	s.established = true
	for _, o := range s.t.unreported { // what it reported while waiting comes first
		out.Observe(o)
	}
	s.t.unreported = nil
	for _, x := range s.waiting {
		s.propose(now, x, out)
	}
	s.waiting = nil
}

// newLeader handles a NEWLEADER, in any role: a server follows a leader of a
// later epoch, or the leader it already acknowledged for this one (or, after
// its own leadership failed, this epoch's leader), taking its state; then it
// acknowledges the epoch. It refuses a leader not yet established whose
// history it is ahead of, and does not acknowledge it.
func (s *Server) newLeader(now sim.LocalTime, from sim.ProcID, snap *snapshot, out *sim.Outputs) {
	ok := snap.Epoch > s.accepted ||
		(snap.Epoch == s.accepted && (from == s.ackedLeader || (s.ackedLeader == sim.NoProc && s.role != leading)))
	if !ok {
		return
	}
	if s.role != following || from != s.leader || snap.Epoch > s.epoch {
		if s.aheadOf(snap) {
			out.Observe(sim.Note(sim.NoProc, "%s has logged up to %s, past the history %s was elected with (%s): it does not follow it",
				s.env.Name, zxidText(s.lastLogged()), s.env.Names[from], zxidText(snap.Tree.lastZxid)))
			return
		}
		s.becomeFollower(now, from, snap, out)
	}
	out.Send(from, sim.Message{Op: opAckLeader}.With(argEpoch, snap.Epoch))
}

// aheadOf: this server has logged, in an earlier epoch, more than the history
// a leader not yet established was elected with. Votes are not promises: the
// leader may have been elected on this server's vote, after which the server
// synced with the previous leader and acknowledged more. What it logged since
// may be committed, and taking the new leader's history would lose it; so it
// refuses, the leader cannot be established without it, and a later election
// counts its history (ZooKeeper's leader gives up when an acknowledgement of
// its epoch shows "Follower is ahead of the leader"). An established leader's
// history is the ensemble's: whatever a server logged beyond it was never
// committed, and it takes the leader's.
func (s *Server) aheadOf(snap *snapshot) bool {
	last := s.lastLogged()
	return !snap.Established && last>>32 < snap.Epoch && last > snap.Tree.lastZxid
}

// becomeFollower follows leader in the snapshot's epoch, with the snapshot's
// tree and uncommitted history, written to disk.
func (s *Server) becomeFollower(now sim.LocalTime, leader sim.ProcID, snap *snapshot, out *sim.Outputs) {
	s.setRole(following)
	s.dropReconnections(out) // it syncs anew: its connections are dropped, as when it stops serving
	s.accepted, s.ackedLeader = snap.Epoch, leader
	s.established = false
	s.t, s.log, s.epoch, s.leader = snap.Tree.clone(), nil, snap.Epoch, leader // with its unreported changes
	s.lastHear = now.Mono
	s.acks = map[int64][]bool{}
	out.Write(sim.Message{Op: opNewLeader, Body: snap})
	out.Fsync()
	out.CancelTimer(timerElection)
	out.SetTimer(timerTick, s.cfg.Tick/2)
	out.Observe(sim.Note(sim.NoProc, "%s follows %s (epoch %d)", s.env.Name, s.env.Names[leader], snap.Epoch))
}
