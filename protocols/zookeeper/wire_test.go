package zookeeper

import "testing"

// Each payload's Clone is deep (sim.Cloner, issue 18): changing a copy changes
// nothing in the original, so the kernel's copies on send, delivery and disk
// write keep every server's log and disk its own.
func TestPayloadClonesShareNothing(t *testing.T) {
	x := &txn{Zxid: 1, Kind: txCreate, Path: "/L/lock-0000000000"}
	tr := newTree()
	tr.nodes["/L"] = &znode{kids: []string{"lock-0000000000"}}
	tr.sessions[7] = &session{timeout: 4000}
	tr.lowest["/L"] = holder{name: "lock-0000000000"}
	snap := &snapshot{Epoch: 2, Tree: tr, Established: true}

	xc := x.Clone().(*txn)
	xc.Path = "changed"
	c := snap.Clone().(*snapshot)
	if !c.Established || c.Epoch != 2 {
		t.Fatal("a snapshot's clone lost a field")
	}
	c.Tree.nodes["/L"].kids[0] = "changed"
	c.Tree.sessions[7].closing = true
	c.Tree.lowest["/L"] = holder{name: "changed"}
	if x.Path != "/L/lock-0000000000" || tr.nodes["/L"].kids[0] != "lock-0000000000" || tr.sessions[7].closing ||
		tr.lowest["/L"].name != "lock-0000000000" {
		t.Fatal("a clone shares memory with the original")
	}

	kids := childList{"a", "b"}
	kc := kids.Clone().(childList)
	kc[0] = "changed"
	if kids[0] != "a" {
		t.Fatal("a child list's clone shares memory with the original")
	}
}
