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
		if p == "/" || parent(p) != "/" || len(n.kids) > 0 || n.nextSeq == 0 {
			continue
		}
		out.Observe(sim.Note(sim.NoProc, "%s deletes the empty container %s: its sequential counter (at %d) goes with it",
			s.env.Name, p, n.nextSeq))
		s.propose(now, &txn{Kind: txDelete, Path: p, Client: sim.NoProc, Origin: sim.NoProc, Version: -1}, out)
	}
}
