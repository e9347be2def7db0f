package dblock

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// Transactions and row locks, as PostgreSQL's READ COMMITTED runs them
// (PostgreSQL 15 documentation, 13.2.1 "Read Committed Isolation Level" and
// 13.3.2 "Row-Level Locks"; checked against the server by package fidelity):
//
//   - A transaction block opens with BEGIN (a FOR UPDATE statement sends its
//     own). Until it ends, its writes are its own: others read the committed
//     rows, and its INSERT, UPDATE, DELETE and upsert lock the rows they write,
//     as SELECT ... FOR UPDATE locks the rows it reads. A transaction holds
//     every row it locked until COMMIT or ROLLBACK.
//   - A statement of another session that would write or lock a locked row
//     waits for the holder's transaction, and then runs again on the row as
//     the holder left it (EvalPlanQual): its WHERE is checked on the committed
//     version, and a row the holder deleted is no longer there. A plain read
//     never waits. An UPDATE or DELETE whose WHERE does not match the row it
//     can see does not wait either.
//   - An INSERT waits for the transaction that has inserted, updated or
//     deleted the same key (the unique index's check, _bt_check_unique), then
//     fails with 23505 if that one committed a row under the key, or succeeds.
//     A row merely locked FOR UPDATE is a committed row: 23505 at once. The
//     lease upsert (INSERT ... ON CONFLICT DO UPDATE) waits for any holder, and
//     locks the row in its transaction even when its WHERE keeps it unchanged.
//   - Waiters queue per row in arrival order. The first holds the row's tuple
//     lock and waits for the holder; the others wait for the first. Each wait
//     arms lock_timeout and deadlock_timeout; a waiter that becomes the first
//     starts a new wait, with both timers armed again.
//   - When its deadlock_timeout passes, a waiter looks for a cycle of waits
//     through itself; if there is one it is the victim: "40P01 deadlock
//     detected". The graph's edges are those of granted locks (a waiter waits
//     for the holder; a later waiter for the first); PostgreSQL also weighs
//     the order of waiters in a queue ("soft" edges) and may reorder a queue
//     instead of aborting, which the model does not.
//   - An error inside a transaction block aborts it: its writes are undone and
//     its locks released at once, and every later statement but COMMIT and
//     ROLLBACK fails with 25P02 until the block ends (COMMIT of an aborted
//     block answers ROLLBACK).
//
// A client's statement that arrives while its earlier one still waits
// cancels the waiting one: the model has no connections to queue statements
// on (a client that gives up on a wait cancels it, then rolls back).

// Errors of transactions: PostgreSQL's SQLSTATEs and messages.
const (
	CodeDeadlock = "40P01"
	ErrDeadlock  = "deadlock detected"
	CodeAborted  = "25P02"
	ErrAborted   = "current transaction is aborted, commands ignored until end of transaction block"
)

// DefaultDeadlockTimeout is PostgreSQL's deadlock_timeout.
const DefaultDeadlockTimeout = time.Second

// txn is a client's transaction block.
type txn struct {
	aborted bool
	locked  []string        // the rows it locked, in order
	writes  []write         // its uncommitted writes, in order
	view    map[string]*row // the rows as it wrote them (nil: deleted)
	wait    *waiter         // its statement waiting for a row
}

// write is one uncommitted write: the row's new version (nil: deleted), and
// what to report, before and after the row is written, when it commits.
type write struct {
	name          string
	r             *row
	before, after func(out *sim.Outputs)
}

// rowLock is a row locked by a transaction (FOR UPDATE, or a write), and the
// statements waiting for it in arrival order. grant and token are set when
// FOR UPDATE took it: it is then a lock a client believes it holds.
type rowLock struct {
	holder  sim.ProcID
	grant   string
	token   int64
	fenced  bool
	waiters []*waiter
}

// waiter is a statement waiting for a row.
type waiter struct {
	client     sim.ProcID
	req        uint64
	stmt       *Stmt
	timer      sim.TimerID // lock_timeout
	deadlock   sim.TimerID // deadlock_timeout
	autocommit bool        // not in a transaction block
}

// Timer ids: lock wait timeouts count up from 1, deadlock checks from
// timerDeadlock, both below timerConns.
const timerDeadlock sim.TimerID = 1 << 39

