package zookeeper

import (
	"fmt"
	"maps"
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
	RepError     = "ERROR" // Value: SESSIONEXPIRED, CONNECTIONLOSS, NONODE
	RepWatch     = "WATCH" // Opts: NodeDeleted, NodeChildrenChanged, NodeCreated

	ErrSessionExpired = "SESSIONEXPIRED"
	ErrConnLoss       = "CONNECTIONLOSS"
	ErrNoNode         = "NONODE"
	ErrBadVersion     = "BADVERSION"
	ErrNodeExists     = "NODEEXISTS"
	ErrNotEmpty       = "NOTEMPTY"

	// Between servers.
	opRequest    = "REQUEST" // a follower forwards a write to the leader
	opTouch      = "TOUCH"   // a follower tells the leader a session is alive
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
}

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

// Negotiated session timeouts lie within [2, 20] ticks, ZooKeeper's default
// minSessionTimeout and maxSessionTimeout.
const (
	minSessionTicks = 2
	maxSessionTicks = 20
)

// Server is one ZooKeeper server.
type Server struct {
	env      sim.Env
	cfg      ServerConfig
	role     role
	leader   sim.ProcID
	epoch    int64
	counter  int64
	t        *tree
	log      []*txn           // logged proposals not yet applied, in zxid order
	acks     map[int64][]bool // leader: per pending zxid, which servers have it
	lastHear time.Duration    // follower: when it last heard from the leader (mono)
	heard    map[int64]time.Duration
	clients  map[int64]sim.ProcID // sessions connected to this server
	// recovering: the disk is being replayed after a restart (no replies, no connections)
	recovering bool
	dataW      map[string][]int64 // one-shot watches, by path: sessions
	childW     map[string][]int64
	votes      map[sim.ProcID]int64         // election: each voter's last zxid
	followed   map[sim.ProcID]time.Duration // leader: when each follower last answered
	// Zab's epochs: a follower acknowledges one leader per epoch; a new leader is
	// established once a quorum has acknowledged its epoch, and commits and reports
	// nothing before.
	accepted    int64      // the highest epoch this server acknowledged
	ackedLeader sim.ProcID // whom it acknowledged for that epoch (NoProc: itself)
	established bool
	ackedBy     map[sim.ProcID]bool
	held        []sim.Observation // a leader's reports, until it is established
	halves      int64             // half ticks since the server started: sessions expire on whole ticks
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
	return func(env sim.Env) sim.Process {
		return &Server{env: env, cfg: cfg, t: newTree(), acks: map[int64][]bool{}, heard: map[int64]time.Duration{},
			clients: map[int64]sim.ProcID{}, dataW: map[string][]int64{}, childW: map[string][]int64{},
			votes: map[sim.ProcID]int64{}, ackedLeader: sim.NoProc}
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
		switch in.Timer {
		case timerTick:
			s.tick(now, out)
		case timerElection:
			s.decide(now, out)
		}
	case sim.InMessage:
		if s.index(in.From) >= 0 {
			s.peer(now, in.From, in.Msg, out)
		} else {
			s.client(now, in.From, in.Msg, out)
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
			s.applyUpTo(now, r.N, out)
		}
	}
	s.epoch = max(s.epoch, s.lastLogged()>>32) // an epoch is never reused
	if len(disk) == 0 && s.env.Incarnation == 0 && s.cfg.Servers[0] == s.env.ID {
		s.becomeLeader(now, out, 1)
		return
	}
	if len(disk) == 0 && s.env.Incarnation == 0 {
		s.role, s.leader, s.epoch, s.lastHear = following, s.cfg.Servers[0], 1, now.Mono
		s.accepted, s.ackedLeader = 1, s.cfg.Servers[0]
		out.SetTimer(timerTick, s.cfg.Tick/2)
		return
	}
	s.startElection(now, out)
}

func (s *Server) logTxn(x *txn) {
	if x.Zxid <= s.t.lastZxid || slices.ContainsFunc(s.log, func(y *txn) bool { return y.Zxid == x.Zxid }) {
		return
	}
	s.bumpSeq(x)
	s.log = append(s.log, x)
	slices.SortFunc(s.log, func(a, b *txn) int { return int(a.Zxid - b.Zxid) })
}

