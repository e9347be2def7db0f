package zookeeper

import (
	"slices"
	"strings"

	"github.com/locksim/locksim/sim"
)

// request serves a client: a server that is looking answers CONNECTIONLOSS; a
// request in a session needs the session alive and connected here. Reads are
// answered from this server's copy of the tree (watches stay here); writes go
// through the leader.
func (s *Server) request(now sim.LocalTime, from sim.ProcID, m sim.Message, out *sim.Outputs) {
	reply := func(r sim.Message) { r.ID = m.ID; out.Send(from, r) }
	if s.role == looking {
		reply(sim.Message{Op: RepError, Value: ErrConnLoss})
		return
	}
	sess := m.Num(ArgSession)
	if m.Op != OpConnect || sess != 0 {
		if _, ok := s.t.sessions[sess]; !ok {
			reply(sim.Message{Op: RepError, Value: ErrSessionExpired})
			return
		}
	}
	if m.Op != OpConnect {
		if s.clients[sess] != from {
			// This server has no connection for that session: it restarted since
			// the client connected (a real client sees its TCP connection reset).
			// The client reconnects and re-arms its watches.
			reply(sim.Message{Op: RepError, Value: ErrConnLoss})
			return
		}
		s.touch(now, sess, out)
	}
	switch m.Op {
	case OpConnect:
		if sess != 0 {
			s.reconnect(now, reconnection{client: from, req: m.ID}, sess, out)
			return
		}
		s.write(now, &txn{Kind: txCreateSession, Client: from, Timeout: s.negotiate(m.Num(ArgTimeout)), Origin: s.env.ID, Req: m.ID}, out)
	case OpPing:
		reply(sim.Message{Op: RepPong}.InBackground())
	case OpCreate:
		modes := strings.Fields(m.Opts)
		s.write(now, &txn{Kind: txCreate, Session: sess, Client: from, Path: m.Key, Ephemeral: slices.Contains(modes, "EPHEMERAL"),
			Sequential: slices.Contains(modes, "SEQUENTIAL"), Origin: s.env.ID, Req: m.ID}, out)
	case OpClose:
		s.write(now, &txn{Kind: txCloseSession, Session: sess, Client: from, Origin: s.env.ID, Req: m.ID}, out)
	case OpDelete:
		version := int64(-1) // the expected version; -1, or none, is any
		if m.Has(ArgVersion) {
			version = m.Num(ArgVersion)
		}
		s.write(now, &txn{Kind: txDelete, Session: sess, Client: from, Path: m.Key, Origin: s.env.ID, Req: m.ID,
			Version: version}, out)
	case OpGetChildren:
		out.Observe(sim.Observation{Kind: sim.ObsCounter, Client: from, By: sim.NoProc, Name: "getchildren_calls", Value: 1})
		if _, ok := s.t.nodes[m.Key]; !ok {
			// No watch either: a child watch is set only on a node that
			// exists (exists, below, sets its watch on a missing node too).
			reply(sim.Message{Op: RepError, Key: m.Key, Value: ErrNoNode})
			return
		}
		if m.Opts == "WATCH" {
			s.watches.watchChildren(m.Key, sess)
		}
		reply(sim.Message{Op: RepChildren, Key: m.Key, Body: childList(s.t.wireChildren(m.Key))})
	case OpExists:
		n, ok := s.t.nodes[m.Key]
		if m.Opts == "WATCH" {
			s.watches.watchData(m.Key, sess)
		}
		if !ok {
			reply(sim.Message{Op: RepError, Key: m.Key, Value: ErrNoNode})
			return
		}
		reply(sim.Message{Op: RepStat, Key: m.Key}.With(ArgZxid, n.czxid))
	}
}

// write sends a write to the leader, or takes it when this is the leader.
func (s *Server) write(now sim.LocalTime, x *txn, out *sim.Outputs) {
	if s.role == leading {
		s.lead(now, x, out)
		return
	}
	out.Send(s.leader, sim.Message{Op: opRequest, Body: x})
}
