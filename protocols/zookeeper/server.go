package zookeeper

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// Client requests and server replies, as the ZooKeeper API names them.
const (
	OpConnect     = "CONNECT"
	OpPing        = "PING"
	OpCreate      = "CREATE"
	OpDelete      = "DELETE"
	OpGetChildren = "GETCHILDREN"
	OpExists      = "EXISTS"
	OpClose       = "CLOSE" // closeSession: the session ends and its ephemeral nodes go

	RepConnected = "CONNECTED"
	RepPong      = "PONG"
	RepCreated   = "CREATED"
	RepDeleted   = "DELETED"
	RepChildren  = "CHILDREN"
	RepStat      = "STAT"
	RepClosed    = "CLOSED"
	RepError     = "ERROR" // Value: one of the Err names below
	RepWatch     = "WATCH" // Opts: NodeDeleted, NodeChildrenChanged, NodeCreated

	ErrSessionExpired = "SESSIONEXPIRED"
	ErrConnLoss       = "CONNECTIONLOSS"
	ErrNoNode         = "NONODE"
	ErrBadVersion     = "BADVERSION"
	ErrNodeExists     = "NODEEXISTS"
	ErrNotEmpty       = "NOTEMPTY"
	// ErrNoChildrenForEphemerals: an ephemeral node has no children.
	ErrNoChildrenForEphemerals = "NOCHILDRENFOREPHEMERALS"

	// Between servers.
	opRequest    = "REQUEST"    // a follower forwards a write to the leader
	opTouch      = "TOUCH"      // a follower tells the leader a session is alive
	opRevalidate = "REVALIDATE" // a follower asks the leader about a reconnecting session, which answers
	opProposal   = "PROPOSAL"
	opAck        = "ACK"
	opCommit     = "COMMIT"
	opLeaderPing = "LEADERPING"
	opPingAck    = "PINGACK"
	opAckLeader  = "ACKNEWLEADER"
	opVote       = "VOTE"
	opNewLeader  = "NEWLEADER"

	// Service names the ensemble's grants in observations.
	Service = "zookeeper"
)

// The numbers ZooKeeper messages carry (sim.Arg).
const (
	// ArgSession is the session a client request is made in (0 on a first
	// CONNECT), the session a CONNECTED reply grants, the session a follower's
	// TOUCH keeps alive or its REVALIDATE asks about.
	ArgSession = sim.Num1
	// ArgTimeout is the session timeout in ms: asked for by CONNECT, negotiated
	// by CONNECTED.
	ArgTimeout = sim.Num2
	// ArgVersion is a DELETE's expected version (absent, or -1: any version).
	ArgVersion = sim.Num2
	// ArgZxid is a transaction id: a created node's czxid (CREATED, STAT), what a
	// follower ACKs, what is COMMITted, the last zxid a VOTE carries.
	ArgZxid = sim.Num1
	// argEpoch is the leader's epoch on PROPOSAL, LEADERPING, PINGACK and
	// ACKNEWLEADER.
	argEpoch = sim.Num1
)

// ServerConfig configures a server.
type ServerConfig struct {
	Servers []sim.ProcID // the ensemble, in id order; the first leads at start
	// Tick is ZooKeeper's tickTime (default 2 s, its own): the leader pings its
	// followers every half tick and expires sessions on whole ticks, and a
	// session's timeout is negotiated into [2, 20] ticks.
	Tick time.Duration
	// LeaderTimeout: a follower that hears nothing from its leader this long
	// looks for a new one, and a leader that hears from no quorum this long
	// stops leading (default 5 ticks: ZooKeeper's syncLimit of 5).
	LeaderTimeout time.Duration
	ElectionTime  time.Duration // how long an election takes (200 ms)
	// Containers makes every lock node a container (containers.go): the
	// leader deletes an empty one every ContainerCheck (default 60 s), and its
	// sequential counter restarts. Off, lock nodes are persistent.
	Containers     bool
	ContainerCheck time.Duration
}

// role is a server's role in the ensemble (ZooKeeper's ServerState).
type role uint8

const (
	looking role = iota
	following
	leading
)

var roleNames = [...]string{"looking", "following", "leading"}

const (
	timerTick sim.TimerID = iota + 1 // every half tick
	timerElection
)

// DefaultTick is ZooKeeper's default tickTime, and syncLimit the ticks a
// follower may fall silent (both as in its sample configuration, zoo.cfg).
const (
	DefaultTick = 2 * time.Second
	syncLimit   = 5
)

