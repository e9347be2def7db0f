package dblock

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// NodeConfig configures the database.
type NodeConfig struct {
	// LockWaitTimeout interrupts a statement that has waited this long for a row
	// lock (MySQL's innodb_lock_wait_timeout, 50 s by default; PostgreSQL's
	// lock_timeout, where 0, its default, means wait forever).
	LockWaitTimeout time.Duration
	// Rows exist from the start (the row that FOR UPDATE locks, the counter that
	// optimistic updates change).
	Rows []string
	// DeadlockTimeout is how long a statement waits for a row lock before it
	// looks for a deadlock (PostgreSQL's deadlock_timeout, 1 s by default;
	// 0 here means that default). txn.go says how.
	DeadlockTimeout time.Duration
	// Service names the lock service in grant observations (default: the node).
	Service string
	// ConnTimeout: a client with a transaction open that has not been heard
	// from (a statement or a keepalive) for this long is taken for gone, and its
	// transaction is rolled back (default 3 s).
	ConnTimeout time.Duration
	// Peers are the other regions of a table replicated across regions
	// (regions.go): each committed optimistic update is shipped to them, and
	// conflicts are settled by last writer wins. None: one region.
	Peers []sim.ProcID
	// MaxLocks is the capacity of the shared lock table that advisory locks
	// take (advisory.go): PostgreSQL's max_locks_per_transaction *
	// (max_connections + max_prepared_transactions). 0: unlimited.
	MaxLocks int
}

// row is one row of the locks table: name (the primary key), owner, locked_until,
// version and value.
type row struct {
	Owner   sim.ProcID // the client whose row this is (NoProc: nobody's)
	Grant   string     // its owner column ("c1#1")
	Leased  bool       // locked_until is set (NULL otherwise)
	DBClock bool       // locked_until was computed by the database's now()
	Until   int64      // locked_until in ms, on the clock that wrote it
	Version int64
	Value   int64
	// Stamp and Region: the wall-clock time (ms) and the region of the write
	// that produced the row, by which last writer wins settles a conflict
	// between regions (set only when the table has Peers).
	Stamp  int64
	Region sim.ProcID
}

func (r *row) String() string {
	return fmt.Sprintf("owner=%q locked_until=%d version=%d value=%d", r.Grant, r.Until, r.Version, r.Value)
}

// Disk records: a committed row's new state, a deleted row, the sequence.
const (
	recRow = "ROW"
	recDel = "DELROW"
	recSeq = "SEQ"
	// A row lock taken and released (the transaction's end).
	recLock   = "LOCK"
	recUnlock = "UNLOCK"
)

// Node is the database. Committed rows and the sequence are durable (each commit
// is fsynced before it is answered: synchronous_commit = on); row locks and open
// transactions live in memory and die with the server.
type Node struct {
	env       sim.Env
	cfg       NodeConfig
	rows      map[string]*row
	seq       int64                        // the fence sequence's last value
	seqLogged int64                        // the value its log holds: up to 32 ahead
	locks     map[string]*rowLock          // rows locked by transactions (txn.go)
	txns      map[sim.ProcID]*txn          // open transaction blocks by client
	autoWaits []*waiter                    // waiting statements outside a transaction block
	now       sim.LocalTime                // the step's time, for statements a commit wakes
	heard     map[sim.ProcID]time.Duration // client -> when it was last heard from (mono)
	nextTimer sim.TimerID
	checking  bool              // the connection check is armed
	expired   map[string]string // lease rows whose lapse was reported: row -> grant
	lapse     map[sim.TimerID]string
	nextLapse sim.TimerID
	adv       map[string]*advLock // advisory locks by key

	// data.go: each open transaction's operations on the data in it.
	pending map[sim.ProcID][]dataOp
}

// timerConns checks the connections; lock wait timers count up from 1.
const timerConns sim.TimerID = 1 << 40

// Keepalive messages: a client with a transaction open pings; the answer says
// which life of the database answers (argIncarnation) and whether the
// transaction is still there (argOpen = 1).
const (
	OpPing = "PING"
	OpPong = "PONG"
)

// The numbers the database's messages carry (sim.Arg). Replies carry theirs
// without showing them: Opts and Value say them as psql would.
const (
	ArgRows    = sim.Num1 // a command tag's count of rows touched
	ArgFence   = sim.Num2 // the fencing sequence's value a statement took
	ArgVersion = sim.Num1 // a SELECT's row version
	ArgValue   = sim.Num2 // a SELECT's row value
	// PONG: the server's incarnation (it changes on restart) and 1 when the
	// pinging connection has a transaction open.
	argIncarnation, argOpen = sim.Num1, sim.Num2
	argSeq                  = sim.Num1 // SEQ record: the sequence's logged value
	argClient               = sim.Num1 // LOCK record: the client holding the lock
)

