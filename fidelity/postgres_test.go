package fidelity

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/protocols/dblock"
	"github.com/locksim/locksim/sim"
)

// PostgreSQL: the statements of the database locks (dblock.Stmt, whose SQL
// method gives what is sent to the real server): command tags, SQLSTATEs and
// messages, the FOR UPDATE queue and its order, lock_timeout (per wait),
// NOWAIT and SKIP LOCKED, transactions (writes that lock their rows, waits
// and the re-check after them, visibility, ROLLBACK, an aborted block's
// 25P02), deadlocks and 40P01, advisory locks, a killed holder's row lock, and
// the fence sequence across a crash and a clean restart. Sources: the
// PostgreSQL 15 manual (SELECT's locking clause, INSERT ... ON CONFLICT,
// 13.2.1 Read Committed, 13.3 Explicit Locking, lock_timeout and
// deadlock_timeout, sequence functions, advisory lock functions, appendix A
// error codes) and its source (sequence.c: SEQ_LOG_VALS; lmgr/README and
// deadlock.c: deadlock detection).
//
// A config names the database and its settings: "db rows=L,M
// lock-timeout=1s" (rows that exist from the start; the lock wait timeout,
// which the real server gets as its lock_timeout). Script commands, one
// dblock.Stmt each:
//
//	insert ROW OWNER [fence]                 StInsert
//	delete ROW OWNER                         StDelete
//	lease ROW OWNER TTL [at SECONDS] [fence] StLease (now(), or the client's time)
//	unlease ROW OWNER                        StUnlease
//	lock ROW [nowait|skip-locked] [fence]    StForUpdate (BEGIN; SELECT ... FOR UPDATE)
//	begin                                    StBegin
//	commit                                   StCommit
//	rollback                                 StRollback
//	read ROW                                 StRead
//	update ROW VERSION VALUE [blind]         StCAS
//	advlock ROW                              StAdvLock (pg_try_advisory_lock)
//	advunlock ROW                            StAdvUnlock (pg_advisory_unlock)
//
// An error inside a transaction block aborts it, and the script rolls it
// back itself, as a client must: nothing does it for the script.
//
// A reply reads as the command tag and the values returned ("INSERT 0 1 [3]",
// "SELECT 1 [2 5]"), or "ERROR SQLSTATE message".

func init() {
	systems = append(systems, system{name: "postgresql", cases: pgCases(), model: pgModel})
}

// pgConfig is a case's database.
type pgConfig struct {
	name        string
	rows        []string
	lockTimeout time.Duration
}

func parsePGConfig(config string) (pgConfig, error) {
	servers, err := parseConfig(config, "rows", "lock-timeout")
	if err != nil {
		return pgConfig{}, err
	}
	if len(servers) != 1 {
		return pgConfig{}, fmt.Errorf("config %q: one database, please", config)
	}
	c := pgConfig{name: servers[0].name}
	if rows := servers[0].set["rows"]; rows != "" {
		c.rows = strings.Split(rows, ",")
	}
	c.lockTimeout, err = servers[0].dur("lock-timeout", 0)
	return c, err
}

