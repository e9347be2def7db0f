package dblock

import (
	"slices"
	"strings"

	"github.com/locksim/locksim/sim"
)

// Data in the lock's own transaction (a scenario's `resource data in=db`):
// the protected data is a table of the same database, and a FOR UPDATE
// client reads and writes it inside the transaction that holds the lock row.
// Its writes take effect at its COMMIT, together with the lock's release; a
// transaction that is rolled back instead (its session terminated: the
// connection check, playing PostgreSQL's idle_in_transaction_session_timeout
// for a client that stopped, or a crash) takes its writes with it, and a
// statement sent on a session that is gone fails. So a holder that wakes from
// a pause past its session cannot write: the principle etcd's
// Txn(If(IsOwner())) uses, and the one Kleppmann's fencing argument asks a
// storage service to enforce ("How to do distributed locking", 2016), with the
// database as the storage service.
//
// The database reports each operation as the protected resource would
// (sim.ObsResource): accepted at the COMMIT that made it take effect, refused
// when its transaction was rolled back or was gone when it arrived.

// StData reads or writes the protected data inside the client's transaction
// (Stmt.Data says which, and Row names the data's table). Its number stands
// apart from the lock statements' so that they may grow.
const StData StmtKind = 64

// The data statements' errors: PostgreSQL's idle_in_transaction_session_timeout
// terminates the session with 25P03 and closes the connection; a statement
// on a session with no transaction open has nothing to run in.
const (
	CodeIdleTimeout = "25P03"
	ErrIdleTimeout  = "terminating connection due to idle-in-transaction timeout"
)

// dataOp is an operation on the data waiting for its transaction's end, with
// the lock row and grant it was made under.
type dataOp struct {
	op, table, lock, grant string
}

// dataStmt runs a data statement: inside the client's transaction if it holds
// the lock row as the grant the statement names, else it fails.
func (n *Node) dataStmt(from sim.ProcID, s *Stmt, reply func(sim.Message), out *sim.Outputs) {
	if l := n.locks[s.Lock]; l == nil || l.holder != from || l.grant != s.Owner {
		out.Observe(sim.Observation{Kind: sim.ObsResource, Client: from, By: sim.NoProc, Lock: s.Lock, Grant: s.Owner,
			Op: s.Data, Accepted: false, Text: "no transaction of " + n.env.Names[from] + " under " + s.Owner + ": its session was terminated and its transaction rolled back"})
		reply(sim.Message{Op: RepError, Key: CodeIdleTimeout, Value: ErrIdleTimeout})
		return
	}
	if n.pending == nil {
		n.pending = map[sim.ProcID][]dataOp{}
	}
	n.pending[from] = append(n.pending[from], dataOp{s.Data, s.Row, s.Lock, s.Owner})
	if s.Data == "write" {
		reply(rows(OpUpdate, "1", 1, 0, false))
		return
	}
	reply(sim.Message{Op: OpSelect, Value: "1"})
}

// settleData ends the data operations of the client's transaction: they take
// effect with its COMMIT (committed), or go with its rollback.
func (n *Node) settleData(client sim.ProcID, committed bool, why string, out *sim.Outputs) {
	ops := n.pending[client]
	if len(ops) == 0 {
		return
	}
	delete(n.pending, client)
	for _, op := range ops {
		o := sim.Observation{Kind: sim.ObsResource, Client: client, By: sim.NoProc, Lock: op.lock, Grant: op.grant, Op: op.op, Accepted: committed}
		if !committed {
			o.Text = "it never took effect: " + why
		}
		out.Observe(o)
	}
}

// OptInTxn is the option word of a read or write command whose data lives in
// the lock's own database: the client sends it there, inside its transaction,
// not to a resource process.
const OptInTxn = "in-txn"

// InTransaction reports whether command m's data lives in the lock's own
// transaction (its Opts carry OptInTxn).
func InTransaction(m sim.Message) bool {
	return slices.Contains(strings.Fields(m.Opts), OptInTxn)
}

// operateInTxn sends a read or write of the data to the database, in the
// transaction that holds the lock row: under the grant the client believes it
// holds (a holder that stopped past its session still believes, and the
// database refuses it).
func (c *Client) operateInTxn(m sim.Message, out *sim.Outputs) {
	if !c.belief.Holds() || c.cfg.Mode != ModeForUpdate {
		out.Observe(sim.Note(c.env.ID, "%s holds no transaction with %s locked; its %s of %s is not sent", c.env.Name, c.lock, m.Op, m.Key))
		return
	}
	s := &Stmt{Kind: StData, Data: m.Op, Row: m.Key, Owner: c.grant, Lock: c.lock}
	out.Send(c.cfg.Server, s.Message())
}