// bumpSeq keeps a parent's sequential counter past a created name, on every
// server, for logged and applied creates alike: a follower that becomes leader,
// or a leader that recovers proposals from its disk, never reuses a name.
func (s *Server) bumpSeq(x *txn) {
	if x.Kind != txCreate {
		return
	}
	if !x.Sequential {
		return
	}
	var seq int64
	if _, err := fmt.Sscanf(x.Path[max(len(x.Path)-10, 0):], "%d", &seq); err == nil {
		p := s.t.node(parent(x.Path))
		p.nextSeq = max(p.nextSeq, seq+1)
	}
}

// persist logs a proposal durably (fsync before acknowledging).
func (s *Server) persist(x *txn, out *sim.Outputs) {
	out.Write(sim.Message{Op: opProposal, Body: x})
	out.Fsync()
}

// --- the client side of a server ---

func (s *Server) serving() bool { return s.role != looking }

func (s *Server) client(now sim.LocalTime, from sim.ProcID, m sim.Message, out *sim.Outputs) {
	reply := func(r sim.Message) { r.ID = m.ID; out.Send(from, r) }
	if !s.serving() {
		reply(sim.Message{Op: RepError, Value: ErrConnLoss})
		return
	}
	sess := m.N
	if m.Op != OpConnect || sess != 0 {
		if _, ok := s.t.sessions[sess]; !ok {
			reply(sim.Message{Op: RepError, Value: ErrSessionExpired})
			return
		}
		if m.Op != OpConnect && s.clients[sess] != from {
			// This server has no connection for that session: it restarted since
			// the client connected (a real client sees its TCP connection reset).
			// The client reconnects and re-arms its watches.
			reply(sim.Message{Op: RepError, Value: ErrConnLoss})
			return
		}
		s.clients[sess] = from
		s.touch(now, sess, out)
	}
	switch m.Op {
	case OpConnect:
		if sess != 0 {
			reply(sim.Message{Op: RepConnected}.WithN(sess).WithM(s.t.sessions[sess].timeout))
			return
		}
		s.write(now, &txn{Kind: txCreateSession, Client: from, Timeout: s.negotiate(m.M), Origin: s.env.ID, Req: m.ID}, out)
	case OpPing:
		reply(sim.Message{Op: RepPong}.InBackground())
	case OpCreate:
		modes := strings.Fields(m.Opts)
		s.write(now, &txn{Kind: txCreate, Session: sess, Client: from, Path: m.Key, Ephemeral: slices.Contains(modes, "EPHEMERAL"),
			Sequential: slices.Contains(modes, "SEQUENTIAL"), Origin: s.env.ID, Req: m.ID}, out)
	case OpClose:
		s.write(now, &txn{Kind: txCloseSession, Session: sess, Client: from, Origin: s.env.ID, Req: m.ID}, out)
	case OpDelete:
		version := int64(-1) // M carries the expected version; without it, any
		if m.HasM {
			version = m.M
		}
		s.write(now, &txn{Kind: txDelete, Session: sess, Client: from, Path: m.Key, Origin: s.env.ID, Req: m.ID,
			ByOwner: true, Version: version}, out)
	case OpGetChildren:
		if m.Opts == "WATCH" {
			s.childW[m.Key] = appendOnce(s.childW[m.Key], sess)
		}
		out.Observe(sim.Observation{Kind: sim.ObsCounter, Client: from, By: sim.NoProc, Name: "getchildren_calls", Value: 1})
		if _, ok := s.t.nodes[m.Key]; !ok {
			reply(sim.Message{Op: RepError, Key: m.Key, Value: ErrNoNode})
			return
		}
		reply(sim.Message{Op: RepChildren, Key: m.Key, Body: childList(s.t.wireChildren(m.Key))})
	case OpExists:
		n, ok := s.t.nodes[m.Key]
		if m.Opts == "WATCH" {
			s.dataW[m.Key] = appendOnce(s.dataW[m.Key], sess)
		}
		if !ok {
			reply(sim.Message{Op: RepError, Key: m.Key, Value: ErrNoNode})
			return
		}
		reply(sim.Message{Op: RepStat, Key: m.Key}.WithN(n.czxid))
	}
}

