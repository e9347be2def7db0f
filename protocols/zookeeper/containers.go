package zookeeper

import (
	"time"

	"github.com/locksim/locksim/sim"
)

// Container lock nodes (ZooKeeper 3.5+, ZOOKEEPER-2163; Curator creates lock
// parents as containers): a container node whose last child is gone becomes a
// candidate for deletion, and the leader's ContainerManager deletes the
// candidates it finds each check interval (znode.container.checkIntervalMs,
// 60 s by default). A deleted lock node comes back, at the next create under
// it, as a new node: its sequential counter starts again at 0, so the names
// lock-0000000000, lock-0000000001, ... are issued a second time. A name, or a
// token made of its suffix, is unique only within one life of its lock node;
// the czxid is unique for ever.

// While a container's delete is on its way (proposed, not yet applied), a
// create under it is held back by the leader and proposed once the delete is
// applied, under the new node. A real server answers such a create NONODE
// (the parent is being deleted) and Curator makes the parent again and
// retries; either way the create lands under the new container, and a name
// from the old counter never lands beside one from the new.

// DefaultContainerCheck is ZooKeeper's znode.container.checkIntervalMs.
const DefaultContainerCheck = 60 * time.Second

// checkContainers: on its whole ticks, once per check interval, the leader
// deletes every empty lock node that has had children (a container's cversion
// above 0; ZooKeeper keeps a never-used container).
func (s *Server) checkContainers(now sim.LocalTime, out *sim.Outputs) {
	if !s.cfg.Containers || now.Mono < s.nextContainerCheck {
		return
	}
	s.nextContainerCheck = now.Mono + s.cfg.ContainerCheck
	for _, p := range s.t.sortedPaths() {
		n := s.t.nodes[p]
		if p == "/" || parent(p) != "/" || len(n.kids) > 0 || n.cversion == 0 || s.dropping[p] {
			continue
		}
		if s.dropping == nil {
			s.dropping = map[string]bool{}
		}
		s.dropping[p] = true
		out.Observe(sim.Note(sim.NoProc, "%s deletes the empty container %s: its sequential counter (at %d) goes with it",
			s.env.Name, p, n.cversion))
		s.propose(now, &txn{Kind: txDelete, Path: p, Client: sim.NoProc, Origin: sim.NoProc, Version: -1}, out)
	}
}

// holdForContainer: a leader holds back a create under a container whose
// delete is on its way.
func (s *Server) holdForContainer(x *txn) bool {
	if x.Kind != txCreate || !s.dropping[parent(x.Path)] {
		return false
	}
	s.heldCreates = append(s.heldCreates, x)
	return true
}

// containerGone: a container's delete is applied (done, or refused because a
// create got there first); the creates held back for it go ahead.
func (s *Server) containerGone(now sim.LocalTime, path string, out *sim.Outputs) {
	if !s.dropping[path] {
		return
	}
	delete(s.dropping, path)
	var keep []*txn
	for _, x := range s.heldCreates {
		if parent(x.Path) == path && s.role == leading {
			s.propose(now, x, out)
		} else if parent(x.Path) != path {
			keep = append(keep, x)
		}
	}
	s.heldCreates = keep
}

// forgetContainers: a server that stops leading forgets the deletes it
// proposed and the creates it held back (their clients ask again).
func (s *Server) forgetContainers() { s.dropping, s.heldCreates = nil, nil }
