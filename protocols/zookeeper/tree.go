package zookeeper

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"
	"unicode/utf16"

	"github.com/locksim/locksim/sim"
)

// znode is one node of the data tree.
type znode struct {
	czxid, mzxid int64
	version      int64
	ephemeral    int64 // the owning session, or 0
	// cversion counts the children created under the node (ZooKeeper's
	// stat.cversion, as 3.8 keeps it: a delete does not move it, nor does a
	// create refused NODEEXISTS). It is the sequential counter: a sequential
	// create gets the parent's cversion as its 10-digit suffix, so a plain
	// child counts too, and a plain child named like the next sequential one
	// makes that create fail (PrepRequestProcessor).
	cversion int64
	// kids are the children's names in the order they were added, and slots
	// the size of the table of the Java HashSet a real server keeps them in
	// (DataNode.children): together they give the order getChildren answers.
	kids  []string
	slots int
}

// tree is the data tree with the sessions that own ephemeral nodes.
type tree struct {
	nodes    map[string]*znode
	sessions map[int64]*session
	lastZxid int64
	// lowest is each lock's lowest child and its owner: part of the replicated
	// state, so that a new leader reports grant changes from where the ensemble was.
	lowest map[string]holder
	// unreported are the grant reports of holder changes in this tree's
	// history that no established leader has made yet (holders.go): a new
	// leader applies its whole log when it takes over, but reports only once
	// a quorum has acknowledged its epoch. They belong to the history, not to
	// the server: a leader that fails before it is established may already
	// have sent the history in its NEWLEADER, and the follower that took it
	// may lead with it later. lowest already counts these changes, so only
	// this list makes sure somebody reports them.
	unreported []sim.Observation
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

// node returns the znode at path, making it (and any missing parent) a
// persistent node first: the model creates a lock node implicitly, where a
// real server answers NONODE until the recipe creates it (docs/fidelity.md).
func (t *tree) node(path string) *znode {
	if n := t.nodes[path]; n != nil {
		return n
	}
	n := &znode{}
	t.nodes[path] = n
	t.link(path)
	return n
}

// link adds a new node to its parent's children, growing the parent's table
// as Java's HashSet does: 8 slots at the first child, doubled once more than
// three quarters are used, never shrunk.
func (t *tree) link(path string) {
	p := t.node(parent(path))
	p.kids = append(p.kids, path[strings.LastIndexByte(path, '/')+1:])
	if p.slots == 0 {
		p.slots = 8
	}
	if len(p.kids) > p.slots*3/4 {
		p.slots *= 2
	}
}

// create adds a znode (and its parent, if the recipe never made it).
func (t *tree) create(path string, zxid, owner int64) {
	t.node(parent(path)) // the lock node, if the recipe never made it
	t.nodes[path] = &znode{czxid: zxid, mzxid: zxid, ephemeral: owner}
	t.link(path)
}

// countChild moves a parent's cversion to what a create leaves it at, on every
// server, for logged and applied creates alike: a follower that becomes leader,
// or a leader that recovers proposals from its disk, never reuses a name. The
// leader decided the value when it proposed the create (Server.propose); a
// create it knew would be refused carries 0 and counts for nothing. Taking the
// larger value makes logging the same proposal twice harmless.
func (t *tree) countChild(x *txn) {
	if x.Kind != txCreate || x.Cversion == 0 {
		return
	}
	p := t.node(parent(x.Path))
	p.cversion = max(p.cversion, x.Cversion)
}

// drop removes a node from the tree and from its parent's children.
func (t *tree) drop(path string) {
	delete(t.nodes, path)
	if p := t.nodes[parent(path)]; p != nil {
		name := path[strings.LastIndexByte(path, '/')+1:]
		p.kids = slices.DeleteFunc(p.kids, func(k string) bool { return k == name })
	}
}

// children lists a node's children's names in the recipe's order: by their
// sequence number (a protected name carries the session id before the
// 10-digit counter, and only the counter orders the queue).
func (t *tree) children(path string) []string {
	var out []string
	if n := t.nodes[path]; n != nil {
		out = SortBySequence(slices.Clone(n.kids))
	}
	return out
}

// SortBySequence sorts sequential nodes' names by their 10-digit counter, as
// the lock recipe requires of every client: "the lowest sequence number".
func SortBySequence(names []string) []string {
	slices.SortFunc(names, func(a, b string) int {
		if c := strings.Compare(seqOf(a), seqOf(b)); c != 0 {
			return c
		}
		return strings.Compare(a, b)
	})
	return names
}

// wireChildren lists a node's children as a real server answers getChildren:
// in its HashSet's order, by bucket (the String hash, spread, modulo the table
// size) and, within a bucket, in the order they were added. That order is
// fixed but not sorted, so a client that takes the first child for the lowest
// fails here as it fails on a real server. (Java also turns a bucket of more
// than 8 names into a tree; sequential names never crowd one bucket so.)
func (t *tree) wireChildren(path string) []string {
	n := t.nodes[path]
	if n == nil {
		return nil
	}
	out := slices.Clone(n.kids)
	slices.SortStableFunc(out, func(a, b string) int { return cmp.Compare(javaBucket(a, n.slots), javaBucket(b, n.slots)) })
	return out
}

// javaBucket is the bucket Java's HashMap puts a String key in: its
// String.hashCode, spread (h ^ h>>>16), masked by the table size.
func javaBucket(s string, slots int) int32 {
	var h int32
	for _, c := range utf16.Encode([]rune(s)) {
		h = 31*h + int32(c)
	}
	h ^= int32(uint32(h) >> 16)
	return h & int32(slots-1)
}

// seqOf is a sequential name's 10-digit counter (the whole name if it has none).
func seqOf(name string) string {
	if len(name) >= 10 {
		return name[len(name)-10:]
	}
	return name
}

func (t *tree) sortedSessions() []int64 { return slices.Sorted(maps.Keys(t.sessions)) }

func (t *tree) sortedPaths() []string { return slices.Sorted(maps.Keys(t.nodes)) }

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
	Zxid       int64
	Kind       txnKind
	Session    int64
	Client     sim.ProcID
	Timeout    int64 // ms (createSession)
	Path       string
	Ephemeral  bool
	Sequential bool
	Origin     sim.ProcID // the server the client talks to, which answers it
	Req        uint64     // the client's request id
	Version    int64      // delete: the version the node must have, or -1 for any
	// Cversion (create) is the parent's cversion once this create is done,
	// decided by the leader; 0 for a create it found would be refused
	// NODEEXISTS, which leaves the counter where it was.
	Cversion int64
}

// changesNodes: the transaction creates or deletes nodes (and so may change a
// lock's holder).
func (x *txn) changesNodes() bool {
	return x.Kind == txCreate || x.Kind == txDelete || x.Kind == txCloseSession
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
	// Established: a quorum has acknowledged the leader's epoch. Until then
	// its tree is the history it was elected with, which a server that has
	// logged more must refuse (see Server.aheadOf).
	Established bool
}

func (s *snapshot) String() string {
	return fmt.Sprintf("epoch %d, %d znodes, %d sessions, last zxid %s", s.Epoch, len(s.Tree.nodes)-1,
		len(s.Tree.sessions), zxidText(s.Tree.lastZxid))
}

func (t *tree) clone() *tree {
	c := &tree{nodes: map[string]*znode{}, sessions: map[int64]*session{}, lastZxid: t.lastZxid, lowest: map[string]holder{},
		unreported: slices.Clone(t.unreported)}
	for l, h := range t.lowest {
		c.lowest[l] = h
	}
	for p, n := range t.nodes {
		nn := *n
		nn.kids = slices.Clone(n.kids)
		c.nodes[p] = &nn
	}
	for id, s := range t.sessions {
		ss := *s
		c.sessions[id] = &ss
	}
	return c
}