// NewNode returns a constructor for the database with cfg.
func NewNode(cfg NodeConfig) func(sim.Env) sim.Process {
	return func(env sim.Env) sim.Process {
		if cfg.Service == "" {
			cfg.Service = env.Name
		}
		if cfg.ConnTimeout == 0 {
			cfg.ConnTimeout = 3 * time.Second
		}
		if cfg.DeadlockTimeout == 0 {
			cfg.DeadlockTimeout = DefaultDeadlockTimeout
		}
		n := &Node{env: env, cfg: cfg, rows: map[string]*row{}, locks: map[string]*rowLock{}, txns: map[sim.ProcID]*txn{},
			heard: map[sim.ProcID]time.Duration{}, expired: map[string]string{}, lapse: map[sim.TimerID]string{}, nextLapse: timerConns,
			adv: map[string]*advLock{}}
		for _, r := range cfg.Rows {
			n.rows[r] = &row{Owner: sim.NoProc, Version: 1}
		}
		return n
	}
}

// Step handles one input.
func (n *Node) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	n.now = now
	switch in.Kind {
	case sim.InRestart:
		n.recover(in.Disk, out)
	case sim.InShutdown:
		// A clean shutdown checkpoints: the sequence is saved as it is, and
		// the next value after the restart follows on without a jump.
		if n.seqLogged > n.seq {
			out.Write(sim.Message{Op: recSeq}.With(argSeq, n.seq))
			out.Fsync()
		}
	case sim.InTimer:
		switch {
		case in.Timer == timerConns:
			n.checkConns(now, out)
		case in.Timer > timerConns:
			n.leaseLapsed(in.Timer, out)
		default:
			n.waitTimer(in.Timer, out)
		}
	case sim.InMessage:
		if in.Msg.Op == OpRepl {
			n.applyRepl(in.Msg, out)
			return
		}
		n.heard[in.From] = now.Mono
		if in.Msg.Op == OpPing {
			var open int64
			if n.inTxn(in.From) {
				open = 1
			}
			out.Send(in.From, sim.Message{Op: OpPong, ID: in.Msg.ID}.With(argIncarnation, int64(n.env.Incarnation)).With(argOpen, open).InBackground())
			return
		}
		if s, ok := in.Msg.Body.(*Stmt); ok {
			n.exec(now, in.From, in.Msg.ID, s, out)
		}
	}
}

func (n *Node) exec(now sim.LocalTime, from sim.ProcID, id uint64, s *Stmt, out *sim.Outputs) {
	reply := func(m sim.Message) { m.ID = id; out.Send(from, m) }
	n.dropWaits(from, out) // a statement still waiting is cancelled by the next (txn.go)
	t := n.txns[from]
	if t != nil && t.aborted && s.Kind != StCommit && s.Kind != StRollback {
		reply(sim.Message{Op: RepError, Key: CodeAborted, Value: ErrAborted})
		return
	}
	switch s.Kind {
	case StBegin:
		n.begin(from) // inside a block already: PostgreSQL warns, and goes on
		reply(sim.Message{Op: OpBegin})
	case StCommit:
		tag := OpCommit
		if t != nil && t.aborted {
			tag = OpRollback // COMMIT of an aborted transaction rolls it back, and says so
		}
		n.endTxn(from, true, sim.ReasonReleased, "", out)
		reply(sim.Message{Op: tag})
	case StRollback:
		n.endTxn(from, false, sim.ReasonReleased, "", out)
		reply(sim.Message{Op: OpRollback})
	case StForUpdate:
		n.begin(from)
		n.run(now, from, id, s, out)
		n.watchConns(out)
	case StAdvLock:
		n.advisoryLock(from, s, reply, out)
	case StAdvUnlock:
		n.advisoryUnlock(from, s, reply, out)
	case StRead:
		r := n.visible(from, s.Row)
		if r == nil {
			reply(sim.Message{Op: OpSelect, Value: "0", Opts: "(no row)"})
			return
		}
		reply(sim.Message{Op: OpSelect, Value: "1", Opts: fmt.Sprintf("(version %d, value %d)", r.Version, r.Value)}.Carrying(ArgVersion, r.Version).Carrying(ArgValue, r.Value))
	case StData:
		n.dataStmt(from, s, reply, out)
	default:
		n.run(now, from, id, s, out)
		if n.anyTxn() {
			n.watchConns(out)
		}
	}
}