// visible is the row as the client sees it: its own transaction's version,
// or the committed one.
func (n *Node) visible(client sim.ProcID, name string) *row {
	if t := n.txns[client]; t != nil {
		if r, ok := t.view[name]; ok {
			return r
		}
	}
	return n.rows[name]
}

// lockedByOther is the transaction of another client that holds the row
// (sim.NoProc: none), and whether it wrote the row.
func (n *Node) lockedByOther(client sim.ProcID, name string) (sim.ProcID, bool) {
	l := n.locks[name]
	if l == nil || l.holder == sim.NoProc || l.holder == client {
		return sim.NoProc, false
	}
	_, wrote := n.txns[l.holder].view[name]
	return l.holder, wrote
}

// begin opens the client's transaction block, if none is open.
func (n *Node) begin(client sim.ProcID) *txn {
	t := n.txns[client]
	if t == nil {
		t = &txn{view: map[string]*row{}}
		n.txns[client] = t
	}
	return t
}

// lockFor makes the row locked by the client's transaction (if it has one: an
// autocommit statement's lock ends with the statement).
func (n *Node) lockFor(client sim.ProcID, name string) *rowLock {
	l := n.locks[name]
	if l == nil {
		l = &rowLock{holder: sim.NoProc}
		n.locks[name] = l
	}
	if t := n.txns[client]; t != nil && l.holder != client {
		l.holder, l.grant, l.token, l.fenced = client, "", 0, false
		t.locked = append(t.locked, name)
	}
	return l
}

// writeRow writes a row's new version (nil: deletes it). In a transaction
// block the write is the transaction's until it commits, and locks the row;
// otherwise it commits at once. before and after (either may be nil) report
// what the write did, around the row's commit. A statement that takes a fence
// takes it now: a sequence is not transactional.
func (n *Node) writeRow(client sim.ProcID, name string, r *row, fence bool, before, after func(*sim.Outputs), out *sim.Outputs) int64 {
	if t := n.txns[client]; t != nil {
		n.lockFor(client, name)
		t.view[name] = r
		t.writes = append(t.writes, write{name: name, r: r, before: before, after: after})
		var tok int64
		if fence {
			tok = n.nextval(out)
			out.Fsync()
		}
		return tok
	}
	if before != nil {
		before(out)
	}
	var tok int64
	if r == nil {
		delete(n.rows, name)
		out.Write(sim.Message{Op: recDel, Key: name})
		out.Fsync()
	} else {
		tok = n.commit(name, r, fence, out)
	}
	if after != nil {
		after(out)
	}
	return tok
}

// run executes a statement that reads or writes a row; it waits when another
// transaction holds what it needs.
func (n *Node) run(now sim.LocalTime, from sim.ProcID, id uint64, s *Stmt, out *sim.Outputs) {
	reply := func(m sim.Message) { m.ID = id; out.Send(from, m) }
	r := n.visible(from, s.Row)
	holder, wrote := n.lockedByOther(from, s.Row)
	switch s.Kind {
	case StInsert:
		if holder != sim.NoProc && wrote {
			n.block(from, id, s, out)
			return
		}
		if r != nil {
			n.fail(from, CodeDuplicate, ErrDuplicate, "", reply, out)
			return
		}
		nr := &row{Owner: from, Grant: s.Owner, Version: 1}
		var tok int64
		tok = n.writeRow(from, s.Row, nr, s.Fence, nil, func(out *sim.Outputs) { n.grant(from, s.Row, s.Owner, 0, tok, s.Fence, out) }, out)
		reply(rows(OpInsert, "0 1", 1, tok, s.Fence))
	case StDelete:
		if r == nil || r.Grant != s.Owner {
			reply(rows(OpDelete, "0", 0, 0, false))
			return
		}
		if holder != sim.NoProc {
			n.block(from, id, s, out)
			return
		}
		old := r
		n.writeRow(from, s.Row, nil, false, func(out *sim.Outputs) { n.ended(s.Row, old, from, sim.ReasonReleased, "", out) }, nil, out)
		reply(rows(OpDelete, "1", 1, 0, false))
	case StLease:
		if holder != sim.NoProc {
			n.block(from, id, s, out)
			return
		}
		n.lease(now, from, s, r, reply, out)
	case StUnlease:
		if r == nil || r.Grant != s.Owner || !r.Leased {
			reply(rows(OpUpdate, "0", 0, 0, false))
			return
		}
		if holder != sim.NoProc {
			n.block(from, id, s, out)
			return
		}
		old := r
		nr := *r
		nr.Owner, nr.Grant, nr.Leased, nr.Until = sim.NoProc, "", false, 0 // owner and locked_until set to NULL
		n.writeRow(from, s.Row, &nr, false, func(out *sim.Outputs) { n.ended(s.Row, old, from, sim.ReasonReleased, "", out) }, nil, out)
		reply(rows(OpUpdate, "1", 1, 0, false))
	case StCAS:
		if r == nil || s.Compare && r.Version != s.Version {
			n.update(now, from, s, r, reply, out) // no row to change: UPDATE 0 at once
			return
		}
		if holder != sim.NoProc {
			n.block(from, id, s, out)
			return
		}
		n.update(now, from, s, r, reply, out)
	case StForUpdate:
		n.forUpdate(from, id, s, r, holder, out)
	}
}

