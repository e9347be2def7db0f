package zookeeper

import (
	"slices"
	"time"

	"github.com/locksim/locksim/sim"
)

// Sessions (ZooKeeper programmer's guide, "ZooKeeper Sessions"; its
// SessionTrackerImpl): a session's timeout is negotiated within [2, 20] ticks.
// The client pings the server it is connected to, which tells the leader
// (TOUCH). On each whole tick the leader expires every session it has not heard
// from within its timeout, by proposing closeSession, which deletes the
// session's ephemeral nodes. The client learns of the expiry only when it next
// talks to the ensemble.

// session is a client's session: part of the replicated state (the tree holds
// the sessions, and a snapshot carries them).
type session struct {
	client  sim.ProcID
	timeout int64 // ms
	closing bool  // the leader has proposed its expiry
}

// clientOr is the session's client, or NoProc for a session that is gone.
func (ss *session) clientOr() sim.ProcID {
	if ss == nil {
		return sim.NoProc
	}
	return ss.client
}

// Negotiated session timeouts lie within [2, 20] ticks, ZooKeeper's default
// minSessionTimeout and maxSessionTimeout.
const (
	minSessionTicks = 2
	maxSessionTicks = 20
)

// negotiate is the session timeout (ms) the server grants for the one asked:
// within [2, 20] ticks.
func (s *Server) negotiate(ms int64) int64 {
	d := time.Duration(ms) * time.Millisecond
	return min(max(d, minSessionTicks*s.cfg.Tick), maxSessionTicks*s.cfg.Tick).Milliseconds()
}

// sessionClock is when a server last heard from each session, on its
// monotonic clock. Every server keeps one; the leader's decides expiry, and a
// new leader restarts it for every session.
type sessionClock map[int64]time.Duration

func (c sessionClock) touch(id int64, now sim.LocalTime) { c[id] = now.Mono }

// expired lists, in id order, the sessions not already closing that have been
// silent for longer than their timeout.
func (c sessionClock) expired(now sim.LocalTime, sessions map[int64]*session) []int64 {
	var ids []int64
	for id, ss := range sessions { // every tick: sort only the few that expire
		if !ss.closing && now.Mono-c[id] > time.Duration(ss.timeout)*time.Millisecond {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	return ids
}

// touch records that a session is alive: at the leader, or forwarded to it.
func (s *Server) touch(now sim.LocalTime, sess int64, out *sim.Outputs) {
	if s.role == leading {
		s.heard.touch(sess, now)
		return
	}
	out.Send(s.leader, sim.Message{Op: opTouch}.With(ArgSession, sess).InBackground())
}

// expireSessions: the leader closes every session it has not heard from
// within its timeout (called on whole ticks).
func (s *Server) expireSessions(now sim.LocalTime, out *sim.Outputs) {
	for _, id := range s.heard.expired(now, s.t.sessions) {
		ss := s.t.sessions[id]
		ss.closing = true
		out.Observe(sim.Note(sim.NoProc, "%s expires session 0x%x of %s: not heard from for %s", s.env.Name, id,
			s.env.Names[ss.client], sim.FormatDuration(now.Mono-s.heard[id])))
		s.propose(now, &txn{Kind: txCloseSession, Session: id, Client: sim.NoProc, Origin: sim.NoProc}, out)
	}
}
