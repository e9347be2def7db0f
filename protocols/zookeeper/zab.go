package zookeeper

import (
	"fmt"
	"slices"

	"github.com/locksim/locksim/sim"
)

// The atomic broadcast (Zab; Junqueira, Reed and Serafini, "Zab:
// High-performance broadcast for primary-backup systems", 2011): the leader
// gives each write a zxid (epoch, counter), logs it and proposes it; a follower
// logs it durably and acknowledges; once a quorum has it, the leader commits it
// and every server applies it, in zxid order. A follower that finds a gap in
// what it was sent resyncs through an election.
//
// Each role handles the messages between servers in its own step function and
// the half tick in its own tick function (as ZooKeeper's Leader.lead,
// Follower.followLeader and FastLeaderElection.lookForLeader each run their own
// loop); become* in election.go swaps them.

type (
	stepFunc func(s *Server, now sim.LocalTime, from sim.ProcID, m sim.Message, out *sim.Outputs)
	tickFunc func(s *Server, now sim.LocalTime, id sim.TimerID, out *sim.Outputs)
)

// stepLeading: the leader takes forwarded writes and session touches, counts
// acknowledgements, hears its followers' pings, counts the acknowledgements of
// its epoch, and syncs a server that is looking for a leader.
func stepLeading(s *Server, now sim.LocalTime, from sim.ProcID, m sim.Message, out *sim.Outputs) {
	switch m.Op {
	case opRequest:
		s.lead(now, m.Body.(*txn), out)
	case opTouch:
		if _, ok := s.t.sessions[m.Num(ArgSession)]; ok {
			s.heard.touch(m.Num(ArgSession), now)
		}
	case opRevalidate:
		answer := sim.Message{Op: opRevalidate}.With(ArgSession, m.Num(ArgSession))
		if !s.revalidate(now, m.Num(ArgSession)) {
			answer.Value = ErrSessionExpired
		}
		out.Send(from, answer)
	case opAck:
		if a, ok := s.acks[m.Num(ArgZxid)]; ok {
			a[s.index(from)] = true
			s.tryCommit(now, out)
		}
	case opPingAck:
		s.followed[from] = now.Mono
	case opAckLeader:
		if m.Num(argEpoch) == s.epoch && !s.established {
			s.ackedBy[from] = true
			if len(s.ackedBy)+1 >= s.quorum() {
				s.establish(now, out)
			}
		}
	case opVote:
		// A server that lost us: sync it with what is committed, then send it
		// the proposals still outstanding, which it logs and acknowledges as
		// any follower does (ZooKeeper's Leader.startForwarding). Without them
		// it would miss their commits and resync again, and again while
		// writes keep coming.
		out.Send(from, sim.Message{Op: opNewLeader, Body: &snapshot{Epoch: s.epoch, Tree: s.t, Established: s.established}}) // Send copies it (snapshot.Clone)
		for _, x := range s.log {
			out.Send(from, sim.Message{Op: opProposal, Body: x}.With(argEpoch, s.epoch))
		}
	}
}

// stepFollowing: a follower logs its leader's proposals and acknowledges them,
// applies its commits, and answers its pings; it hears no one else.
func stepFollowing(s *Server, now sim.LocalTime, from sim.ProcID, m sim.Message, out *sim.Outputs) {
	if from != s.leader {
		return
	}
	if m.Op == opProposal || m.Op == opCommit {
		// A leader proposes and commits only once it is established, and has
		// then reported the changes its NEWLEADER carried as unreported: this
		// server's copy of them would only be reported again if it led.
		s.t.unreported = nil
	}
	switch m.Op {
	case opProposal:
		x := m.Body.(*txn)
		if !s.next(x.Zxid) {
			// A gap: a proposal was lost on the way. A follower never logs past
			// a gap (its last zxid would claim what it lacks); it resyncs.
			out.Observe(sim.Note(sim.NoProc, "%s missed a proposal before %s: it resyncs", s.env.Name, zxidText(x.Zxid)))
			s.becomeLooking(now, out)
			return
		}
		s.persist(x, out)
		s.logTxn(x)
		out.Send(from, sim.Message{Op: opAck}.With(ArgZxid, x.Zxid))
		s.lastHear = now.Mono
	case opCommit:
		if m.Num(ArgZxid) > s.lastLogged() {
			s.becomeLooking(now, out) // a commit for a proposal it never got: resync
			return
		}
		out.Write(sim.Message{Op: opCommit}.With(ArgZxid, m.Num(ArgZxid)))
		s.applyUpTo(now, m.Num(ArgZxid), out)
		s.lastHear = now.Mono
	case opLeaderPing:
		s.lastHear = now.Mono
		out.Send(from, sim.Message{Op: opPingAck}.With(argEpoch, s.epoch).InBackground())
	case opRevalidate:
		s.revalidated(m, out)
	}
}

