package zookeeper

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/sim"
)

// ClientConfig chooses the lock recipe's variant.
type ClientConfig struct {
	Servers        []sim.ProcID  // the ensemble; the client connects to the first and fails over in order
	SessionTimeout time.Duration // asked of the server, which grants it within [2, 20] ticks (default 4 s)
	// WatchParent is the herd variant: every waiter re-reads the children with a
	// watch on the lock node, so every deletion wakes every waiter. The recipe
	// watches only the predecessor.
	WatchParent bool
	// Fencing carries the lock znode's czxid as a fencing token to the resource.
	Fencing bool
	// Protected puts the session id in the node's name, so that a client whose
	// create was answered by a connection loss can find the node it made.
	Protected bool
	// CheckAfter waits this long after the create before the first check (so a
	// scenario can have every client create before anyone watches).
	CheckAfter time.Duration
	// Hold, when set, releases the lock this long after acquiring it.
	Hold time.Duration

	// The published mistakes, each off by default (the recipe as written):

	// TrustWatch is "a watch fired, so I hold the lock": when the predecessor's
	// node is gone (its watch fires, or exists finds nothing) the client takes
	// the lock without reading the children again. The recipe says to call
	// getChildren again: the predecessor may have left the queue without ever
	// holding (it gave up, or its session expired), while the holder still
	// holds (ZooKeeper recipes, "Locks", step 5: "if exists() returns null, go
	// to step 2").
	TrustWatch bool
	// SequenceToken takes the fencing token from the node name's 10-digit
	// sequence suffix instead of its czxid. The counter belongs to the lock
	// node: a container lock node the server deletes when it is empty comes
	// back with the counter at 0, so tokens repeat.
	SequenceToken bool
	// StaleDelete keeps resending a released node's delete after the session
	// that owned the node has expired: under the new session, by name, it can
	// delete a node of the same name someone else has since been given. It
	// takes the name for its node: it never asks whether the node of that
	// name is still the one it created (release.go).
	StaleDelete bool
	// StopOnSuspend follows Curator's advice on connection states: when the
	// connection is lost (SUSPENDED) the holder stops work (its belief ends);
	// if it reconnects within the session timeout (RECONNECTED) it checks the
	// children and holds again; if not, the session is taken as lost (LOST,
	// Curator 3's client-side timer of the negotiated session timeout) and the
	// client gives up and starts a new session. Off, a holder goes on
	// believing while its connection is down, until it is told its session
	// expired.
	StopOnSuspend bool
	// ReleaseOnce sends a release's delete once and forgets the node whatever
	// the answer (Curator's historical defects CURATOR-486 and CURATOR-678:
	// InterProcessMutex.release dropped its local lock data even when the
	// delete failed on a connection loss, and never retried it). A lost delete
	// leaves the node, and the lock, held by a live session for ever. Off, the
	// delete is resent until answered (Curator's guaranteed delete).
	ReleaseOnce bool
	// Rejoin is Curator's LeaderLatch: a participant whose session is lost
	// (LOST, or the ensemble says it expired) takes part again, with a new
	// node, as soon as it has a new session, until it is told to leave (a
	// release: LeaderLatch.close). With StopOnSuspend it is the latch's
	// standard connection handling: leadership ends at SUSPENDED.
	Rejoin bool
	// ProtectedGUID is Curator's historical defect CURATOR-604: the protected
	// name carries an id of the acquire (Curator's GUID) where Protected puts
	// the session's, so an acquire that carries on under a new session after
	// its connection was LOST (StopOnSuspend) finds, by that id, the node its
	// old session made, and adopts it: the ensemble deletes that node when the
	// old session expires, while the client believes it holds the lock.
	ProtectedGUID bool
	// KeepOldPath is Curator's historical defect CURATOR-696 (LeaderLatch,
	// 5.4 to 5.6): a latch participant whose session was lost keeps its old
	// node's path and, once it has a new session, reads the children and
	// leads if that path is the lowest. The node belongs to the old session:
	// after a whole ensemble's outage the old session lives on for a timeout
	// (a new leader gives every session a fresh one), and when the ensemble
	// expires it, the node goes without a word to the latch, which set no
	// watch, leading; the next participant leads too. Off, the latch leaves
	// its old node behind and joins again with a new one (LeaderLatch.reset;
	// Curator 5.7's fix, apache/curator#500, checks the node's ephemeralOwner
	// against the session before leading and resets when they differ). Only
	// with Rejoin.
	KeepOldPath bool
}