// Server is one ZooKeeper server. Its parts, each in its own file: the atomic
// broadcast (zab.go) and elections (election.go), with a step and a tick
// function per role that the become* transitions swap; sessions
// (sessions.go); watches (watches.go); the lock holders the leader reports
// (holders.go); the client requests it serves (requests.go); and the
// replicated data tree (tree.go). This file holds the process itself and the
// state machine the broadcast drives (apply).
type Server struct {
	env  sim.Env
	cfg  ServerConfig
	role role
	step stepFunc // stepLooking, stepFollowing, stepLeading
	tick tickFunc // tickLooking, tickFollowing, tickLeading
	t    *tree
	// recovering: the disk is being replayed after a restart (no replies, no connections)
	recovering bool
	halves     int64 // half ticks since the server started: sessions expire on whole ticks

	// the atomic broadcast
	leader   sim.ProcID
	epoch    int64
	counter  int64
	log      []*txn                       // logged proposals not yet applied, in zxid order
	acks     map[int64][]bool             // leader: per pending zxid, which servers have it
	lastHear time.Duration                // follower: when it last heard from the leader (mono)
	followed map[sim.ProcID]time.Duration // leader: when each follower last answered

	// elections, and Zab's epochs: a follower acknowledges one leader per
	// epoch; a new leader is established once a quorum has acknowledged its
	// epoch, and commits and reports nothing before.
	votes       map[sim.ProcID]int64 // each voter's last zxid
	accepted    int64                // the highest epoch this server acknowledged
	ackedLeader sim.ProcID           // whom it acknowledged for that epoch (NoProc: itself)
	established bool
	ackedBy     map[sim.ProcID]bool
	waiting     []*txn // the writes a leader holds back until it is established

	nextContainerCheck time.Duration   // leader: when it next looks for empty containers (mono)
	dropping           map[string]bool // leader: containers whose delete is on its way
	heldCreates        []*txn          // leader: creates under them, held back

	heard        sessionClock           // when this server last heard from each session
	clients      map[int64]sim.ProcID   // sessions connected to this server
	revalidating map[int64]reconnection // follower: reconnections waiting for the leader's word, by session
	watches      watches
}

// NewServer returns a constructor for a server with cfg.
func NewServer(cfg ServerConfig) func(sim.Env) sim.Process {
	if cfg.Tick == 0 {
		cfg.Tick = DefaultTick
	}
	if cfg.LeaderTimeout == 0 {
		cfg.LeaderTimeout = syncLimit * cfg.Tick
	}
	if cfg.ElectionTime == 0 {
		cfg.ElectionTime = 200 * time.Millisecond
	}
	if cfg.ContainerCheck == 0 {
		cfg.ContainerCheck = DefaultContainerCheck
	}
	return func(env sim.Env) sim.Process {
		s := &Server{env: env, cfg: cfg, t: newTree(), acks: map[int64][]bool{}, heard: sessionClock{},
			clients: map[int64]sim.ProcID{}, watches: newWatches(), votes: map[sim.ProcID]int64{}, ackedLeader: sim.NoProc}
		s.setRole(looking)
		return s
	}
}

func (s *Server) quorum() int { return len(s.cfg.Servers)/2 + 1 }

func (s *Server) index(p sim.ProcID) int { return slices.Index(s.cfg.Servers, p) }

// Step handles one input.
func (s *Server) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InRestart:
		s.recover(now, in.Disk, out)
	case sim.InTimer:
		if in.Timer == timerTick {
			s.halves++
		}
		s.tick(s, now, in.Timer, out)
	case sim.InMessage:
		switch {
		case s.index(in.From) < 0:
			s.request(now, in.From, in.Msg, out)
		case in.Msg.Op == opNewLeader: // in any role
			s.newLeader(now, in.From, in.Msg.Body.(*snapshot), out)
		default:
			s.step(s, now, in.From, in.Msg, out)
		}
	}
}

// recover rebuilds the log from disk and joins the ensemble: the first server
// leads a fresh ensemble; a restarted one looks for the leader.
func (s *Server) recover(now sim.LocalTime, disk []sim.Message, out *sim.Outputs) {
	// Replaying the disk rebuilds the tree; the clients were answered (and the
	// connections made) by the server's previous life, which is gone.
	s.recovering = true
	defer func() { s.recovering = false }()
	for _, r := range disk {
		switch x := r.Body.(type) {
		case *txn:
			s.logTxn(x)
		case *snapshot:
			s.t, s.log, s.epoch = x.Tree.clone(), nil, x.Epoch
		}
		if r.Op == opCommit {
			s.applyUpTo(now, r.Num(ArgZxid), out)
		}
		if r.Op == opProposal || r.Op == opCommit {
			s.t.unreported = nil // its leader was established: see stepFollowing
		}
	}
	s.epoch = max(s.epoch, s.lastLogged()>>32) // an epoch is never reused
	if len(disk) == 0 && s.env.Incarnation == 0 {
		s.bootstrap(now, out)
		return
	}
	s.becomeLooking(now, out)
}

