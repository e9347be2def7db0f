package zookeeper

import (
	"maps"
	"slices"
	"strings"

	"github.com/locksim/locksim/sim"
)

// Lock holders: by the lock recipe, a lock is held by the owner of the lowest
// sequential child of its lock node. Every server keeps each lock's holder in
// the replicated state (tree.lowest), so that a new leader reports changes from
// where the ensemble was; the leader reports each change to the checker as a
// grant ended and a grant made, and holds its reports back until its epoch is
// established. The held reports are part of the replicated state too
// (tree.unreported): the history they describe can outlive a leader that is
// never established, in the snapshot it sent.

// holder is a lock's lowest child and the client whose session owns it.
type holder struct {
	name  string
	owner sim.ProcID
}

// holderChange is a lock whose lowest child changed.
type holderChange struct {
	lock          string // the lock node's path
	before, after holder
	token         int64 // the new lowest child's czxid
}

// updateHolders recomputes each lock's holder after a transaction and returns
// the locks whose holder changed, in path order. A lock is any node with
// children below the root, or one that had a holder.
func (t *tree) updateHolders() []holderChange {
	locks := map[string]bool{}
	for p := range t.nodes {
		if pp := parent(p); pp != "/" {
			locks[pp] = true
		}
	}
	for l, h := range t.lowest {
		if h.name != "" {
			locks[l] = true
		}
	}
	var changes []holderChange
	for _, l := range slices.Sorted(maps.Keys(locks)) {
		kids := t.children(l)
		now := ""
		if len(kids) > 0 {
			now = kids[0]
		}
		before := t.lowest[l]
		if now == before.name {
			continue
		}
		ch := holderChange{lock: l, before: before, after: holder{name: now}}
		if now != "" {
			n := t.nodes[l+"/"+now]
			ch.after.owner, ch.token = t.sessions[n.ephemeral].clientOr(), n.czxid
		}
		changes = append(changes, ch)
		t.lowest[l] = ch.after
	}
	return changes
}

// grantObservations are what the leader reports for the holder changes a
// transaction made: the old grant's end and the new grant, with the node's
// czxid as its token. A grant ends released when its owner deletes the node or
// closes its session, expired when the leader expires the session, and
// deleted, by whoever did it, otherwise (another client deleted the node, or
// a lower node took the lock).
func grantObservations(x *txn, changes []holderChange, leader sim.ProcID) []sim.Observation {
	var obs []sim.Observation
	for _, ch := range changes {
		lock := strings.TrimPrefix(ch.lock, "/")
		if b := ch.before; b.name != "" {
			reason, by := sim.ReasonDeleted, leader
			switch {
			case x.Kind == txDelete && x.Path == ch.lock+"/"+b.name:
				by = x.Client
				if by == b.owner {
					reason = sim.ReasonReleased
				}
			case x.Kind == txCloseSession && x.Client == sim.NoProc:
				reason = sim.ReasonExpired // the leader expired its session
			case x.Kind == txCloseSession:
				reason, by = sim.ReasonReleased, b.owner // its client closed its session
			}
			obs = append(obs, sim.Observation{Kind: sim.ObsGrantEnd, Service: Service, Client: b.owner, By: by,
				Lock: lock, Grant: b.name, Reason: reason, Seq: x.Zxid})
		}
		if a := ch.after; a.name != "" {
			obs = append(obs, sim.Observation{Kind: sim.ObsGrant, Service: Service, Client: a.owner,
				By: sim.NoProc, Lock: lock, Grant: a.name, Token: ch.token, HasToken: true, Seq: x.Zxid})
		}
	}
	return obs
}

// reportHolders: the leader reports the holder changes of a transaction.
func (s *Server) reportHolders(x *txn, changes []holderChange, out *sim.Outputs) {
	if s.role != leading {
		return
	}
	for _, o := range grantObservations(x, changes, s.env.ID) {
		s.report(o, out)
	}
}

// report sends a leader's observation, or holds it, in the tree, until a
// leader with this history is established.
func (s *Server) report(o sim.Observation, out *sim.Outputs) {
	if s.established {
		out.Observe(o)
		return
	}
	s.t.unreported = append(s.t.unreported, o)
}