// opWatchChildren marks the herd variant's re-read with a watch.
const opWatchChildren = "GETCHILDREN WATCH"

// Client commands (acquire, release, read, write) are those of every lock client.
const (
	CmdAcquire = lockkit.CmdAcquire
	CmdRelease = lockkit.CmdRelease
)

type connState uint8

const (
	disconnected connState = iota
	connecting
	connected
)

type lockState uint8

const (
	lockIdle lockState = iota
	lockCreating
	lockChecking
	lockWaiting
	lockHolding
)

var lockNames = [...]string{"idle", "creating its node", "checking", "waiting", "holding"}

const (
	timerPing sim.TimerID = iota + 1
	timerCheck
	timerReconnect
	timerHold
	timerRead
	timerLost
)

// Client is a process that takes a lock with the ZooKeeper recipe.
type Client struct {
	env      sim.Env
	cfg      ClientConfig
	conn     connState
	server   int
	session  int64
	reqID    uint64
	pending  string // the request awaiting a reply
	state    lockState
	lock     string        // lock name; the lock node is "/"+lock
	node     string        // my node's name under the lock node
	deleting pendingDelete // a released node whose delete is not yet answered (release.go)
	czxid    int64
	belief   sim.Belief
	// suspended: StopOnSuspend's holder whose connection is lost; it holds
	// again only after it reconnects and finds its node still the lowest.
	suspended bool
	regained  bool   // a RECONNECTED holder is checking its node again
	wantLock  string // an acquire that waits for the connection
	joined    bool   // Rejoin: a participant, from its acquire to its release
	acquires  int    // acquire commands taken: ProtectedGUID's id of the acquire
	ka        lockkit.Keepalive
	tries     lockkit.Attempts
}

// NewClient returns a constructor for a lock-recipe client with cfg.
func NewClient(cfg ClientConfig) func(sim.Env) sim.Process {
	if cfg.SessionTimeout == 0 {
		cfg.SessionTimeout = 4 * time.Second
	}
	return func(env sim.Env) sim.Process {
		c := &Client{env: env, cfg: cfg, tries: lockkit.Attempts{Client: env.ID}}
		c.ka = lockkit.Keepalive{Detect: lockkit.Silence, Heartbeat: timerPing, Deadline: timerRead}
		c.timeout(cfg.SessionTimeout)
		return c
	}
}

// timeout paces the session by its timeout: ZooKeeper's client calls its
// connection lost when nothing has come from its server for 2/3 of the timeout
// (its read timeout), and pings after 1/3, so that a live server always answers
// in time (ClientCnxn).
func (c *Client) timeout(session time.Duration) {
	c.cfg.SessionTimeout = session
	c.ka.Period, c.ka.Timeout = session/3, session*2/3
}

func (c *Client) srv() sim.ProcID { return c.cfg.Servers[c.server%len(c.cfg.Servers)] }

func (c *Client) send(m sim.Message, pending string, out *sim.Outputs) {
	c.reqID++
	m.ID = c.reqID
	m = m.With(ArgSession, c.session)
	c.pending = pending
	out.Send(c.srv(), m)
}

// Step handles one input.
func (c *Client) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InRestart:
		c.connect(now, out)
	case sim.InTimer:
		switch in.Timer {
		case timerPing:
			c.ping(now, out)
		case timerCheck:
			c.check(out)
		case timerReconnect:
			c.connect(now, out)
		case timerRead:
			c.connectionLost(now, fmt.Sprintf("no answer from %s for %s, 2/3 of the session timeout",
				c.env.Names[c.srv()], sim.FormatDuration(c.ka.Timeout)), out)
		case timerLost:
			c.lost(now, out)
		case timerHold:
			if c.state == lockHolding {
				c.command(now, sim.Message{Op: CmdRelease, Key: c.lock}, out)
			}
		}
	case sim.InCommand:
		c.command(now, in.Msg, out)
	case sim.InMessage:
		if in.From == c.srv() && c.conn != disconnected {
			c.ka.Heard(out)
		}
		if slices.Contains(c.cfg.Servers, in.From) {
			c.reply(now, in.Msg, out)
		}
	}
}

func (c *Client) connect(now sim.LocalTime, out *sim.Outputs) {
	c.conn = connecting
	c.reqID++
	out.Send(c.srv(), sim.Message{Op: OpConnect, ID: c.reqID}.With(ArgSession, c.session).With(ArgTimeout, int64(c.cfg.SessionTimeout/time.Millisecond)))
	c.pending = OpConnect
	c.ka.Start(out)
}

