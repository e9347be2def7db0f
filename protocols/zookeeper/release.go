package zookeeper

import "github.com/locksim/locksim/sim"

// A release's delete, sent again until it is answered (Curator's guaranteed
// delete): a delete lost on the way would leave the node, and the lock, held
// by a live session for ever.
//
// The client deletes only its own node. ZooKeeper checks no ownership on a
// delete: any session may delete any node by its path. Curator's lock nodes
// carry a GUID in their names (protected mode), so one path names one node for
// ever and its guaranteed delete can be sent again by path. The recipe's plain
// names repeat: a container lock node that goes empty is deleted and comes
// back with its counter at 0, and lock-0000000000 is issued again. A delete
// whose answer was lost with its connection may have been committed all the
// same (a server that stops serving answers none of the writes it took, and
// a leader elected later may commit them); by the time the client sends it
// again, under the same live session, the name may be another client's node,
// and deleting it ends a live session's lock. So before each copy the client
// asks first: exists on the path, and it deletes only if the node there is the
// one it created, by its czxid, which never repeats. It asks even on the
// connection it sent the first delete on: a server that lost its quorum and
// leads again in a new epoch commits the delete it took without answering it,
// and the container can be gone and its name issued again before the next
// copy (rapid found it: TestPropertyCzxidTokensSurviveContainers, z1 cut off
// from the ensemble, not from its client).

// pendingDelete is a released lock node whose delete is not yet answered.
type pendingDelete struct {
	path  string // "" when none
	czxid int64  // the node's czxid; 0 if unknown (a protected node found by name)
	// mine: an exists has just answered with the node's czxid: one copy of
	// the delete may go out.
	mine bool
}

// startDelete: a release deletes the client's node, and keeps sending the
// delete until it is answered (unless the client makes Curator's historical
// mistake, ReleaseOnce).
func (c *Client) startDelete(path string, out *sim.Outputs) {
	if !c.cfg.ReleaseOnce {
		c.deleting = pendingDelete{path: path, czxid: c.czxid}
	}
	c.send(sim.Message{Op: OpDelete, Key: path}.With(ArgVersion, 0), OpDelete, out)
}

// resendDelete sends a released lock node's delete again once an exists has
// just shown the node is still the client's, or asks that first. ID 0 keeps
// both apart from the awaited request. A client that makes mistake 10
// (StaleDelete) takes the name for its node and never asks: it sends the
// delete by name even under a new session.
func (c *Client) resendDelete(out *sim.Outputs) {
	d := &c.deleting
	switch {
	case d.path == "":
	case d.mine || d.czxid == 0 || c.cfg.StaleDelete:
		d.mine = false // the next copy asks again
		out.Send(c.srv(), sim.Message{Op: OpDelete, Key: d.path}.With(ArgVersion, 0).With(ArgSession, c.session))
	default:
		out.Send(c.srv(), sim.Message{Op: OpExists, Key: d.path}.With(ArgSession, c.session))
	}
}

// deleteAnswered reads an answer about the released node's path: it is gone
// (deleted, or there is no node of that name), or an exists shows the node
// there. The client's own node, by its czxid, is deleted at once; a node with
// another czxid means the client's node is gone and its name is someone
// else's now: the delete is done.
func (c *Client) deleteAnswered(m sim.Message, out *sim.Outputs) {
	d := &c.deleting
	if d.path == "" || m.Key != d.path {
		return
	}
	switch {
	case m.Op == RepDeleted || m.Op == RepError && m.Value == ErrNoNode:
		*d = pendingDelete{} // the released node is gone
	case m.Op != RepStat || d.czxid == 0:
	case m.Num(ArgZxid) != d.czxid:
		out.Observe(sim.Note(c.env.ID, "%s's released node %s is gone: the name is another node's now (czxid %s, not %s); it does not delete it",
			c.env.Name, d.path, zxidText(m.Num(ArgZxid)), zxidText(d.czxid)))
		*d = pendingDelete{}
	case !d.mine:
		d.mine = true
		c.resendDelete(out)
	}
}