// lease is the upsert: the row is created when missing, and taken when its
// locked_until has passed (or it is the client's own). In a transaction block
// the row stays locked even when it is not taken.
func (n *Node) lease(now sim.LocalTime, from sim.ProcID, s *Stmt, r *row, reply func(sim.Message), out *sim.Outputs) {
	t := s.Now
	if s.DBNow {
		t = now.Wall.Milliseconds() // the database's own clock
	}
	if r != nil && r.Leased && r.Until >= t && r.Grant != s.Owner {
		n.lockFor(from, s.Row)
		reply(rows(OpInsert, "0 0", 0, 0, false)) // the upsert's WHERE keeps the row as it is
		return
	}
	var expired *row
	if r == nil {
		r = &row{Owner: sim.NoProc, Version: 1}
	} else if r.Leased && r.Grant != s.Owner {
		expired = r
	}
	nr := *r
	nr.Owner, nr.Grant, nr.Leased, nr.Until, nr.DBClock = from, s.Owner, true, t+s.TTL.Milliseconds(), s.DBNow
	var before func(*sim.Outputs)
	if expired != nil {
		before = func(out *sim.Outputs) {
			// Its locked_until has passed by the clock that "now" came from: the
			// database's, or the taking client's (which then caused the expiry).
			clock := n.env.ID
			if !s.DBNow {
				clock = from
			}
			n.ended(s.Row, expired, clock, sim.ReasonExpired, "its locked_until had passed by "+n.env.Names[clock]+"'s clock", out)
		}
	}
	var tok int64
	tok = n.writeRow(from, s.Row, &nr, s.Fence, before, func(out *sim.Outputs) {
		n.grant(from, s.Row, s.Owner, s.TTL, tok, s.Fence, out)
		if s.DBNow {
			n.watchLapse(s.Row, nr.Until, out)
		}
	}, out)
	reply(rows(OpInsert, "0 1", 1, tok, s.Fence))
}

// forUpdate is SELECT ... FOR UPDATE in the client's transaction: it locks
// the row, or waits behind the transaction that holds it (and those already
// waiting) until it ends or the lock wait timeout interrupts the wait.
func (n *Node) forUpdate(from sim.ProcID, id uint64, s *Stmt, r *row, holder sim.ProcID, out *sim.Outputs) {
	if r == nil {
		// PostgreSQL answers an empty result: FOR UPDATE locked nothing.
		out.Send(from, sim.Message{Op: OpSelect, Value: "0", Opts: "(no row: nothing locked)", ID: id})
		return
	}
	w := &waiter{client: from, req: id, stmt: s}
	switch {
	case holder == sim.NoProc:
		l := n.lockFor(from, s.Row)
		tok := l.token
		switch {
		case l.grant == "":
			n.grantRow(s.Row, l, w, out)
			tok = l.token
		case s.Fence: // locked already by its own transaction: the fence's SELECT nextval runs again
			tok = n.nextval(out)
			out.Fsync()
		}
		n.answerLocked(s.Row, w, tok, out)
	case s.Wait == NoWait:
		n.fail(from, CodeLockTimeout, ErrNoWait, "", func(m sim.Message) { m.ID = id; out.Send(from, m) }, out)
	case s.Wait == SkipLocked:
		out.Send(from, sim.Message{Op: OpSelect, Value: "0", Opts: "(row " + s.Row + " skipped: locked)", ID: id})
	default:
		n.block(from, id, s, out)
	}
}