// negotiate is the session timeout (ms) the server grants for the one asked:
// within [2, 20] ticks.
func (s *Server) negotiate(ms int64) int64 {
	d := time.Duration(ms) * time.Millisecond
	return min(max(d, minSessionTicks*s.cfg.Tick), maxSessionTicks*s.cfg.Tick).Milliseconds()
}

func appendOnce(s []int64, x int64) []int64 {
	if slices.Contains(s, x) {
		return s
	}
	return append(s, x)
}

// touch records that a session is alive (at the leader, or forwarded to it).
func (s *Server) touch(now sim.LocalTime, sess int64, out *sim.Outputs) {
	if s.role == leading {
		s.heard[sess] = now.Mono
		return
	}
	out.Send(s.leader, sim.Message{Op: opTouch}.WithN(sess).InBackground())
}

// write sends a write to the leader, or proposes it when this is the leader.
func (s *Server) write(now sim.LocalTime, x *txn, out *sim.Outputs) {
	if s.role == leading {
		s.propose(now, x, out)
		return
	}
	out.Send(s.leader, sim.Message{Op: opRequest, Body: x})
}

// --- the broadcast ---

func (s *Server) propose(now sim.LocalTime, req *txn, out *sim.Outputs) {
	cp := *req // never change the message a follower sent: propose a copy
	x := &cp
	switch x.Kind {
	case txCreate:
		// The leader decides the sequential name from the parent's counter; the
		// counter moves on when the proposal is logged (logTxn), so no name is
		// issued twice, even for proposals not committed yet.
		if x.Sequential {
			x.Path = fmt.Sprintf("%s%010d", x.Path, s.t.node(parent(x.Path)).nextSeq)
		}
	case txCreateSession:
		x.Session = s.epoch<<32 | int64(s.env.ID+1)<<24 | (s.counter + 1)
	}
	s.counter++
	x.Zxid = s.epoch<<32 | s.counter
	s.persist(x, out)
	s.logTxn(x)
	acks := make([]bool, len(s.cfg.Servers))
	acks[s.index(s.env.ID)] = true
	s.acks[x.Zxid] = acks
	for _, p := range s.cfg.Servers {
		if p != s.env.ID {
			out.Send(p, sim.Message{Op: opProposal, Body: x}.WithN(s.epoch))
		}
	}
	s.tryCommit(now, out)
}

// tryCommit commits, in zxid order, every proposal a quorum has logged.
func (s *Server) tryCommit(now sim.LocalTime, out *sim.Outputs) {
	for s.established && len(s.log) > 0 {
		x := s.log[0]
		n := 0
		for _, a := range s.acks[x.Zxid] {
			if a {
				n++
			}
		}
		if n < s.quorum() {
			return
		}
		delete(s.acks, x.Zxid)
		for _, p := range s.cfg.Servers {
			if p != s.env.ID {
				out.Send(p, sim.Message{Op: opCommit}.WithN(x.Zxid))
			}
		}
		out.Write(sim.Message{Op: opCommit}.WithN(x.Zxid))
		s.applyUpTo(now, x.Zxid, out)
	}
}

// applyUpTo applies every logged transaction up to zxid, in order.
func (s *Server) applyUpTo(now sim.LocalTime, zxid int64, out *sim.Outputs) {
	for len(s.log) > 0 && s.log[0].Zxid <= zxid {
		x := s.log[0]
		s.log = s.log[1:]
		s.apply(now, x, out)
	}
}