// parsePGCommand reads a script command as the statement it stands for.
func parsePGCommand(cmd string) (*dblock.Stmt, error) {
	w := strings.Fields(cmd)
	bad := fmt.Errorf("%q: not a PostgreSQL script command (see postgres_test.go)", cmd)
	if len(w) == 0 {
		return nil, bad
	}
	s := &dblock.Stmt{}
	rest := w[1:]
	flag := func(word string) bool { // takes an optional trailing word
		if len(rest) > 0 && rest[len(rest)-1] == word {
			rest = rest[:len(rest)-1]
			return true
		}
		return false
	}
	var err error
	switch w[0] {
	case "insert", "delete", "unlease":
		s.Kind = map[string]dblock.StmtKind{"insert": dblock.StInsert, "delete": dblock.StDelete, "unlease": dblock.StUnlease}[w[0]]
		s.Fence = s.Kind == dblock.StInsert && flag("fence")
		if len(rest) != 2 {
			return nil, bad
		}
		s.Row, s.Owner = rest[0], rest[1]
	case "lease":
		s.Kind, s.DBNow = dblock.StLease, true
		s.Fence = flag("fence")
		if len(rest) == 5 && rest[3] == "at" {
			var secs float64
			secs, err = strconv.ParseFloat(rest[4], 64)
			s.DBNow, s.Now, rest = false, int64(secs*1000), rest[:3]
		}
		if len(rest) != 3 {
			return nil, bad
		}
		s.Row, s.Owner = rest[0], rest[1]
		if err == nil {
			s.TTL, err = time.ParseDuration(rest[2])
		}
	case "lock":
		s.Kind = dblock.StForUpdate
		s.Fence = flag("fence")
		switch {
		case flag("nowait"):
			s.Wait = dblock.NoWait
		case flag("skip-locked"):
			s.Wait = dblock.SkipLocked
		}
		if len(rest) != 1 {
			return nil, bad
		}
		s.Row = rest[0]
	case "begin", "commit", "rollback":
		s.Kind = map[string]dblock.StmtKind{"begin": dblock.StBegin, "commit": dblock.StCommit, "rollback": dblock.StRollback}[w[0]]
		if len(rest) != 0 {
			return nil, bad
		}
	case "read", "advlock", "advunlock":
		s.Kind = map[string]dblock.StmtKind{"read": dblock.StRead, "advlock": dblock.StAdvLock, "advunlock": dblock.StAdvUnlock}[w[0]]
		if len(rest) != 1 {
			return nil, bad
		}
		s.Row = rest[0]
	case "update":
		s.Kind, s.Compare = dblock.StCAS, !flag("blind")
		if len(rest) != 3 {
			return nil, bad
		}
		s.Row = rest[0]
		if s.Version, err = strconv.ParseInt(rest[1], 10, 64); err == nil {
			s.Value, err = strconv.ParseInt(rest[2], 10, 64)
		}
	default:
		return nil, bad
	}
	if err != nil {
		return nil, fmt.Errorf("%q: %v", cmd, err)
	}
	return s, nil
}

func pgModel(c fcase, steps []step) (transcript, error) {
	cfg, err := parsePGConfig(c.config)
	if err != nil {
		return nil, err
	}
	mw := newModelWorld()
	mw.addServer(cfg.name, "db", dblock.NewNode(dblock.NodeConfig{Rows: cfg.rows, LockWaitTimeout: cfg.lockTimeout}))
	mw.newConn = func(string) conn { return &pgConn{} }
	return mw.run(steps)
}

// pgConn is a client's connection to the model database: one statement at a
// time, and a ping every second for the connection itself (the database
// rolls back the transaction of a client it stops hearing from, as a real one
// does when the connection closes).
type pgConn struct {
	reqID   uint64
	pending *dblock.Stmt
	pinging bool
}

const timerPGPing sim.TimerID = 1

func (p *pgConn) do(d *driver, _ sim.LocalTime, cmd string, out *sim.Outputs) {
	s, err := parsePGCommand(cmd)
	if err != nil {
		d.answer(out, "error: "+err.Error())
		return
	}
	if !p.pinging {
		p.pinging = true
		out.SetTimer(timerPGPing, time.Second)
	}
	p.reqID++
	p.pending = s
	m := s.Message()
	m.ID = p.reqID
	out.Send(d.server, m)
}

func (p *pgConn) step(d *driver, _ sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch {
	case in.Kind == sim.InTimer && in.Timer == timerPGPing:
		out.Send(d.server, sim.Message{Op: dblock.OpPing})
		out.SetTimer(timerPGPing, time.Second)
	case in.Kind == sim.InMessage && in.From == d.server && in.Msg.ID == p.reqID && in.Msg.Op != dblock.OpPong:
		d.answer(out, pgReply(p.pending, in.Msg))
	}
}

// pgReply is the model's answer as a client reads it: the command tag and
// the values the statement returned.
func pgReply(s *dblock.Stmt, m sim.Message) string {
	if m.Op == dblock.RepError {
		return fmt.Sprintf("ERROR %s %s", m.Key, m.Value)
	}
	tag := strings.TrimSpace(m.Op + " " + m.Value)
	switch {
	case s.Kind == dblock.StRead && m.Value == "1":
		return fmt.Sprintf("%s [%d %d]", tag, m.Num(dblock.ArgVersion), m.Num(dblock.ArgValue))
	case s.Kind == dblock.StAdvLock || s.Kind == dblock.StAdvUnlock:
		return tag + " [" + strings.Trim(m.Opts, "()") + "]"
	case s.Fence && m.Num(dblock.ArgRows) == 1:
		return fmt.Sprintf("%s [%d]", tag, m.Num(dblock.ArgFence))
	}
	return tag
}