// tickLeading runs every half tick, as ZooKeeper's leader loop does: the
// leader pings its followers, and on each whole tick checks that a quorum
// still answers and expires the sessions it has not heard from within their
// timeout (sessions expire on whole ticks, as in ZooKeeper's session buckets).
func tickLeading(s *Server, now sim.LocalTime, id sim.TimerID, out *sim.Outputs) {
	if id != timerTick {
		return
	}
	// A leader that no longer hears from a quorum steps down (ZooKeeper's
	// sync limit): a partitioned minority must not go on serving.
	heard := 1
	for _, p := range s.cfg.Servers {
		if p != s.env.ID && now.Mono-s.followed[p] <= s.cfg.LeaderTimeout {
			heard++
		}
	}
	if s.halves%2 == 0 && heard < s.quorum() {
		out.Observe(sim.Note(sim.NoProc, "%s hears from only %d of %d servers: it stops leading", s.env.Name, heard, len(s.cfg.Servers)))
		s.becomeLooking(now, out)
		return
	}
	for _, p := range s.cfg.Servers {
		if p != s.env.ID {
			out.Send(p, sim.Message{Op: opLeaderPing}.With(argEpoch, s.epoch).InBackground())
		}
	}
	if s.halves%2 == 0 && s.established {
		s.expireSessions(now, out)
		s.checkContainers(now, out)
	}
	out.SetTimer(timerTick, s.cfg.Tick/2)
}

// tickFollowing: a follower checks that it still hears from its leader.
func tickFollowing(s *Server, now sim.LocalTime, id sim.TimerID, out *sim.Outputs) {
	if id != timerTick {
		return
	}
	if now.Mono-s.lastHear > s.cfg.LeaderTimeout {
		out.Observe(sim.Note(sim.NoProc, "%s has not heard from leader %s for %s: it looks for a new one",
			s.env.Name, s.env.Names[s.leader], sim.FormatDuration(now.Mono-s.lastHear)))
		s.becomeLooking(now, out)
		return
	}
	out.SetTimer(timerTick, s.cfg.Tick/2)
}

// lead takes a write at the leader: it proposes it, or, until the leader is
// established, holds it back. A leader proposes nothing in an epoch a quorum
// has not acknowledged (ZooKeeper's leader serves no request before): its
// zxids would rank above every earlier epoch's in an election, although no
// quorum may ever log them.
func (s *Server) lead(now sim.LocalTime, x *txn, out *sim.Outputs) {
	if !s.established {
		s.waiting = append(s.waiting, x)
		return
	}
	if s.holdForContainer(x) {
		return
	}
	s.propose(now, x, out)
}

// propose gives a write its zxid (and a sequential node its name, a new
// session its id), logs it durably, and proposes it to the followers.
func (s *Server) propose(now sim.LocalTime, req *txn, out *sim.Outputs) {
	cp := *req // never change the message a follower sent: propose a copy
	x := &cp
	switch x.Kind {
	case txCreate:
		// The leader decides the sequential name from the parent's cversion,
		// which counts every child created under it, sequential or not
		// (ZooKeeper's PrepRequestProcessor appends "%010d" of it). The counter
		// moves on when the proposal is logged (logTxn), so no name is issued
		// twice, even for proposals not committed yet; a create that will be
		// refused, because its name is taken, leaves it where it was, and the
		// next sequential create gets the same, taken, name.
		p := s.t.node(parent(x.Path))
		if x.Sequential {
			x.Path = fmt.Sprintf("%s%010d", x.Path, p.cversion)
		}
		if !s.willExist(x.Path) && !s.willBeEphemeral(parent(x.Path)) {
			x.Cversion = p.cversion + 1
		}
	case txCreateSession:
		x.Session = s.epoch<<32 | int64(s.env.ID+1)<<24 | (s.counter + 1)
	}
	s.counter++
	x.Zxid = s.epoch<<32 | s.counter
	s.persist(x, out)
	s.logTxn(x)
	acks := make([]bool, len(s.cfg.Servers))
	acks[s.index(s.env.ID)] = true
	s.acks[x.Zxid] = acks
	for _, p := range s.cfg.Servers {
		if p != s.env.ID {
			out.Send(p, sim.Message{Op: opProposal, Body: x}.With(argEpoch, s.epoch))
		}
	}
	s.tryCommit(now, out)
}

