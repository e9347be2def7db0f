package dblock

import (
	"maps"
	"slices"

	"github.com/locksim/locksim/sim"
)

// forUpdate is BEGIN; SELECT ... FOR UPDATE: the client's transaction locks the
// row, or waits behind the transaction that holds it (and those already waiting)
// until it commits or the lock wait timeout interrupts the wait.
func (n *Node) forUpdate(from sim.ProcID, id uint64, s *stmt, out *sim.Outputs) {
	if _, ok := n.rows[s.Row]; !ok {
		// PostgreSQL answers an empty result: FOR UPDATE locked nothing.
		out.Send(from, sim.Message{Op: OpSelect, Value: "0 (no row: nothing locked)", ID: id})
		return
	}
	l := n.locks[s.Row]
	if l == nil {
		l = &rowLock{holder: sim.NoProc}
		n.locks[s.Row] = l
	}
	w := waiter{client: from, grant: s.Owner, req: id, fence: s.Fence}
	if l.holder == sim.NoProc {
		n.lockRow(s.Row, l, w, out)
		return
	}
	if l.holder == from {
		n.answerLocked(s.Row, w, 0, out) // its own transaction holds it already
		return
	}
	if n.cfg.LockWaitTimeout > 0 {
		n.nextTimer++
		w.timer = n.nextTimer
		out.SetTimer(w.timer, n.cfg.LockWaitTimeout)
	}
	l.waiters = append(l.waiters, w)
	out.Observe(sim.Note(n.env.ID, "%s's SELECT ... FOR UPDATE blocks: %s holds row %s (%d waiting)",
		n.env.Names[from], n.env.Names[l.holder], s.Row, len(l.waiters)))
}

func (n *Node) lockRow(name string, l *rowLock, w waiter, out *sim.Outputs) {
	l.holder, l.grant = w.client, w.grant
	n.held[w.client] = name
	// The lock is on the row itself (PostgreSQL marks the tuple with the
	// transaction's id), so recovery knows which transactions held rows and
	// aborts them.
	out.Write(sim.Message{Op: recLock, Key: name, Value: w.grant}.WithN(int64(w.client)))
	var tok int64
	if w.fence {
		n.seq++
		tok = n.seq
		out.Write(sim.Message{Op: recSeq}.WithN(n.seq))
		out.Fsync()
	}
	out.Observe(sim.Observation{Kind: sim.ObsGrant, Service: n.cfg.Service, Client: w.client, By: sim.NoProc,
		Lock: name, Grant: w.grant, Token: tok, HasToken: w.fence})
	n.answerLocked(name, w, tok, out)
}

func (n *Node) answerLocked(name string, w waiter, tok int64, out *sim.Outputs) {
	m := rows(OpSelect, "1", 1, tok, w.fence)
	m.ID, m.Value = w.req, m.Value+" (row "+name+" locked)"
	out.Send(w.client, m)
}

// release ends the client's transaction: its row lock passes to the first waiter.
func (n *Node) release(client sim.ProcID, out *sim.Outputs) {
	for _, name := range sortedLocks(n.locks) { // a wait still blocked is rolled back
		l := n.locks[name]
		for i := len(l.waiters) - 1; i >= 0; i-- {
			if w := l.waiters[i]; w.client == client {
				if w.timer != 0 {
					out.CancelTimer(w.timer)
				}
				l.waiters = append(l.waiters[:i:i], l.waiters[i+1:]...)
			}
		}
	}
	name, ok := n.held[client]
	if !ok {
		return
	}
	delete(n.held, client)
	l := n.locks[name]
	out.Write(sim.Message{Op: recUnlock, Key: name})
	out.Observe(sim.Observation{Kind: sim.ObsGrantEnd, Service: n.cfg.Service, Client: client, By: client,
		Lock: name, Grant: l.grant, Reason: sim.ReasonReleased})
	l.holder, l.grant = sim.NoProc, ""
	if len(l.waiters) == 0 {
		return
	}
	w := l.waiters[0]
	l.waiters = l.waiters[1:]
	if w.timer != 0 {
		out.CancelTimer(w.timer)
	}
	n.lockRow(name, l, w, out)
}

// lockTimeout interrupts a waiter: its statement fails and its transaction is
// rolled back (PostgreSQL: "canceling statement due to lock timeout"; MySQL:
// "Lock wait timeout exceeded; try restarting transaction").
func (n *Node) lockTimeout(id sim.TimerID, out *sim.Outputs) {
	for _, name := range sortedLocks(n.locks) {
		l := n.locks[name]
		for i, w := range l.waiters {
			if w.timer != id {
				continue
			}
			l.waiters = append(l.waiters[:i:i], l.waiters[i+1:]...)
			out.Observe(sim.Observation{Kind: sim.ObsCounter, Client: sim.NoProc, By: sim.NoProc, Name: "lock_wait_timeouts", Value: 1})
			out.Send(w.client, sim.Message{Op: RepError, Value: ErrLockTimeout, ID: w.req})
			return
		}
	}
}

func sortedLocks(m map[string]*rowLock) []string { return slices.Sorted(maps.Keys(m)) }

// TimerName names the database's timers for the log.
func (n *Node) TimerName(sim.TimerID) string { return "lock wait timeout" }