// ping keeps the session alive.
func (c *Client) ping(now sim.LocalTime, out *sim.Outputs) {
	c.ka.Beat(now, out) // the read timeout judges the silence
	if c.conn == connected {
		// ID 0: a ping's answer must not displace the awaited request's.
		c.ka.Send(now, out, c.srv(), sim.Message{Op: OpPing}.With(ArgSession, c.session))
		c.resendDelete(out)
	}
}

func (c *Client) connectionLost(now sim.LocalTime, why string, out *sim.Outputs) {
	if c.state == lockCreating {
		if c.cfg.Protected {
			c.state = lockChecking // the create may have happened: look for our node
		} else {
			// Curator's retry loop creates again once reconnected; without
			// protection a create that did happen is left behind (the reason
			// protection exists), as on a LOST session below.
			c.state, c.wantLock = lockIdle, c.lock
		}
	}
	c.conn = disconnected
	c.deleting.mine = false // a delete it sent may have been committed unanswered (release.go)
	c.ka.Lost(out)
	if c.cfg.StopOnSuspend && c.state != lockIdle && !c.suspended {
		// SUSPENDED: "you cannot be certain that you still hold the lock".
		c.suspended = true
		out.SetTimer(timerLost, c.cfg.SessionTimeout)
		if c.state == lockHolding {
			c.belief.End(out, c.env.ID, "connection suspended")
			out.Observe(sim.Note(c.env.ID, "%s is SUSPENDED: it stops work on %s until it reconnects, and calls its session LOST after %s",
				c.env.Name, c.lock, sim.FormatDuration(c.cfg.SessionTimeout)))
		}
	}
	c.server++
	out.Observe(sim.Note(c.env.ID, "%s lost its connection (%s); it reconnects to %s", c.env.Name, why, c.env.Names[c.srv()]))
	out.SetTimer(timerReconnect, 100*time.Millisecond)
}

func (c *Client) command(now sim.LocalTime, m sim.Message, out *sim.Outputs) {
	switch m.Op {
	case CmdAcquire:
		if c.state != lockIdle {
			out.Observe(sim.Note(c.env.ID, "%s is already busy with %s (%s); acquire ignored", c.env.Name, c.lock, lockNames[c.state]))
			return
		}
		c.lock, c.joined = m.Key, true
		c.acquires++
		c.tries.Begin(out, c.lock, "")
		if c.conn != connected {
			c.wantLock = m.Key
			return
		}
		c.create(out)
	case CmdRelease:
		if c.cfg.Rejoin && c.state == lockIdle && c.wantLock != "" && (m.Key == "" || m.Key == c.lock) {
			// LeaderLatch.close while it waits for a session to rejoin with
			c.tries.GiveUp(out)
			c.joined, c.wantLock = false, ""
			out.Observe(sim.Note(c.env.ID, "%s leaves the election for %s before rejoining it", c.env.Name, c.lock))
			return
		}
		if c.state == lockIdle || (m.Key != "" && m.Key != c.lock) {
			what := "no lock"
			if m.Key != "" {
				what = "nothing called " + m.Key
			}
			out.Observe(sim.Note(c.env.ID, "%s holds %s; release ignored", c.env.Name, what))
			return
		}
		if c.state != lockHolding {
			c.tries.GiveUp(out)
		}
		c.belief.End(out, c.env.ID, sim.ReasonReleased)
		c.joined, c.wantLock = false, ""
		if c.node != "" {
			c.startDelete("/"+c.lock+"/"+c.node, out) // with version 0: the lock node is never written after its creation
		}
		c.state, c.node, c.suspended = lockIdle, "", false
		out.CancelTimer(timerLost)
	case lockkit.CmdRead, lockkit.CmdWrite:
		if c.cfg.StopOnSuspend && !c.belief.Holds() {
			out.Observe(sim.Note(c.env.ID, "%s does not hold the lock now; %s not sent", c.env.Name, m.Op))
			return
		}
		c.belief.Operate(out, c.env, m)
	}
}

func (c *Client) create(out *sim.Outputs) {
	c.state = lockCreating
	name := "lock-"
	if c.cfg.Protected {
		name = c.protectedPrefix()
	}
	c.send(sim.Message{Op: OpCreate, Key: "/" + c.lock + "/" + name, Opts: "EPHEMERAL SEQUENTIAL"}, OpCreate, out)
}