// watchConns arms the connection check: a transaction or a session is open.
func (n *Node) watchConns(out *sim.Outputs) {
	if !n.checking {
		n.checking = true
		out.SetTimer(timerConns, n.cfg.ConnTimeout/3)
	}
}

// rows is a command tag (its word in Op, its counts in Value) carrying the
// number of rows the statement touched (ArgRows) and the sequence's value it
// took (ArgFence, shown after the tag when fenced).
func rows(tag, count string, n, token int64, fenced bool) sim.Message {
	m := sim.Message{Op: tag, Value: count}.Carrying(ArgRows, n).Carrying(ArgFence, token)
	if fenced {
		m.Opts = fmt.Sprintf("(fence %d)", token)
	}
	return m
}

// update is the optimistic UPDATE: it changes the row only if the version is
// still the one the client read (or blindly, without the comparison).
func (n *Node) update(now sim.LocalTime, from sim.ProcID, s *Stmt, r *row, reply func(sim.Message), out *sim.Outputs) {
	if r == nil {
		reply(rows(OpUpdate, "0", 0, 0, false))
		return
	}
	if s.Compare && r.Version != s.Version {
		out.Observe(sim.Observation{Kind: sim.ObsCounter, Client: sim.NoProc, By: sim.NoProc, Name: "cas_conflicts", Value: 1})
		reply(rows(OpUpdate, "0", 0, 0, false))
		return
	}
	nr := *r
	nr.Value, nr.Version = s.Value, s.Version+1 // a blind update writes the version it read, plus one
	if len(n.cfg.Peers) > 0 {
		n.stamp(now, &nr)
	}
	n.writeRow(from, s.Row, &nr, false, nil, func(out *sim.Outputs) {
		if len(n.cfg.Peers) > 0 {
			n.replicate(s.Row, &nr, from, s.Owner, out)
		}
		out.Observe(sim.Observation{Kind: sim.ObsCounter, Client: sim.NoProc, By: sim.NoProc, Name: "updates", Value: 1})
		out.Observe(sim.Observation{Kind: sim.ObsMetric, Client: sim.NoProc, By: sim.NoProc, Name: "value_" + s.Row, Value: nr.Value})
	}, out)
	reply(rows(OpUpdate, "1", 1, 0, false))
}

// commit makes a row's new state durable (and takes the sequence's next value
// in the same transaction when asked), then answers.
func (n *Node) commit(name string, r *row, fence bool, out *sim.Outputs) int64 {
	n.rows[name] = r
	cp := *r
	out.Write(sim.Message{Op: recRow, Key: name, Body: &cp})
	var tok int64
	if fence {
		tok = n.nextval(out)
	}
	out.Fsync()
	return tok
}

// seqLogAhead is how many values PostgreSQL's nextval logs ahead of the one it
// hands out (SEQ_LOG_VALS): its log says the sequence is 32 further on, so a
// crash (no checkpoint since) resumes past every value it may have handed out,
// and the sequence jumps: 1, then 34 after the crash.
const seqLogAhead = 32

// nextval takes the fence sequence's next value. When the values logged ahead
// run out it logs 32 more, committed with the statement.
func (n *Node) nextval(out *sim.Outputs) int64 {
	n.seq++
	if n.seq > n.seqLogged {
		n.seqLogged = n.seq + seqLogAhead
		out.Write(sim.Message{Op: recSeq}.With(argSeq, n.seqLogged))
	}
	return n.seq
}

func (n *Node) grant(client sim.ProcID, lock, grant string, window time.Duration, tok int64, fenced bool, out *sim.Outputs) {
	out.Observe(sim.Observation{Kind: sim.ObsStored, Client: client, By: sim.NoProc, Lock: lock, Grant: grant})
	out.Observe(sim.Observation{Kind: sim.ObsGrant, Service: n.cfg.Service, Client: client, By: sim.NoProc,
		Lock: lock, Grant: grant, Window: window, Token: tok, HasToken: fenced})
}

func (n *Node) ended(lock string, r *row, by sim.ProcID, reason, text string, out *sim.Outputs) {
	if r.Owner == sim.NoProc {
		return
	}
	if n.expired[lock] == r.Grant {
		delete(n.expired, lock)
		return // its lapse was reported when it happened
	}
	if reason == sim.ReasonReleased && by != r.Owner {
		reason = sim.ReasonDeleted
	}
	out.Observe(sim.Observation{Kind: sim.ObsRemoved, Client: r.Owner, By: by, Lock: lock, Grant: r.Grant, Reason: reason})
	out.Observe(sim.Observation{Kind: sim.ObsGrantEnd, Service: n.cfg.Service, Client: r.Owner, By: by,
		Lock: lock, Grant: r.Grant, Reason: reason, Text: text})
}