func (s *Server) apply(now sim.LocalTime, x *txn, out *sim.Outputs) {
	t := s.t
	t.lastZxid = x.Zxid
	var reply *sim.Message
	switch x.Kind {
	case txCreateSession:
		t.sessions[x.Session] = &session{client: x.Client, timeout: x.Timeout}
		s.heard[x.Session] = now.Mono
		if x.Origin == s.env.ID && !s.recovering {
			s.clients[x.Session] = x.Client
		}
		reply = &sim.Message{Op: RepConnected, N: x.Session, HasN: true, M: x.Timeout, HasM: true}
	case txCloseSession:
		for _, p := range s.sortedPaths() {
			if t.nodes[p].ephemeral == x.Session {
				s.remove(p, out)
			}
		}
		delete(t.sessions, x.Session)
		delete(s.heard, x.Session)
		delete(s.clients, x.Session)
		for _, ws := range []map[string][]int64{s.dataW, s.childW} {
			for p, ss := range ws {
				ws[p] = slices.DeleteFunc(ss, func(id int64) bool { return id == x.Session })
			}
		}
		if s.role == leading && x.Client == sim.NoProc { // the leader expired it
			out.Observe(sim.Observation{Kind: sim.ObsCounter, Client: sim.NoProc, By: sim.NoProc, Name: "session_expiries", Value: 1})
		}
		reply = &sim.Message{Op: RepClosed}
	case txCreate:
		if _, ok := t.nodes[x.Path]; ok {
			reply = &sim.Message{Op: RepError, Key: x.Path, Value: ErrNodeExists}
			break
		}
		var owner int64
		if x.Ephemeral {
			owner = x.Session
		}
		t.node(parent(x.Path)) // the lock node, if the recipe never made it
		t.nodes[x.Path] = &znode{czxid: x.Zxid, mzxid: x.Zxid, ephemeral: owner}
		t.link(x.Path)
		s.bumpSeq(x)
		s.fire(s.dataW, x.Path, "NodeCreated", out)
		s.fire(s.childW, parent(x.Path), "NodeChildrenChanged", out)
		reply = &sim.Message{Op: RepCreated, Key: x.Path, N: x.Zxid, HasN: true}
	case txDelete:
		switch n, ok := t.nodes[x.Path]; {
		case !ok:
			reply = &sim.Message{Op: RepError, Key: x.Path, Value: ErrNoNode}
		case x.Version >= 0 && n.version != x.Version:
			reply = &sim.Message{Op: RepError, Key: x.Path, Value: ErrBadVersion}
		case len(n.kids) > 0:
			reply = &sim.Message{Op: RepError, Key: x.Path, Value: ErrNotEmpty}
		default:
			s.remove(x.Path, out)
			reply = &sim.Message{Op: RepDeleted, Key: x.Path}
		}
	}
	s.updateHolders(x, out)
	if reply != nil && x.Origin == s.env.ID && x.Client != sim.NoProc && !s.recovering {
		reply.ID = x.Req
		out.Send(x.Client, *reply)
	}
}

func (s *Server) remove(path string, out *sim.Outputs) {
	s.t.drop(path)
	// Watches on the node itself, data and children alike, fire once per session.
	s.childW[path] = slices.DeleteFunc(s.childW[path], func(id int64) bool { return slices.Contains(s.dataW[path], id) })
	s.fire(s.dataW, path, "NodeDeleted", out)
	s.fire(s.childW, path, "NodeDeleted", out)
	s.fire(s.childW, parent(path), "NodeChildrenChanged", out)
}

// fire sends a one-shot watch's notifications to the clients connected here.
func (s *Server) fire(watches map[string][]int64, path, event string, out *sim.Outputs) {
	for _, sess := range watches[path] {
		c, ok := s.clients[sess]
		if !ok {
			continue
		}
		out.Send(c, sim.Message{Op: RepWatch, Key: path, Opts: event})
	}
	delete(watches, path)
}

func (s *Server) sortedPaths() []string { return slices.Sorted(maps.Keys(s.t.nodes)) }

// updateHolders keeps each lock's holder (the owner of the lowest child of the
// lock node) in the replicated state; the leader reports the changes to the
// checker as grants.
func (s *Server) updateHolders(x *txn, out *sim.Outputs) {
	if x.Kind != txCreate && x.Kind != txDelete && x.Kind != txCloseSession {
		return
	}
	locks := map[string]bool{}
	for p := range s.t.nodes {
		if pp := parent(p); pp != "/" {
			locks[pp] = true
		}
	}
	for l, h := range s.t.lowest {
		if h.name != "" {
			locks[l] = true
		}
	}
	report := s.role == leading
	for _, l := range slices.Sorted(maps.Keys(locks)) {
		kids := s.t.children(l)
		now := ""
		if len(kids) > 0 {
			now = kids[0]
		}
		before := s.t.lowest[l]
		if now == before.name {
			continue
		}
		lock := strings.TrimPrefix(l, "/")
		if before.name != "" && report {
			reason, by := sim.ReasonDeleted, s.env.ID
			switch {
			case x.Kind == txDelete && x.Path == l+"/"+before.name:
				reason, by = sim.ReasonReleased, before.owner
			case x.Kind == txCloseSession:
				reason = sim.ReasonExpired // the leader expired its session
			}
			s.report(sim.Observation{Kind: sim.ObsGrantEnd, Service: Service, Client: before.owner, By: by,
				Lock: lock, Grant: before.name, Reason: reason, Seq: x.Zxid}, out)
		}
		h := holder{name: now}
		if now != "" {
			n := s.t.nodes[l+"/"+now]
			h.owner = s.t.sessions[n.ephemeral].clientOr()
			if report {
				s.report(sim.Observation{Kind: sim.ObsGrant, Service: Service, Client: h.owner,
					By: sim.NoProc, Lock: lock, Grant: now, Token: n.czxid, HasToken: true, Seq: x.Zxid}, out)
			}
		}
		s.t.lowest[l] = h
	}
}