// persist logs a proposal durably (fsync before acknowledging).
func (s *Server) persist(x *txn, out *sim.Outputs) {
	out.Write(sim.Message{Op: opProposal, Body: x})
	out.Fsync()
}

// logTxn adds a proposal to the log, in zxid order, once.
func (s *Server) logTxn(x *txn) {
	if x.Zxid <= s.t.lastZxid || slices.ContainsFunc(s.log, func(y *txn) bool { return y.Zxid == x.Zxid }) {
		return
	}
	s.t.countChild(x)
	s.log = append(s.log, x)
	slices.SortFunc(s.log, func(a, b *txn) int { return int(a.Zxid - b.Zxid) })
}

// tryCommit commits, in zxid order, every proposal a quorum has logged: the
// first that lacks a quorum holds back every later one.
func (s *Server) tryCommit(now sim.LocalTime, out *sim.Outputs) {
	for s.established && len(s.log) > 0 {
		x := s.log[0]
		n := 0
		for _, a := range s.acks[x.Zxid] {
			if a {
				n++
			}
		}
		if n < s.quorum() {
			return
		}
		delete(s.acks, x.Zxid)
		s.commit(now, x.Zxid, out)
	}
}

// commit tells the followers, records the commit, and applies up to zxid.
func (s *Server) commit(now sim.LocalTime, zxid int64, out *sim.Outputs) {
	for _, p := range s.cfg.Servers {
		if p != s.env.ID {
			out.Send(p, sim.Message{Op: opCommit}.With(ArgZxid, zxid))
		}
	}
	out.Write(sim.Message{Op: opCommit}.With(ArgZxid, zxid))
	s.applyUpTo(now, zxid, out)
}

// applyUpTo applies every logged transaction up to zxid, in order.
func (s *Server) applyUpTo(now sim.LocalTime, zxid int64, out *sim.Outputs) {
	for len(s.log) > 0 && s.log[0].Zxid <= zxid {
		x := s.log[0]
		s.log = s.log[1:]
		s.apply(now, x, out)
	}
}

// next reports whether zxid directly follows what the server has logged: the next
// counter in the same epoch, or the first of a later epoch.
func (s *Server) next(zxid int64) bool {
	last := s.lastLogged()
	if zxid>>32 == last>>32 {
		return zxid == last+1
	}
	return zxid>>32 > last>>32 && zxid&0xffffffff == 1
}

// willExist: path names a node once everything the leader has logged is
// applied, as ZooKeeper's PrepRequestProcessor sees it through its outstanding
// changes: the applied tree, then the logged creates that will succeed, the
// deletes, and the ephemeral nodes of the sessions being closed.
func (s *Server) willExist(path string) bool {
	var owner int64
	n, ok := s.t.nodes[path]
	if ok {
		owner = n.ephemeral
	}
	for _, y := range s.log {
		switch {
		case y.Kind == txCreate && y.Path == path && y.Cversion > 0:
			ok, owner = true, 0
			if y.Ephemeral {
				owner = y.Session
			}
		case y.Kind == txDelete && y.Path == path && (y.Version == -1 || y.Version == 0): // a node's version is always 0
			ok = false
		case y.Kind == txCloseSession && ok && owner != 0 && owner == y.Session:
			ok = false
		}
	}
	return ok
}

// willBeEphemeral: path names an ephemeral node once everything logged is
// applied (a create under it will be refused NOCHILDRENFOREPHEMERALS).
func (s *Server) willBeEphemeral(path string) bool {
	n := s.t.nodes[path]
	eph := n != nil && n.ephemeral != 0
	for _, y := range s.log {
		if y.Kind == txCreate && y.Path == path && y.Cversion > 0 {
			eph = y.Ephemeral
		}
	}
	return eph && s.willExist(path)
}

func (s *Server) lastLogged() int64 {
	if len(s.log) > 0 {
		return s.log[len(s.log)-1].Zxid
	}
	return s.t.lastZxid
}
