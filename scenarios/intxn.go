package scenarios

import (
	"strings"

	"github.com/locksim/locksim/protocols/dblock"
	"github.com/locksim/locksim/sim"
)

// A resource that lives in the lock's own database (`resource data in=db`):
// a table of the database node db, which a db-lock client with mode=for-update
// reads and writes inside the transaction that holds its lock row, and which
// takes effect with that transaction's COMMIT (protocols/dblock/data.go). It
// is no process of its own: the database reports its operations, and the
// checker is told it is a protected resource (check.Options.Resources), so
// that it decides the verdict even when nothing reached it.

// txnResource is one such resource: its name and its database node.
type txnResource struct {
	name string
	node sim.ProcID
}

// resourceInTxn reads `resource NAME in=DB`: DB must be a db node, and no
// other argument applies (the transaction guards the data: no fencing=).
func (p *parser) resourceInTxn(ln line, a *Args, pos []token) error {
	name := ln.toks[1].text
	if err := p.positional(ln, pos, 1, "resource NAME in=DB"); err != nil {
		return err
	}
	a.p, a.ln, a.self = p, ln, name
	node := a.Ref("in", "db")
	for _, k := range a.keys {
		if k.text != "in" && !a.Failed() {
			a.fail(k.col, short(k.text)+"= does not apply to a resource in a transaction: "+name+" is guarded by the transaction that holds the lock",
				"remove "+short(k.text)+"=, or declare a separate store: resource "+name+" fencing=on")
		}
	}
	if a.Failed() {
		return a.err()
	}
	for _, r := range p.s.inTxn {
		if r.node == node {
			return p.err(ln.num, 1, "database "+p.s.procs[node].name+" already holds resource "+r.name, "one resource a database: name it in every client's read and write")
		}
	}
	p.s.inTxn = append(p.s.inTxn, txnResource{name, node})
	return a.err()
}

// operatesInTxn checks a read or write of a resource in a transaction: only a
// db-lock client of that database, locking with FOR UPDATE, has a transaction
// to do it in; and marks the command for the client (dblock.OptInTxn).
func (p *parser) operatesInTxn(ln line, who token, client sim.ProcID, m *sim.Message) error {
	var res txnResource
	for _, r := range p.s.inTxn {
		if r.name == m.Key {
			res = r
		}
	}
	d := &p.s.procs[client]
	db := p.s.procs[res.node].name
	hint := "declare it client " + who.text + " db-lock server=" + db + " mode=for-update"
	switch {
	case d.kind.Name != "db-lock":
		return p.err(ln.num, who.col, m.Key+" lives in "+db+"'s transaction, and "+who.text+" is "+article(d.kind.Name)+" "+d.kind.Name+" client, with no transaction there", hint)
	case !containsWord(d.values, "server="+db):
		return p.err(ln.num, who.col, m.Key+" lives in "+db+"'s transaction, and "+who.text+"'s database is another", hint)
	case !containsWord(d.values, "mode=for-update"):
		return p.err(ln.num, who.col, m.Key+" lives in "+db+"'s transaction, and "+who.text+" holds no transaction: it does not lock with FOR UPDATE", hint)
	}
	m.Opts = strings.TrimSpace(m.Opts + " " + dblock.OptInTxn)
	return nil
}

func containsWord(ws []string, w string) bool {
	for _, x := range ws {
		if x == w {
			return true
		}
	}
	return false
}

// txnResources names the resources in a transaction by their database node,
// for the checker.
func (s *Scenario) txnResources() map[sim.ProcID]string {
	if len(s.inTxn) == 0 {
		return nil
	}
	m := map[sim.ProcID]string{}
	for _, r := range s.inTxn {
		m[r.node] = r.name
	}
	return m
}