// check reads the children: the lowest node holds the lock. In the herd
// variant a waiter then re-reads them with a watch on the lock node.
func (c *Client) check(out *sim.Outputs) {
	if c.conn != connected || (c.state != lockChecking && c.state != lockWaiting) {
		return
	}
	c.state = lockChecking
	c.send(sim.Message{Op: OpGetChildren, Key: "/" + c.lock}, OpGetChildren, out)
}

func (c *Client) reply(now sim.LocalTime, m sim.Message, out *sim.Outputs) {
	c.deleteAnswered(m, out)
	switch m.Op {
	case RepWatch:
		if c.state == lockWaiting {
			out.Observe(sim.Observation{Kind: sim.ObsCounter, Client: c.env.ID, By: sim.NoProc, Name: "watch_notifications", Value: 1, Text: m.Opts})
			out.Observe(sim.Observation{Kind: sim.ObsCounter, Client: c.env.ID, By: sim.NoProc, Name: "watch_notifications_" + c.env.Name, Value: 1})
			if c.trustsWatch() {
				c.predecessorGone(out)
				return
			}
			c.check(out)
		}
		return
	case RepPong:
		return
	case RepError:
		if m.ID == 0 && m.Value == ErrConnLoss && c.conn == connected { // the answer to a ping
			c.connectionLost(now, c.env.Names[c.srv()]+" no longer knows the connection", out)
			return
		}
	}
	if m.ID != c.reqID {
		return // a late answer
	}
	op := c.pending
	c.pending = ""
	switch m.Op {
	case RepConnected:
		c.session, c.conn = m.Num(ArgSession), connected
		if c.suspended { // RECONNECTED within the session: look again before holding
			c.suspended = false
			out.CancelTimer(timerLost)
			if c.state == lockHolding {
				c.state, c.regained = lockChecking, true
			}
		}
		if granted := time.Duration(m.Num(ArgTimeout)) * time.Millisecond; granted > 0 && granted != c.cfg.SessionTimeout {
			// The timeout the server granted: ZooKeeper's client pings and
			// gives up on its server by it from now on.
			c.timeout(granted)
			c.ka.Start(out)
		}
		c.resendDelete(out)
		if c.wantLock != "" && c.keepsOldPath() && c.node != "" {
			// CURATOR-696: the latch checks its leadership with the path its
			// old session made, without asking whose node it is.
			c.wantLock, c.state = "", lockChecking
			c.check(out)
		} else if c.wantLock != "" {
			c.wantLock = ""
			c.create(out)
		} else if c.state == lockChecking || c.state == lockWaiting {
			c.check(out) // watches died with the old connection: look again
		}
	case RepError:
		switch m.Value {
		case ErrSessionExpired:
			c.expired(now, out)
		case ErrConnLoss:
			if op == OpCreate && c.cfg.Protected {
				c.state = lockChecking // find the node we may have made
			}
			c.connectionLost(now, "the server is not serving", out)
		case ErrNodeExists:
			if op == OpCreate && c.state == lockCreating {
				c.createRefused(m.Key, out)
			}
		case ErrNoNode:
			if op == OpGetChildren || op == opWatchChildren {
				// The lock node is not there: no child at all. A protected
				// create that was lost before the ensemble made anything
				// finds no node of its own and creates again (Curator's
				// findProtectedNodeInForeground takes NoNode for "none"); a
				// client whose node it was finds it gone.
				c.children(nil, op == opWatchChildren, out)
				return
			}
			if op == OpExists && c.trustsWatch() {
				c.predecessorGone(out)
			} else if op == OpExists {
				c.check(out) // the predecessor is already gone
			}
		}
	case RepCreated:
		if c.state != lockCreating {
			// Released while the create was on its way: remove the late node.
			c.send(sim.Message{Op: OpDelete, Key: m.Key}, OpDelete, out)
			return
		}
		c.node, c.czxid = m.Key[strings.LastIndexByte(m.Key, '/')+1:], m.Num(ArgZxid)
		c.state = lockChecking
		if c.cfg.CheckAfter > 0 {
			out.SetTimer(timerCheck, c.cfg.CheckAfter)
			return
		}
		c.check(out)
	case RepChildren:
		kids, _ := m.Body.(childList)
		c.children(kids, op == opWatchChildren, out)
	case RepStat:
		c.state = lockWaiting
	}
}