func pgCases() []fcase {
	return []fcase{
		{name: "insert-lock", config: "db", script: `
c1> insert L c1#1
c2> insert L c2#1
c2> delete L c2#1
c1> delete L c1#1
c1> delete L c1#1
c2> insert L c2#1 fence
c1> insert M c1#1 fence
c1> insert M c1#2 fence
c1> insert N c1#3 fence`},
		{name: "lease-on-the-databases-clock", config: "db", script: `
c1> lease L c1#1 2s
c2> lease L c2#1 2s
c1> lease L c1#1 2s fence
c2> unlease L c2#1
sleep 2500ms
c2> lease L c2#1 2s fence
c1> unlease L c1#1
c2> unlease L c2#1
c1> lease L c1#1 2s
c1> read L`},
		{name: "lease-on-the-clients-clock", config: "db", script: `
c1> lease L c1#1 10s at 100
c2> lease L c2#1 10s at 105
c2> lease L c2#1 10s at 111
c1> lease L c1#1 10s at 112
c1> lease M c1#1 10s at 200 fence`},
		// Blocked FOR UPDATE statements queue in arrival order; each commit
		// hands the row to the next, and its fence is taken then.
		{name: "for-update-queue", config: "db rows=L", script: `
c1> lock L fence
c2> lock L fence
c3> lock L fence
c4> lock L fence
c1> commit
c2> commit
c3> commit
c4> commit
c1> lock M fence
c1> commit
c1> lock L
c1> lock L
c1> commit`},
		{name: "lock-timeout", config: "db rows=L lock-timeout=1s", script: `
c1> lock L
c2> lock L
sleep 1200ms
c2> lock L
c2> rollback
c1> commit
c2> lock L
c2> commit`},
		// lock_timeout counts per wait for a lock: the first waiter holds the
		// row's tuple lock and waits for the holder; the others wait for it.
		// When the row passes to c2, c3 becomes the first and starts a new
		// wait (timed out 1 s after c1's commit), while c4 goes on with its
		// first one (timed out 1 s after it asked).
		{name: "lock-timeout-per-wait", config: "db rows=L lock-timeout=1s", script: `
c1> lock L
c2> lock L
c3> lock L
c4> lock L
c1> commit
sleep 800ms
sleep 500ms
c2> commit
c3> rollback
c4> rollback`},
		{name: "nowait-and-skip-locked", config: "db rows=L", script: `
c1> lock L
c2> lock L nowait
c2> rollback
c2> lock L skip-locked
c2> lock M nowait
c1> commit
c2> lock L nowait
c2> commit
c2> lock L skip-locked
c2> commit`},
		// Issue 31, item 1: a row held FOR UPDATE blocks other sessions'
		// writes, not only their FOR UPDATE: the optimistic UPDATE and the
		// lease upsert wait for the holder's COMMIT, and then run on the row
		// as it left it. A plain INSERT of the key fails at once (the row is
		// committed), and a plain read never waits.
		{name: "for-update-blocks-writers", config: "db rows=L", script: `
c1> lock L
c2> update L 1 5
c3> lease L c3#1 2s
c4> insert L c4#1
c4> read L
c1> commit
c4> read L`},
		// Writes lock the rows they write until their transaction ends; a
		// waiting UPDATE checks its WHERE again on the committed row (READ
		// COMMITTED's re-check): the version it compared is gone, UPDATE 0;
		// the blind update goes through. Others read the committed row while
		// the writer's transaction reads its own.
		{name: "writers-wait-for-writers", config: "db rows=L", script: `
c1> begin
c1> update L 1 5
c2> update L 1 7
c3> update L 1 9 blind
c4> read L
c1> read L
c1> commit
c4> read L`},
		// Issue 31, item 2: one transaction holds every row it locked until it
		// ends, and then they are all free.
		{name: "one-transaction-many-rows", config: "db rows=L,M", script: `
c1> lock L
c1> lock M
c2> lock L nowait
c2> rollback
c2> lock M skip-locked
c1> commit
c2> lock L nowait
c2> lock M nowait
c2> commit`},
		// A DELETE and the lease's release wait for a transaction that locked
		// their row; its ROLLBACK frees both rows at once. A DELETE whose
		// WHERE does not match the row it can see answers at once.
		{name: "writes-wait-for-the-holders-end", config: "db", script: `
c1> insert L c1#1
c2> lease M c2#1 10s
c3> begin
c3> lock L
c3> lock M
c4> delete L c4#1
c1> delete L c1#1
c2> unlease M c2#1
c3> rollback
c1> read L`},
		// Issue 31, item 3: deadlock detection. c1 and c2 each wait for the
		// other's row; deadlock_timeout (1 s) after it began to wait, c1 looks
		// for a cycle, finds one and is the victim (40P01); its transaction is
		// aborted and its row passes to c2. Until it rolls back, c1's
		// statements fail with 25P02, and its COMMIT answers ROLLBACK. c3,
		// waiting behind c1 for M, is in no cycle: its check finds nothing and
		// it waits on.
		{name: "deadlock", config: "db rows=L,M", script: `
c1> lock L
c2> lock M
c1> lock M
c3> lock M
c2> lock L
sleep 1500ms
c1> read L
c1> lock L
c1> insert N c1#1
c1> advlock L
c1> begin
c1> commit
c1> commit
c2> commit
c3> commit`},
		// Three transactions in a ring: the first to have waited a second
		// finds the cycle and is the victim; the others go on.
		{name: "deadlock-three-way", config: "db rows=L,M,N", script: `
c1> lock L
c2> lock M
c3> lock N
c1> lock M
c2> lock N
c3> lock L
sleep 1500ms
c3> commit
c2> commit
c1> rollback`},
		// A deadlock between a row locked by an UPDATE and one locked by FOR
		// UPDATE: write locks count as any other.
		{name: "deadlock-with-writes", config: "db rows=L,M", script: `
c1> lock L
c2> begin
c2> update M 1 5
c1> update M 1 6
c2> lock L
sleep 1500ms
c1> rollback
c2> commit
c1> read M`},
		// Issue 31, item 4: an INSERT of a key another open transaction has
		// inserted, updated or deleted waits for that transaction: 23505 if it
		// committed a row under the key, INSERT 0 1 if it rolled its insert
		// back or committed its delete. The inserted row is invisible to
		// others meanwhile (a read and FOR UPDATE find nothing); the lease's
		// upsert waits too.
		{name: "insert-waits-for-an-open-insert", config: "db", script: `
c1> begin
c1> insert L c1#1
c2> insert L c2#1
c3> read L
c3> lock L nowait
c3> rollback
c1> commit
c1> begin
c1> insert M c1#1
c2> insert M c2#1
c1> rollback
c1> begin
c1> delete L c1#1
c2> insert L c2#2
c1> commit
c1> begin
c1> update M 1 5
c3> insert M c3#1
c1> rollback
c1> begin
c1> insert N c1#1
c2> lease N c2#1 2s
c1> commit
c3> read N`},
		// A deadlock through a queue: c3's UPDATE, waiting first for L, holds
		// L's tuple lock, and c2 waits behind it; c1, holding L, waits for
		// c2's M. c3 has waited longest: its check finds c3 -> c1 -> c2 -> c3
		// and it is the victim, though it holds no row. c2 then waits for c1
		// directly, a new wait, and c1's own check finds the cycle that is
		// left: c1 is the second victim, and c2 gets L.
		{name: "deadlock-through-the-queue", config: "db rows=L,M", script: `
c1> lock L
c2> lock M
c3> update L 1 5
c2> lock L
c1> lock M
sleep 500ms
sleep 500ms
c1> rollback
c2> commit
c3> read L`},
		// lock_timeout interrupts a waiting write too; outside a transaction
		// block the error aborts only its statement, and the next one runs.
		{name: "lock-timeout-for-writers", config: "db rows=L lock-timeout=1s", script: `
c1> lock L
c2> update L 1 5
sleep 1200ms
c2> read L
c3> begin
c3> insert M c3#1
c2> insert M c2#1
sleep 1200ms
c2> read M
c3> commit
c1> commit`},
		// NOWAIT and SKIP LOCKED meet a row another transaction has written
		// as one it has locked.
		{name: "nowait-and-skip-locked-on-written-rows", config: "db rows=L", script: `
c1> begin
c1> update L 1 5
c2> lock L nowait
c2> rollback
c2> lock L skip-locked
c2> commit
c1> commit
c2> lock L nowait
c2> commit`},
		// A statement that waited runs on the row as the holder's COMMIT left
		// it: a deleted row is gone (FOR UPDATE finds nothing, the UPDATE
		// changes nothing), an updated one is locked in its new version.
		{name: "waiters-see-the-holders-commit", config: "db", script: `
c1> insert L c1#1
c1> insert M c1#1
c2> begin
c2> delete L c1#1
c3> lock L
c4> update L 1 5 blind
c2> commit
c3> commit
c2> begin
c2> update M 1 7
c3> lock M
c2> commit
c3> read M
c3> commit`},
		// A transaction reads its own writes; others read the committed rows;
		// ROLLBACK undoes the writes. BEGIN inside a block is a warning, and
		// COMMIT or ROLLBACK outside one too: each still answers its tag. An
		// error outside a block needs no ROLLBACK.
		{name: "transaction-visibility", config: "db rows=L", script: `
c1> begin
c1> begin
c1> insert M c1#1
c1> read M
c2> read M
c1> lock M
c1> update L 1 5
c1> read L
c2> read L
c1> delete M c1#1
c1> read M
c1> insert M c1#2
c1> rollback
c1> read L
c1> read M
c2> commit
c2> rollback
c2> insert L c2#1
c2> read L`},
		// The lease's upsert in a transaction block: the row it met stays
		// locked until the block ends, taken (INSERT 0 1) or not (INSERT 0 0).
		{name: "lease-in-a-transaction", config: "db", script: `
c1> lease L c1#1 10s
c2> begin
c2> lease L c2#1 10s
c3> lock L nowait
c3> rollback
c2> commit
c2> begin
c2> lease M c2#1 10s fence
c3> lease M c3#1 10s
c2> unlease M c2#1
c2> commit
c3> read M`},
		// The sequence is not transactional: a value taken by a transaction
		// that rolls back is gone; FOR UPDATE's fence is a SELECT nextval run
		// each time the statement runs, also on a row its transaction holds.
		{name: "sequence-outside-transactions", config: "db rows=L", script: `
c1> begin
c1> insert M c1#1 fence
c1> rollback
c1> insert M c1#1 fence
c1> lock L fence
c1> lock L fence
c1> commit
c1> lock N fence
c1> commit`},
		// Session-level advisory locks: true or false at once, stacked by
		// their session, unlocked as many times, untouched by COMMIT and
		// ROLLBACK (the mistake behind db-advisory-locks-never-unlocked), and
		// gone with the session (a dropped connection: after a sleep long
		// enough for the model's connection check, see postgresql-connections).
		{name: "advisory-locks", config: "db", script: `
c1> advlock L
c2> advlock L
c1> advlock L
c1> advunlock L
c2> advlock L
c1> advunlock L
c2> advlock L
c1> advunlock L
c1> advunlock M
c2> begin
c2> advlock M
c2> rollback
c1> advlock M
c2> commit
c1> advlock L
close c2
sleep 4500ms
c1> advlock L
c1> advlock M`},
		// A crash, and a clean shutdown, roll back every open transaction: its
		// writes are gone, its row locks free; committed rows stay.
		{name: "restarts-roll-back-open-transactions", config: "db rows=L", script: `
c1> begin
c1> insert M c1#1
c1> update L 1 5
c2> insert N c2#1
crash db
restart db
c3> read M
c3> read L
c3> read N
c3> lock L nowait
c3> update L 1 6
shutdown db
restart db
c4> lock L nowait
c4> read L
c4> commit`},
		// A client killed while it holds the row: its connection closes, and a
		// real server ends its transaction at once; the model has no
		// connections, and learns of the death from the missing keepalives:
		// at its first check (every second) after 3 s without one.
		{name: "killed-holder", config: "db rows=L", script: `
c1> lock L
c2> lock L
close c1
sleep 500ms
sleep 4s
c2> commit`,
			differs: []difference{{
				real:  "close c1\n  c2: SELECT 1\nsleep 500ms\nsleep 4s\n",
				model: "close c1\nsleep 500ms\nsleep 4s\n  c2: SELECT 1\n",
				why:   "postgresql-connections",
			}}},
		// nextval logs 32 values ahead: after a crash the sequence resumes past
		// them (1, 2, then 34); a clean shutdown saves it as it is.
		{name: "sequence-across-restarts", config: "db", script: `
c1> insert A c1#1 fence
c1> insert B c1#1 fence
crash db
restart db
c1> insert C c1#1 fence
shutdown db
restart db
c1> insert D c1#1 fence`},
		{name: "optimistic-update", config: "db rows=L", script: `
c1> read L
c2> read L
c1> update L 1 5
c2> update L 1 7
c2> read L
c2> update L 2 7
c1> update L 1 9 blind
c1> read L
c1> read M
c1> update M 1 5`},
	}
}