// grantRow reports the row lock FOR UPDATE took as a grant, with its fence.
func (n *Node) grantRow(name string, l *rowLock, w *waiter, out *sim.Outputs) {
	l.grant, l.fenced = w.stmt.Owner, w.stmt.Fence
	if w.stmt.Fence {
		l.token = n.nextval(out)
	}
	// The lock is on the row itself (PostgreSQL marks the tuple with the
	// transaction's id), so recovery knows which transactions held rows and
	// aborts them.
	out.Write(sim.Message{Op: recLock, Key: name, Value: l.grant}.With(argClient, int64(w.client)))
	out.Fsync()
	out.Observe(sim.Observation{Kind: sim.ObsGrant, Service: n.cfg.Service, Client: w.client, By: sim.NoProc,
		Lock: name, Grant: l.grant, Token: l.token, HasToken: w.stmt.Fence, Text: "until its transaction ends"})
}

func (n *Node) answerLocked(name string, w *waiter, tok int64, out *sim.Outputs) {
	m := rows(OpSelect, "1", 1, tok, w.stmt.Fence)
	m.ID, m.Opts = w.req, strings.TrimSpace(m.Opts+" (row "+name+" locked)")
	out.Send(w.client, m)
}

// block makes the statement wait for the row's holder, behind the statements
// already waiting.
func (n *Node) block(from sim.ProcID, id uint64, s *Stmt, out *sim.Outputs) {
	l := n.locks[s.Row]
	w := &waiter{client: from, req: id, stmt: s, autocommit: n.txns[from] == nil}
	l.waiters = append(l.waiters, w)
	if t := n.txns[from]; t != nil {
		t.wait = w
	} else {
		n.autoWaits = append(n.autoWaits, w)
	}
	n.arm(w, out)
	out.Observe(sim.Note(n.env.ID, "%s's %s blocks: %s holds row %s (%d waiting)",
		n.env.Names[from], blockedWhat(s), n.env.Names[l.holder], s.Row, len(l.waiters)))
	n.watchConns(out)
}

func blockedWhat(s *Stmt) string {
	if s.Kind == StForUpdate {
		return "SELECT ... FOR UPDATE"
	}
	return s.op()
}

// arm starts a wait's timers: lock_timeout (if set) and deadlock_timeout.
func (n *Node) arm(w *waiter, out *sim.Outputs) {
	n.disarm(w, out)
	if n.cfg.LockWaitTimeout > 0 {
		n.nextTimer++
		w.timer = n.nextTimer
		out.SetTimer(w.timer, n.cfg.LockWaitTimeout)
	}
	n.nextTimer++
	w.deadlock = timerDeadlock + n.nextTimer
	out.SetTimer(w.deadlock, n.cfg.DeadlockTimeout)
}

func (n *Node) disarm(w *waiter, out *sim.Outputs) {
	if w.timer != 0 {
		out.CancelTimer(w.timer)
		w.timer = 0
	}
	if w.deadlock != 0 {
		out.CancelTimer(w.deadlock)
		w.deadlock = 0
	}
}

// unwait takes a waiter out of its queue; the next in line, if it became the
// first, starts a new wait.
func (n *Node) unwait(w *waiter, out *sim.Outputs) {
	n.disarm(w, out)
	if t := n.txns[w.client]; t != nil && t.wait == w {
		t.wait = nil
	}
	if i := slices.Index(n.autoWaits, w); i >= 0 {
		n.autoWaits = slices.Delete(n.autoWaits, i, i+1)
	}
	l := n.locks[w.stmt.Row]
	i := slices.Index(l.waiters, w)
	if i < 0 {
		return
	}
	l.waiters = slices.Delete(l.waiters, i, i+1)
	if i == 0 && len(l.waiters) > 0 && l.holder != sim.NoProc {
		n.arm(l.waiters[0], out)
	}
}

// dropWaits cancels the client's waiting statement (rolled back, or replaced
// by the client's next statement).
func (n *Node) dropWaits(client sim.ProcID, out *sim.Outputs) {
	for _, name := range sortedLocks(n.locks) {
		for _, w := range slices.Clone(n.locks[name].waiters) {
			if w.client == client {
				n.unwait(w, out)
			}
		}
	}
}

// fail answers an error. Inside a transaction block the error aborts it: its
// writes are undone, its locks released, and it answers 25P02 until it ends.
func (n *Node) fail(client sim.ProcID, code, msg, opts string, reply func(sim.Message), out *sim.Outputs) {
	if t := n.txns[client]; t != nil && !t.aborted {
		n.rollback(client, t, sim.ReasonExpired, "its transaction was aborted by an error ("+code+")", out)
		t.aborted = true
		n.txns[client] = t
	}
	reply(sim.Message{Op: RepError, Key: code, Value: msg, Opts: opts})
}

