package zookeeper

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/locksim/locksim/sim"
)

// znode is one node of the data tree.
type znode struct {
	czxid, mzxid int64
	version      int64
	ephemeral    int64 // the owning session, or 0
	nextSeq      int64 // the sequential counter for children
}

// tree is the data tree with the sessions that own ephemeral nodes.
type tree struct {
	nodes    map[string]*znode
	sessions map[int64]*session
	lastZxid int64
	// lowest is each lock's lowest child and its owner: part of the replicated
	// state, so that a new leader reports grant changes from where the ensemble was.
	lowest map[string]holder
}

// holder is a lock's lowest child and the client whose session owns it.
type holder struct {
	name  string
	owner sim.ProcID
}

type session struct {
	client  sim.ProcID
	timeout int64 // ms
	closing bool
}

func newTree() *tree {
	return &tree{nodes: map[string]*znode{"/": {}}, sessions: map[int64]*session{}, lowest: map[string]holder{}}
}

func parent(path string) string {
	i := strings.LastIndexByte(path, '/')
	if i <= 0 {
		return "/"
	}
	return path[:i]
}

// children lists a node's children's names, sorted (sequence numbers sort).
func (t *tree) children(path string) []string {
	var out []string
	prefix := path + "/"
	if path == "/" {
		prefix = "/"
	}
	for p := range t.nodes {
		if p != "/" && parent(p) == path && strings.HasPrefix(p, prefix) {
			out = append(out, p[len(prefix):])
		}
	}
	// Sequence order, not name order: a protected name carries the session id
	// before the 10-digit counter, and only the counter orders the queue.
	slices.SortFunc(out, func(a, b string) int {
		if c := strings.Compare(seqOf(a), seqOf(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return out
}

// seqOf is a sequential name's 10-digit counter (the whole name if it has none).
func seqOf(name string) string {
	if len(name) >= 10 {
		return name[len(name)-10:]
	}
	return name
}

func (t *tree) sortedSessions() []int64 { return slices.Sorted(maps.Keys(t.sessions)) }

// txnKind names a transaction of the broadcast.
type txnKind uint8

const (
	txCreateSession txnKind = iota + 1
	txCloseSession
	txCreate
	txDelete
)

var txnNames = [...]string{txCreateSession: "createSession", txCloseSession: "closeSession", txCreate: "create", txDelete: "delete"}

// txn is one transaction: what the leader proposes and every server applies.
type txn struct {
	Zxid      int64
	Kind      txnKind
	Session   int64
	Client    sim.ProcID
	Timeout   int64 // ms (createSession)
	Path      string
	Ephemeral bool
	Origin    sim.ProcID // the server the client talks to, which answers it
	Req       uint64     // the client's request id
	ByOwner   bool       // a delete the node's own session asked for
	Version   int64      // delete: the version the node must have, or -1 for any
}

func zxidText(z int64) string { return fmt.Sprintf("0x%x%08x", z>>32, z&0xffffffff) }

func (x *txn) String() string {
	s := txnNames[x.Kind] + " " + zxidText(x.Zxid)
	if x.Path != "" {
		s += " " + x.Path
	}
	if x.Session != 0 {
		s += fmt.Sprintf(" session 0x%x", x.Session)
	}
	return s
}

// childList is a getChildren answer, with a text form for the log.
type childList []string

func (c childList) String() string { return "[" + strings.Join(c, " ") + "]" }

// snapshot is what a new leader sends its followers: its whole state.
type snapshot struct {
	Epoch int64
	Tree  *tree
	Log   []*txn // the leader's history not yet committed: committed once it is established
}

func (s *snapshot) String() string {
	return fmt.Sprintf("epoch %d, %d znodes, %d sessions, last zxid %s", s.Epoch, len(s.Tree.nodes)-1,
		len(s.Tree.sessions), zxidText(s.Tree.lastZxid))
}

func (t *tree) clone() *tree {
	c := &tree{nodes: map[string]*znode{}, sessions: map[int64]*session{}, lastZxid: t.lastZxid, lowest: map[string]holder{}}
	for l, h := range t.lowest {
		c.lowest[l] = h
	}
	for p, n := range t.nodes {
		nn := *n
		c.nodes[p] = &nn
	}
	for id, s := range t.sessions {
		ss := *s
		c.sessions[id] = &ss
	}
	return c
}