// watchLapse reports when a lease on the database's clock lapses. Nothing
// happens to the row then (the next taker finds it free); the report only tells
// the checker, which cannot read locked_until, that the lock is free.
func (n *Node) watchLapse(name string, until int64, out *sim.Outputs) {
	n.nextLapse++
	n.lapse[n.nextLapse] = name
	out.SetWallTimer(n.nextLapse, time.Duration(until+1)*time.Millisecond)
}

func (n *Node) leaseLapsed(id sim.TimerID, out *sim.Outputs) {
	name := n.lapse[id]
	delete(n.lapse, id)
	r := n.rows[name]
	if r == nil || !r.Leased || n.lapse == nil {
		return
	}
	for _, other := range n.lapse { // a later lease on the row has its own timer
		if other == name {
			return
		}
	}
	n.ended(name, r, n.env.ID, sim.ReasonExpired, "its locked_until passed by "+n.env.Name+"'s clock", out)
	n.expired[name] = r.Grant
}

// recover replays the committed rows. Row locks and open transactions are gone:
// the server rolled them back by dying.
func (n *Node) recover(disk []sim.Message, out *sim.Outputs) {
	type lockRec struct {
		client sim.ProcID
		grant  string
	}
	open := map[string]lockRec{}
	for _, rec := range disk {
		switch rec.Op {
		case recLock:
			open[rec.Key] = lockRec{sim.ProcID(rec.Num(argClient)), rec.Value}
		case recUnlock:
			delete(open, rec.Key)
		case recRow:
			r := *rec.Body.(*row)
			n.rows[rec.Key] = &r
		case recDel:
			delete(n.rows, rec.Key)
		case recSeq:
			n.seq, n.seqLogged = rec.Num(argSeq), rec.Num(argSeq)
		}
	}
	// Transactions that held a row lock when the server died never committed:
	// recovery aborts them, and their row locks end.
	for _, name := range slices.Sorted(maps.Keys(open)) {
		l := open[name]
		out.Observe(sim.Observation{Kind: sim.ObsGrantEnd, Service: n.cfg.Service, Client: l.client, By: n.env.ID,
			Lock: name, Grant: l.grant, Reason: sim.ReasonExpired, Text: "its transaction was aborted by the restart"})
		out.Write(sim.Message{Op: recUnlock, Key: name}) // aborted once: a later restart does not abort it again
	}
	if len(open) > 0 {
		out.Fsync()
	}
	for _, name := range slices.Sorted(maps.Keys(n.rows)) {
		if r := n.rows[name]; r.Owner != sim.NoProc && r.Grant != "" {
			out.Observe(sim.Observation{Kind: sim.ObsStored, Client: r.Owner, By: sim.NoProc, Lock: name, Grant: r.Grant,
				Reason: sim.ReasonRecovered})
			if r.Leased && r.DBClock {
				n.watchLapse(name, r.Until, out) // its lapse is still to be told
			}
		}
	}
	if n.env.Incarnation > 0 {
		out.Observe(sim.Note(n.env.ID, "%s recovers %d rows and aborts %d open transactions; the connections are gone",
			n.env.Name, len(n.rows), len(open)))
	}
}

// Describe is the database's state.
func (n *Node) Describe() string {
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(n.rows)) {
		r := n.rows[name]
		s := name + ":"
		if r.Grant != "" {
			s += " owner " + r.Grant
		}
		if r.Until > 0 {
			s += " until " + sim.FormatDuration(time.Duration(r.Until)*time.Millisecond)
		}
		s += fmt.Sprintf(" v%d", r.Version)
		if r.Value != 0 {
			s += fmt.Sprintf(" value %d", r.Value)
		}
		if l := n.locks[name]; l != nil && l.holder != sim.NoProc {
			s += " locked by " + n.env.Names[l.holder]
			if len(l.waiters) > 0 {
				var ws []string
				for _, w := range l.waiters {
					ws = append(ws, n.env.Names[w.client])
				}
				s += " (waiting: " + strings.Join(ws, ", ") + ")"
			}
		}
		parts = append(parts, s)
	}
	if n.seq > 0 {
		parts = append(parts, fmt.Sprintf("fence sequence at %d", n.seq))
	}
	if len(parts) == 0 {
		return "no rows"
	}
	return strings.Join(parts, "; ")
}