// createRefused: the sequential create was answered NODEEXISTS. The parent's
// counter (its cversion) had reached a name a plain create had already taken.
// Curator does not retry it: CreateBuilderImpl rethrows NodeExistsException
// (only a create with setDataIfExists catches it), its RetryLoop retries only
// connection losses and timeouts, and LockInternals.attemptLock retries only
// NoNodeException; so InterProcessMutex.acquire, and LeaderLatch.start's
// create, end in the exception. The acquire fails and the client holds
// nothing; it made no node.
func (c *Client) createRefused(path string, out *sim.Outputs) {
	out.Observe(sim.Note(c.env.ID, "%s's create was refused NODEEXISTS: %s is taken by a node not made by a sequential create; the acquire fails with NodeExistsException (Curator does not retry it)",
		c.env.Name, path))
	c.tries.GiveUp(out)
	c.state, c.node, c.joined, c.wantLock = lockIdle, "", false, ""
}

// children decides on a getChildren answer: hold, or wait for the predecessor.
// A server answers in no particular order: the recipe sorts by sequence number.
func (c *Client) children(kids []string, watched bool, out *sim.Outputs) {
	if c.state != lockChecking {
		return
	}
	kids = SortBySequence(slices.Clone(kids))
	if c.node == "" && c.cfg.Protected {
		prefix := c.protectedPrefix()
		for _, k := range kids {
			if strings.HasPrefix(k, prefix) {
				c.node, c.czxid = k, 0 // a name only: its czxid is unknown
			}
		}
		if c.node == "" {
			c.create(out)
			return
		}
	}
	i := slices.Index(kids, c.node)
	switch {
	case i < 0 && c.keepsOldPath():
		// LeaderLatch.checkLeadership: "Can't find our node. Resetting."
		out.Observe(sim.Note(c.env.ID, "%s's node %s is gone: it resets, with a new node", c.env.Name, c.node))
		c.node = ""
		c.create(out)
	case i < 0:
		out.Observe(sim.Note(c.env.ID, "%s's node %s is gone", c.env.Name, c.node))
		c.state, c.node = lockIdle, ""
	case i == 0:
		c.hold(out)
	case c.cfg.WatchParent && watched:
		c.state = lockWaiting // the re-read armed a watch on the lock node
	case c.cfg.WatchParent:
		c.send(sim.Message{Op: OpGetChildren, Key: "/" + c.lock, Opts: "WATCH"}, opWatchChildren, out)
	default:
		c.send(sim.Message{Op: OpExists, Key: "/" + c.lock + "/" + kids[i-1], Opts: "WATCH"}, OpExists, out)
	}
}

// hold: the client concludes that it holds the lock. Its fencing token is the
// node's czxid, or with SequenceToken the name's sequence suffix.
func (c *Client) hold(out *sim.Outputs) {
	regained := c.regained
	c.state, c.regained = lockHolding, false
	var tok int64
	switch {
	case c.cfg.SequenceToken:
		fmt.Sscanf(seqOf(c.node), "%d", &tok)
	case c.cfg.Fencing:
		tok = c.czxid
	}
	fenced := c.cfg.Fencing || c.cfg.SequenceToken
	c.belief.Start(out, c.env.ID, c.lock, c.node, 0, tok, fenced)
	if c.cfg.Hold > 0 && !regained { // a regained hold keeps its timer
		out.SetTimer(timerHold, c.cfg.Hold)
	}
}

// trustsWatch: the client makes mistake 8 (TrustWatch) in the recipe's
// variant it applies to (the herd variant re-reads the children anyway).
func (c *Client) trustsWatch() bool { return c.cfg.TrustWatch && !c.cfg.WatchParent }

// predecessorGone is mistake 8: the node the client watched is gone, and it
// takes that for the lock, without reading the children again.
func (c *Client) predecessorGone(out *sim.Outputs) {
	out.Observe(sim.Note(c.env.ID, "%s's predecessor is gone: it takes the lock without reading the children again", c.env.Name))
	c.hold(out)
}

// lost is Curator's LOST after SUSPENDED: no reconnection within the session
// timeout, so the session must be assumed gone. The client gives up its node
// and will open a new session (the old one, no longer pinged, expires at the
// ensemble and takes the node with it).
func (c *Client) lost(now sim.LocalTime, out *sim.Outputs) {
	if !c.suspended {
		return
	}
	c.suspended = false
	if c.state != lockHolding {
		// An acquire in progress carries on under a new session (Curator's
		// retry loop): a protected one looks for its node first.
		out.Observe(sim.Note(c.env.ID, "%s: connection LOST (no reconnection within %s): it goes on acquiring %s under a new session",
			c.env.Name, sim.FormatDuration(c.cfg.SessionTimeout), c.lock))
		c.session, c.node, c.deleting = 0, "", pendingDelete{}
		if c.cfg.Protected {
			c.state = lockChecking
		} else {
			c.state, c.wantLock = lockIdle, c.lock
		}
		return
	}
	out.Observe(sim.Note(c.env.ID, "%s: connection LOST (no reconnection within %s): it gives up %s and will start a new session",
		c.env.Name, sim.FormatDuration(c.cfg.SessionTimeout), c.lock))
	c.state, c.session, c.deleting = lockIdle, 0, pendingDelete{}
	c.forgetNode()
	c.rejoin(out)
}