// --- between servers ---

func (s *Server) peer(now sim.LocalTime, from sim.ProcID, m sim.Message, out *sim.Outputs) {
	switch m.Op {
	case opRequest:
		if s.role == leading {
			s.propose(now, m.Body.(*txn), out)
		}
	case opTouch:
		if s.role == leading {
			if _, ok := s.t.sessions[m.N]; ok {
				s.heard[m.N] = now.Mono
			}
		}
	case opProposal:
		if s.role == following && from == s.leader {
			x := m.Body.(*txn)
			if !s.next(x.Zxid) {
				// A gap: a proposal was lost on the way. A follower never logs past
				// a gap (its last zxid would claim what it lacks); it resyncs.
				out.Observe(sim.Note(sim.NoProc, "%s missed a proposal before %s: it resyncs", s.env.Name, zxidText(x.Zxid)))
				s.startElection(now, out)
				return
			}
			s.persist(x, out)
			s.logTxn(x)
			out.Send(from, sim.Message{Op: opAck}.WithN(x.Zxid))
			s.lastHear = now.Mono
		}
	case opAck:
		if s.role == leading {
			if a, ok := s.acks[m.N]; ok {
				a[s.index(from)] = true
				s.tryCommit(now, out)
			}
		}
	case opCommit:
		if s.role == following && from == s.leader && m.N > s.lastLogged() {
			s.startElection(now, out) // a commit for a proposal it never got: resync
			return
		}
		if s.role == following && from == s.leader {
			out.Write(sim.Message{Op: opCommit}.WithN(m.N))
			s.applyUpTo(now, m.N, out)
			s.lastHear = now.Mono
		}
	case opLeaderPing:
		if s.role == following && from == s.leader {
			s.lastHear = now.Mono
			out.Send(from, sim.Message{Op: opPingAck}.WithN(s.epoch).InBackground())
		}
	case opPingAck:
		if s.role == leading {
			s.followed[from] = now.Mono
		}
	case opVote:
		s.vote(now, from, m.N, out)
	case opAckLeader:
		if s.role == leading && m.N == s.epoch && !s.established {
			s.ackedBy[from] = true
			if len(s.ackedBy)+1 >= s.quorum() {
				s.establish(now, out)
			}
		}
	case opNewLeader:
		snap := m.Body.(*snapshot)
		// One leader per epoch: a later epoch, or the leader already acknowledged
		// for this one (or, after its own leadership failed, this epoch's leader).
		ok := snap.Epoch > s.accepted ||
			(snap.Epoch == s.accepted && (from == s.ackedLeader || (s.ackedLeader == sim.NoProc && s.role != leading)))
		if ok && (s.role != following || from != s.leader || snap.Epoch > s.epoch) {
			s.accepted, s.ackedLeader = snap.Epoch, from
			s.established, s.held = false, nil
			s.t, s.log, s.epoch, s.leader, s.role = snap.Tree.clone(), slices.Clone(snap.Log), snap.Epoch, from, following
			s.lastHear = now.Mono
			s.acks = map[int64][]bool{}
			out.Write(sim.Message{Op: opNewLeader, Body: snap})
			out.Fsync()
			out.CancelTimer(timerElection)
			out.SetTimer(timerTick, s.cfg.Tick/2)
			out.Observe(sim.Note(sim.NoProc, "%s follows %s (epoch %d)", s.env.Name, s.env.Names[from], snap.Epoch))
		}
		if ok && from == s.leader && s.role == following {
			out.Send(from, sim.Message{Op: opAckLeader}.WithN(snap.Epoch))
		}
	}
}

