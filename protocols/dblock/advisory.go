package dblock

import (
	"fmt"
	"maps"
	"slices"

	"github.com/locksim/locksim/sim"
)

// Advisory locks: PostgreSQL's session-level pg_try_advisory_lock(key) and
// pg_advisory_unlock(key). A lock belongs to the session (the client's
// connection), not to a transaction: "once acquired at session level, an
// advisory lock is held until explicitly released or the session ends", and a
// COMMIT does not release it (PostgreSQL documentation, 13.3.5 "Advisory
// Locks"). A session that locks a key it already holds stacks the lock: it
// must unlock as many times.
//
// Advisory locks live in the server's shared lock table, which "tracks locks on
// max_locks_per_transaction * (max_connections + max_prepared_transactions)
// objects; hence, no more than this many distinct objects can be locked at any
// one time" (the documentation of max_locks_per_transaction); "care must be
// taken not to exhaust this memory or the server will be unable to grant any
// locks at all" (13.3.5). NodeConfig.MaxLocks is that capacity: a lock on a new
// key when the table is full fails with ERROR 53200 "out of shared memory". The
// node reports the number of advisory locks held (the metric advisory_locks)
// and each refusal (the counter lock_table_full).
//
// The mistake that fills the table (ClientConfig.CommitRelease): a client that
// takes a session-level lock per item and "releases" it with COMMIT, as if it
// were pg_advisory_xact_lock. Its pooled session lives on, so every key it
// ever locked stays locked (nobody else can take it), and the table grows
// until no lock at all can be granted.

// Advisory statements' errors: PostgreSQL's SQLSTATE and message.
const (
	CodeOutOfMemory = "53200"
	ErrOutOfMemory  = "out of shared memory"
	HintOutOfMemory = "HINT: You might need to increase max_locks_per_transaction."
)

// advLock is an advisory lock held by a session.
type advLock struct {
	holder sim.ProcID
	grant  string
	count  int // the session's stacked locks of the key
}

// advisoryLock is pg_try_advisory_lock: true when the key is free or already
// the session's, false when another session holds it, an error when the lock
// table has no room for a new key.
func (n *Node) advisoryLock(from sim.ProcID, s *Stmt, reply func(sim.Message), out *sim.Outputs) {
	n.watchConns(out)
	l := n.adv[s.Row]
	switch {
	case l != nil && l.holder == from:
		l.count++
		reply(advReply("t", 1))
	case l != nil:
		reply(advReply("f", 0))
	case n.cfg.MaxLocks > 0 && len(n.adv) >= n.cfg.MaxLocks:
		out.Observe(sim.Observation{Kind: sim.ObsCounter, Client: sim.NoProc, By: sim.NoProc, Name: "lock_table_full", Value: 1})
		out.Observe(sim.Note(n.env.ID, "%s's lock table is full (%d locks, max-locks=%d): no lock on a new key can be granted",
			n.env.Name, len(n.adv), n.cfg.MaxLocks))
		n.fail(from, CodeOutOfMemory, ErrOutOfMemory, "("+HintOutOfMemory+")", reply, out)
	default:
		n.adv[s.Row] = &advLock{holder: from, grant: s.Owner, count: 1}
		out.Observe(sim.Observation{Kind: sim.ObsGrant, Service: n.cfg.Service, Client: from, By: sim.NoProc,
			Lock: s.Row, Grant: s.Owner, Text: "until the session unlocks it or ends"})
		n.advMetric(out)
		reply(advReply("t", 1))
	}
}

// advisoryUnlock is pg_advisory_unlock: true when the session held the key
// (the last of its stacked locks frees it), false otherwise.
func (n *Node) advisoryUnlock(from sim.ProcID, s *Stmt, reply func(sim.Message), out *sim.Outputs) {
	l := n.adv[s.Row]
	if l == nil || l.holder != from {
		reply(advReply("f", 0))
		return
	}
	if l.count--; l.count == 0 {
		n.advEnd(s.Row, l, from, sim.ReasonReleased, "", out)
	}
	reply(advReply("t", 1))
}

func (n *Node) advEnd(key string, l *advLock, by sim.ProcID, reason, text string, out *sim.Outputs) {
	delete(n.adv, key)
	out.Observe(sim.Observation{Kind: sim.ObsGrantEnd, Service: n.cfg.Service, Client: l.holder, By: by,
		Lock: key, Grant: l.grant, Reason: reason, Text: text})
	n.advMetric(out)
}

// endSession frees the advisory locks of a session that ended (its
// connection was lost).
func (n *Node) endSession(client sim.ProcID, out *sim.Outputs) {
	for _, key := range slices.Sorted(maps.Keys(n.adv)) {
		if l := n.adv[key]; l.holder == client {
			n.advEnd(key, l, n.env.ID, sim.ReasonExpired, "its session ended", out)
		}
	}
}

// inSession reports whether the client's session holds advisory locks.
func (n *Node) inSession(client sim.ProcID) bool {
	for _, l := range n.adv {
		if l.holder == client {
			return true
		}
	}
	return false
}

func (n *Node) advMetric(out *sim.Outputs) {
	out.Observe(sim.Observation{Kind: sim.ObsMetric, Client: sim.NoProc, By: sim.NoProc, Name: "advisory_locks", Value: int64(len(n.adv))})
}

// advReply is the boolean a pg_*advisory_* function returns, as one row.
func advReply(b string, n int64) sim.Message {
	return sim.Message{Op: OpSelect, Value: "1", Opts: fmt.Sprintf("(%s)", b)}.Carrying(ArgRows, n)
}