// endTxn ends the client's transaction: COMMIT (commit), or a rollback
// (ROLLBACK, the connection was lost). A statement still waiting is dropped.
func (n *Node) endTxn(client sim.ProcID, commit bool, reason, text string, out *sim.Outputs) {
	n.dropWaits(client, out)
	t := n.txns[client]
	if t == nil {
		return
	}
	delete(n.txns, client)
	n.settleData(client, commit && !t.aborted, text, out)
	if commit && !t.aborted {
		for _, wr := range t.writes {
			if wr.before != nil {
				wr.before(out)
			}
			if wr.r == nil {
				delete(n.rows, wr.name)
				out.Write(sim.Message{Op: recDel, Key: wr.name})
			} else {
				n.rows[wr.name] = wr.r
				cp := *wr.r
				out.Write(sim.Message{Op: recRow, Key: wr.name, Body: &cp})
			}
			if wr.after != nil {
				wr.after(out)
			}
		}
		if len(t.writes) > 0 {
			out.Fsync()
		}
	}
	n.release(client, t, reason, text, out)
}

// rollback undoes an open transaction's writes and releases its locks, at an
// error (the transaction stays, aborted) or its end.
func (n *Node) rollback(client sim.ProcID, t *txn, reason, text string, out *sim.Outputs) {
	n.dropWaits(client, out)
	n.settleData(client, false, text, out)
	t.writes, t.view = nil, map[string]*row{}
	n.release(client, t, reason, text, out)
}

// release frees the transaction's row locks, in the order it took them; each
// passes to the statements waiting for it.
func (n *Node) release(client sim.ProcID, t *txn, reason, text string, out *sim.Outputs) {
	locked := t.locked
	t.locked = nil
	by := client
	if reason != sim.ReasonReleased {
		by = n.env.ID
	}
	for _, name := range locked {
		l := n.locks[name]
		if l.grant != "" {
			out.Write(sim.Message{Op: recUnlock, Key: name})
			out.Observe(sim.Observation{Kind: sim.ObsGrantEnd, Service: n.cfg.Service, Client: client, By: by,
				Lock: name, Grant: l.grant, Reason: reason, Text: text})
		}
		l.holder, l.grant, l.token, l.fenced = sim.NoProc, "", 0, false
		n.wake(name, out)
	}
}

// wake runs the statements waiting for a row that was freed, in arrival
// order, until one of them locks it; the next in line then starts a new wait.
func (n *Node) wake(name string, out *sim.Outputs) {
	l := n.locks[name]
	for l.holder == sim.NoProc && len(l.waiters) > 0 {
		w := l.waiters[0]
		n.unwait(w, out)
		n.run(n.now, w.client, w.req, w.stmt, out)
	}
	if l.holder != sim.NoProc && len(l.waiters) > 0 {
		n.arm(l.waiters[0], out) // it now holds the tuple lock and waits for the new holder
	}
}

