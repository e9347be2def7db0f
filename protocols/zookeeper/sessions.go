package zookeeper

import (
	"maps"
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

// Reconnection (ZooKeeper's ZooKeeperServer.reopenSession, and on a follower
// Learner.validateSession and the leader's REVALIDATE): a client that comes
// back with its session is connected only once the leader, which keeps the
// sessions' clocks and expires them, has found the session alive (known and
// not closing) and counted it as heard from; then the session has a whole
// timeout before it can expire. A follower does not vouch for a session from
// its own copy of the tree: it may be cut off from the leader, which may be
// about to expire the session, and a client told RECONNECTED would go on
// holding its lock (Curator: RECONNECTED means the session, and with it the
// lock node, survived). The follower asks, and answers when the leader does;
// if it never does, the client's read timeout moves it on to another server.

// reconnection is a client's CONNECT with its session, waiting for the answer.
type reconnection struct {
	client sim.ProcID
	req    uint64 // the CONNECT's id, which the answer carries
}

// reconnect: the leader answers at once; a follower asks the leader.
func (s *Server) reconnect(now sim.LocalTime, r reconnection, sess int64, out *sim.Outputs) {
	if s.role == leading {
		s.reconnected(r, sess, s.revalidate(now, sess), out)
		return
	}
	if s.revalidating == nil {
		s.revalidating = map[int64]reconnection{}
	}
	s.revalidating[sess] = r // a later attempt replaces an earlier one, as in ZooKeeper
	out.Send(s.leader, sim.Message{Op: opRevalidate}.With(ArgSession, sess))
}

// revalidate is the leader's word on a reconnecting session: alive (and now
// heard from), or gone.
func (s *Server) revalidate(now sim.LocalTime, sess int64) bool {
	if ss, ok := s.t.sessions[sess]; !ok || ss.closing {
		return false
	}
	s.heard.touch(sess, now)
	return true
}

// revalidated: the leader's answer reaches the follower that asked.
func (s *Server) revalidated(m sim.Message, out *sim.Outputs) {
	sess := m.Num(ArgSession)
	r, ok := s.revalidating[sess]
	if !ok {
		return
	}
	delete(s.revalidating, sess)
	_, known := s.t.sessions[sess]
	s.reconnected(r, sess, known && m.Value != ErrSessionExpired, out)
}

// reconnected answers a reconnecting client: CONNECTED with its session's
// timeout, or SESSIONEXPIRED.
func (s *Server) reconnected(r reconnection, sess int64, alive bool, out *sim.Outputs) {
	if !alive {
		out.Send(r.client, sim.Message{Op: RepError, Value: ErrSessionExpired, ID: r.req})
		return
	}
	s.clients[sess] = r.client
	out.Send(r.client, sim.Message{Op: RepConnected, ID: r.req}.With(ArgSession, sess).With(ArgTimeout, s.t.sessions[sess].timeout))
}

// dropReconnections: a server that leaves its role drops its connections;
// the clients still waiting for their reconnection hear CONNECTIONLOSS and
// try another server (a real client sees its socket closed).
func (s *Server) dropReconnections(out *sim.Outputs) {
	for _, sess := range slices.Sorted(maps.Keys(s.revalidating)) {
		r := s.revalidating[sess]
		out.Send(r.client, sim.Message{Op: RepError, Value: ErrConnLoss, ID: r.req})
	}
	s.revalidating = nil
}