// protectedPrefix starts a protected node's name: the session's id, so that
// only this session's node is found again, or (ProtectedGUID, CURATOR-604)
// the acquire's, which a new session finds too.
func (c *Client) protectedPrefix() string {
	if c.cfg.ProtectedGUID {
		return fmt.Sprintf("_c_%s-%d-lock-", c.env.Name, c.acquires)
	}
	return fmt.Sprintf("lock-%x-", c.session)
}

// forgetNode: the session that made the client's node is gone. The client
// forgets the node, unless it makes mistake CURATOR-696 (KeepOldPath), a
// latch that keeps the path to check its leadership with once it has a new
// session.
func (c *Client) forgetNode() {
	if !c.keepsOldPath() {
		c.node = ""
	}
}

// keepsOldPath: the client makes mistake CURATOR-696, and is a latch.
func (c *Client) keepsOldPath() bool { return c.cfg.KeepOldPath && c.cfg.Rejoin }

// rejoin: a LeaderLatch participant whose session is gone takes part again
// with a new node once it has a new session (LeaderLatch.reset), or, with
// mistake CURATOR-696 (KeepOldPath), with the old node's path.
func (c *Client) rejoin(out *sim.Outputs) {
	if !c.cfg.Rejoin || !c.joined {
		return
	}
	if c.keepsOldPath() && c.node != "" {
		out.Observe(sim.Note(c.env.ID, "%s rejoins the election for %s with its old path %s once it has a new session (CURATOR-696)", c.env.Name, c.lock, c.node))
		c.tries.Begin(out, c.lock, "")
		c.wantLock = c.lock
		return
	}
	out.Observe(sim.Note(c.env.ID, "%s rejoins the election for %s with a new node once it has a new session", c.env.Name, c.lock))
	c.tries.Begin(out, c.lock, "")
	c.wantLock = c.lock
}

// expired: the ensemble says the session is gone, and with it the lock node.
func (c *Client) expired(now sim.LocalTime, out *sim.Outputs) {
	out.Observe(sim.Note(c.env.ID, "%s learns that its session 0x%x has expired", c.env.Name, c.session))
	c.belief.End(out, c.env.ID, "session expired")
	if c.state != lockIdle && c.state != lockHolding {
		c.tries.GiveUp(out)
	}
	// The session's ephemeral nodes died with it: a delete still being resent
	// would now go out under the new session, and could remove a node of the
	// same name that someone else has since been given (unless the client
	// makes mistake 10, StaleDelete).
	if !c.cfg.StaleDelete {
		c.deleting = pendingDelete{}
	} else if c.deleting.path != "" {
		out.Observe(sim.Note(c.env.ID, "%s still means to delete %s, which died with its old session", c.env.Name, c.deleting.path))
	}
	c.state, c.session, c.suspended = lockIdle, 0, false
	c.forgetNode()
	out.CancelTimer(timerLost)
	c.rejoin(out)
	c.connect(now, out) // a new session for whatever comes next
}

// TimerName names the client's timers for the log.
func (c *Client) TimerName(id sim.TimerID) string {
	switch id {
	case timerPing:
		return "ping"
	case timerCheck:
		return "check the children"
	case timerReconnect:
		return "reconnect"
	case timerHold:
		return "work done"
	case timerRead:
		return "read timeout"
	case timerLost:
		return "connection LOST"
	}
	return ""
}

// BackgroundTimer: the ping keeps the session alive.
func (c *Client) BackgroundTimer(id sim.TimerID) bool { return id == timerPing }

// Describe is the client's state.
func (c *Client) Describe() string {
	s := fmt.Sprintf("session 0x%x via %s, %s", c.session, c.env.Names[c.srv()], lockNames[c.state])
	if c.lock != "" {
		s += " " + c.lock
	}
	if c.node != "" {
		s += " as " + c.node
	}
	return s
}
