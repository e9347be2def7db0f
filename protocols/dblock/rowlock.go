package dblock

import (
	"maps"
	"slices"
	"strings"

	"github.com/locksim/locksim/sim"
)

// forUpdate is BEGIN; SELECT ... FOR UPDATE: the client's transaction locks the
// row, or waits behind the transaction that holds it (and those already waiting)
// until it commits or the lock wait timeout interrupts the wait.
func (n *Node) forUpdate(from sim.ProcID, id uint64, s *Stmt, out *sim.Outputs) {
	if _, ok := n.rows[s.Row]; !ok {
		// PostgreSQL answers an empty result: FOR UPDATE locked nothing.
		out.Send(from, sim.Message{Op: OpSelect, Value: "0", Opts: "(no row: nothing locked)", ID: id})
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
	switch {
	case l.holder == from:
		n.answerLocked(s.Row, w, l.token, out) // its own transaction holds it already
		return
	case s.Wait == NoWait:
		out.Send(from, sim.Message{Op: RepError, Key: CodeLockTimeout, Value: ErrNoWait, ID: id})
		return
	case s.Wait == SkipLocked:
		out.Send(from, sim.Message{Op: OpSelect, Value: "0", Opts: "(row " + s.Row + " skipped: locked)", ID: id})
		return
	}
	n.dropWaits(from, out) // a statement sent again replaces the one still waiting
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
	l.holder, l.grant, l.token = w.client, w.grant, 0
	n.held[w.client] = name
	if w.fence {
		l.token = n.nextval(out)
	}
	// The lock is on the row itself (PostgreSQL marks the tuple with the
	// transaction's id), so recovery knows which transactions held rows and
	// aborts them.
	out.Write(sim.Message{Op: recLock, Key: name, Value: w.grant}.With(argClient, int64(w.client)))
	out.Fsync()
	out.Observe(sim.Observation{Kind: sim.ObsGrant, Service: n.cfg.Service, Client: w.client, By: sim.NoProc,
		Lock: name, Grant: w.grant, Token: l.token, HasToken: w.fence, Text: "until its transaction ends"})
	n.answerLocked(name, w, l.token, out)
}

func (n *Node) answerLocked(name string, w waiter, tok int64, out *sim.Outputs) {
	m := rows(OpSelect, "1", 1, tok, w.fence)
	m.ID, m.Opts = w.req, strings.TrimSpace(m.Opts+" (row "+name+" locked)")
	out.Send(w.client, m)
}

// dropWaits removes the client's blocked statements (rolled back).
func (n *Node) dropWaits(client sim.ProcID, out *sim.Outputs) {
	for _, name := range sortedLocks(n.locks) {
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
}

// endTxn ends the client's transaction (COMMIT, or a rollback: the connection
// was lost): a statement still blocked is dropped, and its row lock passes to
// the first waiter.
func (n *Node) endTxn(client sim.ProcID, reason, text string, out *sim.Outputs) {
	n.dropWaits(client, out)
	name, ok := n.held[client]
	if !ok {
		return
	}
	n.settleData(client, reason == sim.ReasonReleased, text, out)
	delete(n.held, client)
	l := n.locks[name]
	out.Write(sim.Message{Op: recUnlock, Key: name})
	by := client
	if reason != sim.ReasonReleased {
		by = n.env.ID
	}
	out.Observe(sim.Observation{Kind: sim.ObsGrantEnd, Service: n.cfg.Service, Client: client, By: by,
		Lock: name, Grant: l.grant, Reason: reason, Text: text})
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

// inTxn reports whether the client has a transaction here: a row lock, or a
// statement waiting for one.
func (n *Node) inTxn(client sim.ProcID) bool {
	if _, ok := n.held[client]; ok || n.inSession(client) {
		return true
	}
	for _, l := range n.locks {
		for _, w := range l.waiters {
			if w.client == client {
				return true
			}
		}
	}
	return false
}

// checkConns rolls back the transactions of clients not heard from (statements
// or keepalives) for ConnTimeout: their process died, or the network or a
// frozen machine cut them off. A real server learns it from the socket (a dead
// process's OS closes it at once; TCP keepalive finds a dead host).
func (n *Node) checkConns(now sim.LocalTime, out *sim.Outputs) {
	var clients []sim.ProcID
	for c := range n.held {
		clients = append(clients, c)
	}
	for _, l := range n.adv {
		clients = append(clients, l.holder)
	}
	for _, l := range n.locks {
		for _, w := range l.waiters {
			clients = append(clients, w.client)
		}
	}
	slices.Sort(clients)
	for _, c := range slices.Compact(clients) {
		if now.Mono-n.heard[c] > n.cfg.ConnTimeout {
			out.Observe(sim.Note(n.env.ID, "%s has not heard from %s for %s: it closes the connection and rolls back its transaction",
				n.env.Name, n.env.Names[c], sim.FormatDuration(n.cfg.ConnTimeout)))
			n.endTxn(c, sim.ReasonExpired, "connection lost: its transaction was rolled back", out)
			n.endSession(c, out)
		}
	}
	n.checking = len(n.held) > 0 || n.anyWaiting() || len(n.adv) > 0
	if n.checking {
		out.SetTimer(timerConns, n.cfg.ConnTimeout/3)
	}
}

func (n *Node) anyWaiting() bool {
	for _, l := range n.locks {
		if len(l.waiters) > 0 {
			return true
		}
	}
	return false
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
			out.Observe(sim.Note(n.env.ID, "%s interrupts %s's wait for row %s after %s", n.env.Name, n.env.Names[w.client],
				name, sim.FormatDuration(n.cfg.LockWaitTimeout)))
			out.Send(w.client, sim.Message{Op: RepError, Key: CodeLockTimeout, Value: ErrLockTimeout, ID: w.req})
			return
		}
	}
}

func sortedLocks(m map[string]*rowLock) []string { return slices.Sorted(maps.Keys(m)) }

// TimerName names the database's timers for the log.
func (n *Node) TimerName(id sim.TimerID) string {
	if id == timerConns {
		return "connection check"
	}
	if id > timerConns {
		return "lease lapse"
	}
	return "lock wait timeout"
}
