package zookeeper

import (
	"slices"

	"github.com/locksim/locksim/sim"
)

// watches are the one-shot watches a server keeps for the sessions connected
// to it (ZooKeeper programmer's guide, "ZooKeeper Watches"; its WatchManager):
// exists sets a data watch on a path, getChildren a child watch; a watch
// fires once, at the next change, and is gone. They are not replicated: they
// die with the server, and a client re-arms them when it reconnects.
type watches struct {
	data  map[string][]int64 // by path, the sessions told of NodeCreated and NodeDeleted
	child map[string][]int64 // by path, the sessions told of NodeChildrenChanged and NodeDeleted
}

// watchEvent is a notification due to a session.
type watchEvent struct {
	session     int64
	path, event string
}

func newWatches() watches { return watches{data: map[string][]int64{}, child: map[string][]int64{}} }

// watchData sets a data watch (exists with a watch); once per session.
func (w *watches) watchData(path string, sess int64) {
	w.data[path] = appendOnce(w.data[path], sess)
}

// watchChildren sets a child watch (getChildren with a watch); once per session.
func (w *watches) watchChildren(path string, sess int64) {
	w.child[path] = appendOnce(w.child[path], sess)
}

// created fires the watches a new node triggers: its own data watches and
// its parent's child watches.
func (w *watches) created(path string) []watchEvent {
	evs := fire(nil, w.data, path, "NodeCreated")
	return fire(evs, w.child, parent(path), "NodeChildrenChanged")
}

// deleted fires the watches a deletion triggers: the node's own, data and
// child alike, once per session; then its parent's child watches.
func (w *watches) deleted(path string) []watchEvent {
	w.child[path] = slices.DeleteFunc(w.child[path], func(id int64) bool { return slices.Contains(w.data[path], id) })
	evs := fire(nil, w.data, path, "NodeDeleted")
	evs = fire(evs, w.child, path, "NodeDeleted")
	return fire(evs, w.child, parent(path), "NodeChildrenChanged")
}

// dropSession forgets a closed session's watches.
func (w *watches) dropSession(sess int64) {
	for _, ws := range []map[string][]int64{w.data, w.child} {
		for p, ss := range ws {
			ws[p] = slices.DeleteFunc(ss, func(id int64) bool { return id == sess })
		}
	}
}

// fire removes the watches of one kind on path, which fire once, and appends
// their events to evs.
func fire(evs []watchEvent, ws map[string][]int64, path, event string) []watchEvent {
	for _, sess := range ws[path] {
		evs = append(evs, watchEvent{sess, path, event})
	}
	delete(ws, path)
	return evs
}

func appendOnce(s []int64, x int64) []int64 {
	if slices.Contains(s, x) {
		return s
	}
	return append(s, x)
}

// notify sends each event to its session's client, when the session is
// connected to this server.
func (s *Server) notify(evs []watchEvent, out *sim.Outputs) {
	for _, ev := range evs {
		if c, ok := s.clients[ev.session]; ok {
			out.Send(c, sim.Message{Op: RepWatch, Key: ev.path, Opts: ev.event})
		}
	}
}
