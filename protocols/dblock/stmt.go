package dblock

import (
	"fmt"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// Statements and their command tags, spelled as PostgreSQL spells them.
const (
	OpInsert   = "INSERT"
	OpDelete   = "DELETE"
	OpUpdate   = "UPDATE"
	OpSelect   = "SELECT"
	OpCommit   = "COMMIT"
	OpBegin    = "BEGIN"
	OpRollback = "ROLLBACK"
	RepError   = "ERROR" // Key: the SQLSTATE, Value: PostgreSQL's message
)

// Errors the database answers with: PostgreSQL's SQLSTATE and message.
const (
	CodeDuplicate   = "23505"
	ErrDuplicate    = `duplicate key value violates unique constraint "locks_pkey"`
	CodeLockTimeout = "55P03" // lock_not_available: a lock timeout, or NOWAIT
	ErrLockTimeout  = "canceling statement due to lock timeout"
	ErrNoWait       = `could not obtain lock on row in relation "locks"`
)

// StmtKind is what a statement does.
type StmtKind uint8

const (
	StInsert    StmtKind = iota + 1 // INSERT the lock row (unique key)
	StDelete                        // DELETE the lock row if it is mine
	StLease                         // take the lease row if its locked_until has passed (or it is mine), creating it if missing
	StUnlease                       // clear my lease row's locked_until
	StForUpdate                     // BEGIN; SELECT ... FOR UPDATE: lock the row, blocking
	StCommit                        // COMMIT: release the row lock
	StRead                          // SELECT version, value
	StCAS                           // UPDATE ... SET value, version WHERE version = v
	StAdvLock                       // SELECT pg_try_advisory_lock(hashtext(row)): a session-level advisory lock
	StAdvUnlock                     // SELECT pg_advisory_unlock(hashtext(row))
	StBegin                         // BEGIN: open a transaction block (txn.go)
	StRollback                      // ROLLBACK: end it, undoing its writes
)

// FOR UPDATE's ways of meeting a row another transaction has locked.
const (
	WaitBlock  = ""            // wait for it (until the lock wait timeout)
	NoWait     = "NOWAIT"      // fail at once with lock_not_available
	SkipLocked = "SKIP LOCKED" // leave the row out: SELECT 0
)

// Stmt is one statement a client sends. It travels as a message's Body so the
// log shows it as SQL; SQL gives what a client sends a real PostgreSQL for it,
// which the fidelity suite runs.
type Stmt struct {
	Kind  StmtKind
	Row   string // the lock's row (the primary key)
	Owner string // the client's grant value ("c1#1")
	// Lease: Now is the client's clock reading (ms) when the client supplies the
	// time; DBNow says the database's now() is used instead.
	Now   int64
	DBNow bool
	TTL   time.Duration
	// CAS: the version read, and the new value.
	Version, Value int64
	// Compare: the UPDATE checks the version (optimistic); without it, a blind
	// read-modify-write.
	Compare bool
	// Fence: the statement also takes the sequence's next value, a fencing token.
	Fence bool
	// Wait: FOR UPDATE's NOWAIT or SKIP LOCKED (default: block).
	Wait string
	// StData (data.go): "read" or "write" of the data table Row, inside the
	// transaction that holds the lock row Lock.
	Data, Lock string
}

func (s *Stmt) op() string {
	switch s.Kind {
	case StInsert, StLease:
		return OpInsert
	case StDelete:
		return OpDelete
	case StUnlease, StCAS:
		return OpUpdate
	case StForUpdate, StRead, StAdvLock, StAdvUnlock:
		return OpSelect
	case StCommit:
		return OpCommit
	case StBegin:
		return OpBegin
	case StRollback:
		return OpRollback
	case StData:
		if s.Data == "write" {
			return OpUpdate
		}
		return OpSelect
	}
	return "?"
}

// Message is the statement as a message to the database.
func (s *Stmt) Message() sim.Message { return sim.Message{Op: s.op(), Body: s} }

// String is the statement after its first word, as the log shows it.
func (s *Stmt) String() string {
	_, rest, _ := strings.Cut(s.sql(), " ")
	return rest
}

// SQL is what a client sends a real PostgreSQL for the statement, one
// statement a string: FOR UPDATE opens its transaction first (a client rolls
// it back if the statement fails), and takes its fence after the row is
// locked. The table is locks (name text PRIMARY KEY, owner text, locked_until
// timestamptz, version bigint DEFAULT 1, value bigint DEFAULT 0), the
// sequence fence.
func (s *Stmt) SQL() []string {
	switch {
	case s.Kind == StForUpdate && s.Fence:
		return []string{"BEGIN", s.sql(), fmt.Sprintf("SELECT nextval('fence') FROM locks WHERE name='%s'", s.Row)}
	case s.Kind == StForUpdate:
		return []string{"BEGIN", s.sql()}
	}
	return []string{s.sql()}
}

func (s *Stmt) sql() string {
	ret := ""
	if s.Fence {
		ret = " RETURNING nextval('fence')"
	}
	switch s.Kind {
	case StInsert:
		return fmt.Sprintf("INSERT INTO locks (name, owner) VALUES ('%s', '%s')%s", s.Row, s.Owner, ret)
	case StDelete:
		return fmt.Sprintf("DELETE FROM locks WHERE name='%s' AND owner='%s'", s.Row, s.Owner)
	case StLease:
		// An upsert: the row is created when missing, and taken when its
		// lease has passed or is the client's own.
		now := "now()"
		if !s.DBNow {
			now = fmt.Sprintf("to_timestamp(%s)", strings.TrimSuffix(sim.FormatDuration(time.Duration(s.Now)*time.Millisecond), "s"))
		}
		return fmt.Sprintf("INSERT INTO locks (name, owner, locked_until) VALUES ('%s', '%s', %s + interval '%s') "+
			"ON CONFLICT (name) DO UPDATE SET owner=excluded.owner, locked_until=excluded.locked_until "+
			"WHERE locks.locked_until IS NULL OR locks.locked_until < %s OR locks.owner='%s'%s",
			s.Row, s.Owner, now, sim.FormatDuration(s.TTL), now, s.Owner, ret)
	case StUnlease:
		return fmt.Sprintf("UPDATE locks SET owner=NULL, locked_until=NULL WHERE name='%s' AND owner='%s'", s.Row, s.Owner)
	case StForUpdate:
		wait := ""
		if s.Wait != WaitBlock {
			wait = " " + s.Wait
		}
		return fmt.Sprintf("SELECT * FROM locks WHERE name='%s' FOR UPDATE%s", s.Row, wait)
	case StCommit:
		return "COMMIT"
	case StBegin:
		return "BEGIN"
	case StRollback:
		return "ROLLBACK"
	case StRead:
		return fmt.Sprintf("SELECT version, value FROM locks WHERE name='%s'", s.Row)
	case StAdvLock:
		return fmt.Sprintf("SELECT pg_try_advisory_lock(hashtext('%s'))", s.Row)
	case StAdvUnlock:
		return fmt.Sprintf("SELECT pg_advisory_unlock(hashtext('%s'))", s.Row)
	case StData:
		if s.Data == "write" {
			return fmt.Sprintf("UPDATE %s SET value=value+1, written_by='%s'", s.Row, s.Owner)
		}
		return "SELECT value, written_by FROM " + s.Row
	case StCAS:
		if !s.Compare {
			return fmt.Sprintf("UPDATE locks SET value=%d, version=%d WHERE name='%s'", s.Value, s.Version+1, s.Row)
		}
		return fmt.Sprintf("UPDATE locks SET value=%d, version=%d WHERE name='%s' AND version=%d", s.Value, s.Version+1, s.Row, s.Version)
	}
	return ""
}
