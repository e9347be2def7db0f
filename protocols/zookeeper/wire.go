package zookeeper

import "slices"

// The payloads servers send each other and write to disk hold memory (a
// transaction behind a pointer, a tree, a list): each is a sim.Cloner, so the
// kernel gives every log, disk, delivery and the trace a copy of its own. A
// proposal the leader logs and sends is not the object in its followers' logs.

func (x *txn) Clone() any {
	c := *x
	return &c
}

func (s *snapshot) Clone() any {
	return &snapshot{Epoch: s.Epoch, Tree: s.Tree.clone(), Established: s.Established}
}

func (c childList) Clone() any { return slices.Clone(c) }