// apply performs one committed transaction on this server's copy of the
// state: the tree and its sessions, the session clock and connections, the
// watches; it reports the lock holders the transaction changed, and answers
// the client if this server took its request.
func (s *Server) apply(now sim.LocalTime, x *txn, out *sim.Outputs) {
	t := s.t
	t.lastZxid = x.Zxid
	var reply *sim.Message
	switch x.Kind {
	case txCreateSession:
		t.sessions[x.Session] = &session{client: x.Client, timeout: x.Timeout}
		s.heard.touch(x.Session, now)
		if x.Origin == s.env.ID && !s.recovering {
			s.clients[x.Session] = x.Client
		}
		reply = new(sim.Message{Op: RepConnected}.With(ArgSession, x.Session).With(ArgTimeout, x.Timeout))
	case txCloseSession:
		for _, p := range t.sortedPaths() {
			if t.nodes[p].ephemeral == x.Session {
				s.remove(p, out)
			}
		}
		delete(t.sessions, x.Session)
		delete(s.heard, x.Session)
		delete(s.clients, x.Session)
		s.watches.dropSession(x.Session)
		if s.role == leading && x.Client == sim.NoProc { // the leader expired it
			out.Observe(sim.Observation{Kind: sim.ObsCounter, Client: sim.NoProc, By: sim.NoProc, Name: "session_expiries", Value: 1})
		}
		reply = &sim.Message{Op: RepClosed}
	case txCreate:
		if p := t.nodes[parent(x.Path)]; p != nil && p.ephemeral != 0 {
			reply = &sim.Message{Op: RepError, Key: x.Path, Value: ErrNoChildrenForEphemerals}
			break
		}
		if _, ok := t.nodes[x.Path]; ok {
			reply = &sim.Message{Op: RepError, Key: x.Path, Value: ErrNodeExists}
			break
		}
		var owner int64
		if x.Ephemeral {
			owner = x.Session
		}
		t.create(x.Path, x.Zxid, owner)
		t.countChild(x)
		s.notify(s.watches.created(x.Path), out)
		reply = new(sim.Message{Op: RepCreated, Key: x.Path}.With(ArgZxid, x.Zxid))
	case txDelete:
		switch n, ok := t.nodes[x.Path]; {
		case !ok:
			reply = &sim.Message{Op: RepError, Key: x.Path, Value: ErrNoNode}
		case x.Version != -1 && n.version != x.Version: // -1 is any version; -2 is a version too
			reply = &sim.Message{Op: RepError, Key: x.Path, Value: ErrBadVersion}
		case len(n.kids) > 0:
			reply = &sim.Message{Op: RepError, Key: x.Path, Value: ErrNotEmpty}
		default:
			s.remove(x.Path, out)
			reply = &sim.Message{Op: RepDeleted, Key: x.Path}
		}
		s.containerGone(now, x.Path, out)
	}
	if x.changesNodes() {
		s.reportHolders(x, t.updateHolders(), out)
	}
	if reply != nil && x.Origin == s.env.ID && x.Client != sim.NoProc && !s.recovering {
		reply.ID = x.Req
		out.Send(x.Client, *reply)
	}
}

// remove deletes a node and fires the watches on it and on its parent.
func (s *Server) remove(path string, out *sim.Outputs) {
	s.t.drop(path)
	s.notify(s.watches.deleted(path), out)
}

// TimerName names the server's timers for the log.
func (s *Server) TimerName(id sim.TimerID) string {
	switch id {
	case timerTick:
		return "half tick"
	case timerElection:
		return "election round ends"
	}
	return ""
}

// BackgroundTimer: the tick only sends pings and checks who is still heard.
func (s *Server) BackgroundTimer(id sim.TimerID) bool { return id == timerTick }

// Describe is the server's state.
func (s *Server) Describe() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s (epoch %d, leader %s), last zxid %s;", roleNames[s.role], s.epoch, s.env.Names[s.leader],
		zxidText(s.t.lastZxid))
	for _, p := range s.t.sortedPaths() {
		if p == "/" {
			continue
		}
		n := s.t.nodes[p]
		fmt.Fprintf(&b, " %s(czxid %s", p, zxidText(n.czxid))
		if n.ephemeral != 0 {
			if c := s.t.sessions[n.ephemeral].clientOr(); c >= 0 {
				fmt.Fprintf(&b, ", ephemeral of %s", s.env.Names[c])
			}
		}
		b.WriteString(")")
	}
	return b.String()
}