// inTxn reports whether the client has a transaction here holding or waiting
// for a row, or a session holding advisory locks.
func (n *Node) inTxn(client sim.ProcID) bool {
	if t := n.txns[client]; t != nil && (len(t.locked) > 0 || t.wait != nil) || n.inSession(client) {
		return true
	}
	for _, w := range n.autoWaits {
		if w.client == client {
			return true
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
	for c, t := range n.txns {
		if len(t.locked) > 0 || t.wait != nil {
			clients = append(clients, c)
		}
	}
	for _, l := range n.adv {
		clients = append(clients, l.holder)
	}
	for _, w := range n.autoWaits {
		clients = append(clients, w.client)
	}
	slices.Sort(clients)
	for _, c := range slices.Compact(clients) {
		if now.Mono-n.heard[c] > n.cfg.ConnTimeout {
			out.Observe(sim.Note(n.env.ID, "%s has not heard from %s for %s: it closes the connection and rolls back its transaction",
				n.env.Name, n.env.Names[c], sim.FormatDuration(n.cfg.ConnTimeout)))
			n.dropWaits(c, out)
			n.endTxn(c, false, sim.ReasonExpired, "connection lost: its transaction was rolled back", out)
			n.endSession(c, out)
		}
	}
	n.checking = n.anyTxn() || len(n.adv) > 0
	if n.checking {
		out.SetTimer(timerConns, n.cfg.ConnTimeout/3)
	}
}

func (n *Node) anyTxn() bool {
	for _, t := range n.txns {
		if len(t.locked) > 0 || t.wait != nil {
			return true
		}
	}
	return len(n.autoWaits) > 0
}

// waitTimer handles a waiter's timer: the lock wait timeout interrupts it
// (PostgreSQL: "canceling statement due to lock timeout"; MySQL: "Lock wait
// timeout exceeded; try restarting transaction"); deadlock_timeout makes it
// look for a cycle of waits through itself.
func (n *Node) waitTimer(id sim.TimerID, out *sim.Outputs) {
	for _, name := range sortedLocks(n.locks) {
		for _, w := range n.locks[name].waiters {
			switch id {
			case w.timer:
				w.timer = 0
				n.unwait(w, out)
				out.Observe(sim.Observation{Kind: sim.ObsCounter, Client: sim.NoProc, By: sim.NoProc, Name: "lock_wait_timeouts", Value: 1})
				out.Observe(sim.Note(n.env.ID, "%s interrupts %s's wait for row %s after %s", n.env.Name, n.env.Names[w.client],
					name, sim.FormatDuration(n.cfg.LockWaitTimeout)))
				n.fail(w.client, CodeLockTimeout, ErrLockTimeout, "", func(m sim.Message) { m.ID = w.req; out.Send(w.client, m) }, out)
				return
			case w.deadlock:
				w.deadlock = 0
				if cycle := n.cycle(w); cycle != "" {
					n.unwait(w, out)
					out.Observe(sim.Observation{Kind: sim.ObsCounter, Client: sim.NoProc, By: sim.NoProc, Name: "deadlocks", Value: 1})
					out.Observe(sim.Note(n.env.ID, "%s finds a deadlock after %s's deadlock_timeout (%s): %s; it aborts %s's transaction",
						n.env.Name, n.env.Names[w.client], sim.FormatDuration(n.cfg.DeadlockTimeout), cycle, n.env.Names[w.client]))
					n.fail(w.client, CodeDeadlock, ErrDeadlock, "", func(m sim.Message) { m.ID = w.req; out.Send(w.client, m) }, out)
				}
				return
			}
		}
	}
}

// waitsFor is who a waiting client waits for: the row's holder, and the first
// waiter when it is not that one (it holds the row's tuple lock).
func (n *Node) waitsFor(client sim.ProcID) []sim.ProcID {
	var w *waiter
	if t := n.txns[client]; t != nil && t.wait != nil {
		w = t.wait
	}
	for _, a := range n.autoWaits {
		if a.client == client {
			w = a
		}
	}
	if w == nil {
		return nil
	}
	l := n.locks[w.stmt.Row]
	var out []sim.ProcID
	if l.holder != sim.NoProc {
		out = append(out, l.holder)
	}
	if len(l.waiters) > 0 && l.waiters[0] != w {
		out = append(out, l.waiters[0].client)
	}
	return out
}

// cycle is the cycle of waits from w's client back to itself, as a sentence
// ("c1 waits for c2, which waits for c1"), or "" when there is none.
func (n *Node) cycle(w *waiter) string {
	start := w.client
	seen := map[sim.ProcID]bool{}
	var path []sim.ProcID
	var dfs func(c sim.ProcID) bool
	dfs = func(c sim.ProcID) bool {
		path = append(path, c)
		for _, next := range n.waitsFor(c) {
			if next == start {
				return true
			}
			if !seen[next] {
				seen[next] = true
				if dfs(next) {
					return true
				}
			}
		}
		path = path[:len(path)-1]
		return false
	}
	if !dfs(start) {
		return ""
	}
	var names []string
	for _, c := range append(path[1:], start) {
		names = append(names, n.env.Names[c])
	}
	return n.env.Names[start] + " waits for " + strings.Join(names, ", which waits for ")
}

func sortedLocks(m map[string]*rowLock) []string { return slices.Sorted(maps.Keys(m)) }

// TimerName names the database's timers for the log.
func (n *Node) TimerName(id sim.TimerID) string {
	switch {
	case id == timerConns:
		return "connection check"
	case id > timerConns:
		return "lease lapse"
	case id > timerDeadlock:
		return "deadlock check"
	}
	return "lock wait timeout"
}
