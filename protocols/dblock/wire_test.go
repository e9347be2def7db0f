package dblock

import "testing"

// A statement and a row are copied whole (sim.Cloner, issue 18): a client that
// changes its statement after sending, or a database that changes a row after
// writing it, changes nothing sent or on disk.
func TestPayloadClonesShareNothing(t *testing.T) {
	s := &Stmt{Kind: StLease, Row: "L", Owner: "c1#1"}
	sc := s.Clone().(*Stmt)
	sc.Owner = "changed"
	r := &row{Grant: "c1#1", Version: 1}
	rc := r.Clone().(*row)
	rc.Version = 9
	if s.Owner != "c1#1" || r.Version != 1 {
		t.Fatal("a clone shares memory with the original")
	}
}