// tick runs every half tick, as ZooKeeper's leader loop does: a leader pings
// its followers, and on each whole tick checks that a quorum still answers and
// expires the sessions it has not heard from within their timeout (sessions
// expire on whole ticks, as in ZooKeeper's session buckets); a follower checks
// that it still hears from its leader.
func (s *Server) tick(now sim.LocalTime, out *sim.Outputs) {
	s.halves++
	switch s.role {
	case leading:
		// A leader that no longer hears from a quorum steps down (ZooKeeper's
		// sync limit): a partitioned minority must not go on serving.
		heard := 1
		for _, p := range s.cfg.Servers {
			if p != s.env.ID && now.Mono-s.followed[p] <= s.cfg.LeaderTimeout {
				heard++
			}
		}
		if s.halves%2 == 0 && heard < s.quorum() {
			out.Observe(sim.Note(sim.NoProc, "%s hears from only %d of %d servers: it stops leading", s.env.Name, heard, len(s.cfg.Servers)))
			s.startElection(now, out)
			return
		}
		for _, p := range s.cfg.Servers {
			if p != s.env.ID {
				out.Send(p, sim.Message{Op: opLeaderPing}.WithN(s.epoch).InBackground())
			}
		}
		if s.halves%2 == 0 {
			s.expireSessions(now, out)
		}
	case following:
		if now.Mono-s.lastHear > s.cfg.LeaderTimeout {
			out.Observe(sim.Note(sim.NoProc, "%s has not heard from leader %s for %s: it looks for a new one",
				s.env.Name, s.env.Names[s.leader], sim.FormatDuration(now.Mono-s.lastHear)))
			s.startElection(now, out)
			return
		}
	}
	out.SetTimer(timerTick, s.cfg.Tick/2)
}

// expireSessions closes every session the leader has not heard from within its
// timeout.
func (s *Server) expireSessions(now sim.LocalTime, out *sim.Outputs) {
	for _, id := range s.t.sortedSessions() {
		ss := s.t.sessions[id]
		if !ss.closing && now.Mono-s.heard[id] > time.Duration(ss.timeout)*time.Millisecond {
			ss.closing = true
			out.Observe(sim.Note(sim.NoProc, "%s expires session 0x%x of %s: not heard from for %s", s.env.Name, id,
				s.env.Names[ss.client], sim.FormatDuration(now.Mono-s.heard[id])))
			s.propose(now, &txn{Kind: txCloseSession, Session: id, Client: sim.NoProc, Origin: sim.NoProc}, out)
		}
	}
}

// --- elections ---

// next reports whether zxid directly follows what the server has logged: the next
// counter in the same epoch, or the first of a later epoch.
func (s *Server) next(zxid int64) bool {
	last := s.lastLogged()
	if zxid>>32 == last>>32 {
		return zxid == last+1
	}
	return zxid>>32 > last>>32 && zxid&0xffffffff == 1
}

func (s *Server) lastLogged() int64 {
	if len(s.log) > 0 {
		return s.log[len(s.log)-1].Zxid
	}
	return s.t.lastZxid
}

func (s *Server) startElection(now sim.LocalTime, out *sim.Outputs) {
	s.role = looking
	s.votes = map[sim.ProcID]int64{s.env.ID: s.lastLogged()}
	for _, p := range s.cfg.Servers {
		if p != s.env.ID {
			out.Send(p, sim.Message{Op: opVote}.WithN(s.lastLogged()))
		}
	}
	out.SetTimer(timerElection, s.cfg.ElectionTime)
}

func (s *Server) vote(now sim.LocalTime, from sim.ProcID, zxid int64, out *sim.Outputs) {
	switch s.role {
	case looking:
		if _, ok := s.votes[from]; !ok {
			s.votes[from] = zxid
			out.Send(from, sim.Message{Op: opVote}.WithN(s.lastLogged()))
		}
	case leading:
		// A server that lost us: sync it.
		out.Send(from, sim.Message{Op: opNewLeader, Body: &snapshot{Epoch: s.epoch, Tree: s.t.clone()}})
	}
}

