package dblock

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/sim"
)

// Statements and their command tags, spelled as PostgreSQL spells them.
const (
	OpInsert = "INSERT"
	OpDelete = "DELETE"
	OpUpdate = "UPDATE"
	OpSelect = "SELECT"
	OpCommit = "COMMIT"
	RepError = "ERROR"
)

// Errors the database answers with.
const (
	ErrDuplicate   = "duplicate key value violates unique constraint"
	ErrLockTimeout = "canceling statement due to lock timeout"
	ErrNoRow       = "no such row"
)

type stmtKind uint8

const (
	stInsert    stmtKind = iota + 1 // INSERT the lock row (unique key)
	stDelete                        // DELETE the lock row if it is mine
	stLease                         // take the lease row if its locked_until has passed (or it is mine)
	stUnlease                       // clear my lease row's locked_until
	stForUpdate                     // BEGIN; SELECT ... FOR UPDATE: lock the row, blocking
	stCommit                        // COMMIT: release the row lock
	stRead                          // SELECT version, value
	stCAS                           // UPDATE ... SET value, version WHERE version = v
)

// stmt is one statement a client sends. It travels as a message's Body so the log
// shows it as SQL.
type stmt struct {
	Kind  stmtKind
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
}

func (s *stmt) op() string {
	switch s.Kind {
	case stInsert:
		return OpInsert
	case stDelete:
		return OpDelete
	case stLease, stUnlease, stCAS:
		return OpUpdate
	case stForUpdate, stRead:
		return OpSelect
	case stCommit:
		return OpCommit
	}
	return "?"
}

func (s *stmt) message() sim.Message { return sim.Message{Op: s.op(), Body: s} }

// String is the statement after its first word, as the log shows it.
func (s *stmt) String() string {
	ret := ""
	if s.Fence {
		ret = " RETURNING nextval('fence')"
	}
	switch s.Kind {
	case stInsert:
		return fmt.Sprintf("INTO locks (name, owner) VALUES ('%s', '%s')%s", s.Row, s.Owner, ret)
	case stDelete:
		return fmt.Sprintf("FROM locks WHERE name='%s' AND owner='%s'", s.Row, s.Owner)
	case stLease:
		now := "now()"
		if !s.DBNow {
			now = sim.FormatDuration(time.Duration(s.Now) * time.Millisecond)
		}
		return fmt.Sprintf("locks SET owner='%s', locked_until=%s+%s WHERE name='%s' AND (locked_until IS NULL OR locked_until < %s OR owner='%s')%s",
			s.Owner, now, sim.FormatDuration(s.TTL), s.Row, now, s.Owner, ret)
	case stUnlease:
		return fmt.Sprintf("locks SET owner=NULL, locked_until=NULL WHERE name='%s' AND owner='%s'", s.Row, s.Owner)
	case stForUpdate:
		return fmt.Sprintf("* FROM locks WHERE name='%s' FOR UPDATE%s", s.Row, ret)
	case stCommit:
		return ""
	case stRead:
		return fmt.Sprintf("version, value FROM locks WHERE name='%s'", s.Row)
	case stCAS:
		if !s.Compare {
			return fmt.Sprintf("locks SET value=%d, version=%d WHERE name='%s'", s.Value, s.Version+1, s.Row)
		}
		return fmt.Sprintf("locks SET value=%d, version=%d WHERE name='%s' AND version=%d", s.Value, s.Version+1, s.Row, s.Version)
	}
	return ""
}