// decide ends an election: with votes from a quorum, the server with the highest
// zxid (then id) leads.
func (s *Server) decide(now sim.LocalTime, out *sim.Outputs) {
	if s.role != looking {
		return
	}
	if len(s.votes) < s.quorum() {
		s.startElection(now, out)
		return
	}
	best := s.env.ID
	for _, p := range s.cfg.Servers {
		z, ok := s.votes[p]
		if ok && (z > s.votes[best] || (z == s.votes[best] && p > best)) {
			best = p
		}
	}
	if best == s.env.ID {
		epoch := s.epoch
		for _, z := range s.votes {
			epoch = max(epoch, z>>32)
		}
		s.becomeLeader(now, out, epoch+1) // above every epoch the voters have seen
		return
	}
	// Vote again: the winner, once leading, answers with NEWLEADER; if it died,
	// the next round elects someone else.
	s.startElection(now, out)
}

func (s *Server) becomeLeader(now sim.LocalTime, out *sim.Outputs, epoch int64) {
	s.role, s.leader, s.epoch, s.counter = leading, s.env.ID, epoch, 0
	s.accepted, s.ackedLeader = epoch, sim.NoProc
	s.established, s.ackedBy, s.held = false, map[sim.ProcID]bool{}, nil
	s.followed = map[sim.ProcID]time.Duration{}
	for _, p := range s.cfg.Servers {
		s.followed[p] = now.Mono // every follower gets a leader timeout to answer
	}
	// Everything this server logged is committed by the new epoch (ZAB).
	if len(s.log) > 0 {
		s.applyUpTo(now, s.log[len(s.log)-1].Zxid, out)
	}
	for _, id := range s.t.sortedSessions() {
		s.heard[id] = now.Mono // session timeouts restart with the leader
		s.t.sessions[id].closing = false
	}
	if epoch > 1 { // the first leader of a fresh ensemble was not elected
		out.Observe(sim.Observation{Kind: sim.ObsCounter, Client: sim.NoProc, By: sim.NoProc, Name: "elections", Value: 1})
	}
	out.Observe(sim.Note(sim.NoProc, "%s leads the ensemble (epoch %d, last zxid %s)", s.env.Name, epoch, zxidText(s.t.lastZxid)))
	snap := &snapshot{Epoch: epoch, Tree: s.t.clone(), Log: slices.Clone(s.log)}
	for _, p := range s.cfg.Servers {
		if p != s.env.ID {
			out.Send(p, sim.Message{Op: opNewLeader, Body: snap})
		}
	}
	if len(s.cfg.Servers) == 1 || epoch == 1 {
		s.establish(now, out) // a fresh ensemble's first leader, or an ensemble of one
	}
	out.SetTimer(timerTick, s.cfg.Tick/2)
}

// establish: a quorum has acknowledged this leader's epoch. Only now does it
// commit, and report what it did as leader.
func (s *Server) establish(now sim.LocalTime, out *sim.Outputs) {
	s.established = true
	for _, o := range s.held { // what it reported while waiting comes first
		out.Observe(o)
	}
	s.held = nil
	// Everything this leader logged is committed by its epoch (Zab): here, and at
	// the followers, which got that history with the snapshot.
	if n := len(s.log); n > 0 {
		last := s.log[n-1].Zxid
		s.acks = map[int64][]bool{}
		for _, p := range s.cfg.Servers {
			if p != s.env.ID {
				out.Send(p, sim.Message{Op: opCommit}.WithN(last))
			}
		}
		out.Write(sim.Message{Op: opCommit}.WithN(last))
		s.applyUpTo(now, last, out)
	}
	s.tryCommit(now, out)
}

// report sends a leader's observation, or holds it until the leader is established.
func (s *Server) report(o sim.Observation, out *sim.Outputs) {
	if s.established {
		out.Observe(o)
		return
	}
	s.held = append(s.held, o)
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
	for _, p := range s.sortedPaths() {
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

func (ss *session) clientOr() sim.ProcID {
	if ss == nil {
		return sim.NoProc
	}
	return ss.client
}
