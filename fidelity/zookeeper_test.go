package fidelity

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/protocols/zookeeper"
	"github.com/locksim/locksim/sim"
)

// ZooKeeper: sessions (the negotiated timeout, ephemeral nodes that go with a
// closed or expired session), sequential names, the order getChildren answers
// in, one-shot watches, delete's version check, and the lock recipe's queue
// across a leader's death in an ensemble of three. Sources: the ZooKeeper
// programmer's guide (sessions, ephemeral and sequential nodes, watches), the
// recipes page ("Locks") and the administrator's guide (tickTime,
// min/maxSessionTimeout, syncLimit).
//
// A config lists the servers, ";"-separated, each with an optional tick=
// (ZooKeeper's tickTime, default 2s). Script commands:
//
//	connect MS                  a new session asking for MS ms   -> connected, timeout 4000
//	create PATH [ephemeral] [sequential]                         -> created /L/lock-0000000000
//	delete PATH [VERSION]       (without VERSION, or -1: any)     -> deleted
//	children PATH [watch]       in the order the server answers   -> [lock-0000000001 lock-0000000000]
//	exists PATH [watch]                                           -> exists
//	close                       closeSession                      -> closed
//
// Errors read "error NONODE" (ZooKeeper's code names); a watch that fires
// reads "WATCH NodeDeleted /L/lock-0000000000". A connection pings every third
// of its session timeout until it closes; "close c1" drops it without a word,
// as a killed client does, so its session lives until it expires.

func init() {
	systems = append(systems, system{name: "zookeeper", cases: zkCases(), model: zkModel})
}

// zkServer is one server of a config.
type zkServer struct {
	name string
	tick time.Duration
}

func parseZKConfig(config string) ([]zkServer, error) {
	servers, err := parseConfig(config, "tick")
	var out []zkServer
	for _, s := range servers {
		z := zkServer{name: s.name}
		if z.tick, err = s.dur("tick", zookeeper.DefaultTick); err != nil {
			return nil, fmt.Errorf("config %q: %v", config, err)
		}
		out = append(out, z)
	}
	return out, err
}

// A zkRequest is a script command, parsed.
type zkRequest struct {
	verb, path            string
	ephemeral, sequential bool
	watch                 bool
	n                     int64 // connect: the timeout asked (ms); delete: the version (-1: any)
}

func parseZKCommand(cmd string) (zkRequest, error) {
	w := strings.Fields(cmd)
	bad := fmt.Errorf("%q: not a ZooKeeper script command (see zookeeper_test.go)", cmd)
	if len(w) == 0 {
		return zkRequest{}, bad
	}
	r := zkRequest{verb: w[0], n: -1}
	if len(w) > 1 {
		r.path = w[1]
	}
	var err error
	switch {
	case r.verb == "connect" && len(w) == 2:
		r.path = ""
		r.n, err = strconv.ParseInt(w[1], 10, 64)
	case r.verb == "close" && len(w) == 1:
	case r.verb == "create" && len(w) >= 2:
		for _, f := range w[2:] {
			switch f {
			case "ephemeral":
				r.ephemeral = true
			case "sequential":
				r.sequential = true
			default:
				return r, bad
			}
		}
	case r.verb == "delete" && (len(w) == 2 || len(w) == 3):
		if len(w) == 3 {
			r.n, err = strconv.ParseInt(w[2], 10, 64)
		}
	case (r.verb == "children" || r.verb == "exists") && (len(w) == 2 || len(w) == 3 && w[2] == "watch"):
		r.watch = len(w) == 3
	default:
		return r, bad
	}
	return r, err
}

func zkModel(c fcase, steps []step) (transcript, error) {
	servers, err := parseZKConfig(c.config)
	if err != nil {
		return nil, err
	}
	mw := newModelWorld()
	// The ensemble, the highest id first: a fresh real ensemble elects the
	// server with the highest id, and the model's first server leads at start.
	var ids []sim.ProcID
	for i := len(servers) - 1; i >= 0; i-- {
		ids = append(ids, sim.ProcID(i))
	}
	for _, s := range servers {
		mw.addServer(s.name, "zookeeper", zookeeper.NewServer(zookeeper.ServerConfig{Servers: ids, Tick: s.tick}))
	}
	mw.newConn = func(string) conn { return &zkConn{} }
	return mw.run(steps)
}

// zkConn is a client's connection to a model server: one request at a time,
// pings every third of the session timeout, and, when the server answers a
// ping with CONNECTIONLOSS (it lost its leader), a reconnect with the same
// session until it serves again, as ZooKeeper's client library does.
type zkConn struct {
	session int64
	timeout time.Duration
	reqID   uint64
	closed  bool
}

const (
	timerZKPing sim.TimerID = iota + 1
	timerZKReconnect
)

func (z *zkConn) do(d *driver, _ sim.LocalTime, cmd string, out *sim.Outputs) {
	r, err := parseZKCommand(cmd)
	if err != nil {
		d.answer(out, "error: "+err.Error())
		return
	}
	z.reqID++
	m := sim.Message{ID: z.reqID, Key: r.path}.With(zookeeper.ArgSession, z.session)
	switch r.verb {
	case "connect":
		m = sim.Message{Op: zookeeper.OpConnect, ID: z.reqID}.With(zookeeper.ArgSession, 0).With(zookeeper.ArgTimeout, r.n)
	case "create":
		var modes []string
		if r.ephemeral {
			modes = append(modes, "EPHEMERAL")
		}
		if r.sequential {
			modes = append(modes, "SEQUENTIAL")
		}
		m.Op, m.Opts = zookeeper.OpCreate, strings.Join(modes, " ")
	case "delete":
		m.Op = zookeeper.OpDelete
		if r.n != -1 { // -1 (or none): any version
			m = m.With(zookeeper.ArgVersion, r.n)
		}
	case "children", "exists":
		m.Op = zookeeper.OpGetChildren
		if r.verb == "exists" {
			m.Op = zookeeper.OpExists
		}
		if r.watch {
			m.Opts = "WATCH"
		}
	case "close":
		m.Op, z.closed = zookeeper.OpClose, true
		out.CancelTimer(timerZKPing)
	}
	out.Send(d.server, m)
}

func (z *zkConn) step(d *driver, _ sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch {
	case in.Kind == sim.InTimer && in.Timer == timerZKPing:
		out.Send(d.server, sim.Message{Op: zookeeper.OpPing}.With(zookeeper.ArgSession, z.session))
		out.SetTimer(timerZKPing, z.timeout/3)
		return
	case in.Kind == sim.InTimer && in.Timer == timerZKReconnect:
		out.Send(d.server, sim.Message{Op: zookeeper.OpConnect}.With(zookeeper.ArgSession, z.session).With(zookeeper.ArgTimeout, z.timeout.Milliseconds()))
		return
	case in.Kind != sim.InMessage || in.From != d.server:
		return
	}
	m := in.Msg
	switch {
	case m.Op == zookeeper.RepPong:
	case m.Op == zookeeper.RepWatch:
		d.event(out, "WATCH "+m.Opts+" "+m.Key)
	case m.ID == 0 && m.Op == zookeeper.RepError && m.Value == zookeeper.ErrConnLoss:
		out.SetTimer(timerZKReconnect, 100*time.Millisecond) // the server is not serving: try again
	case m.ID == 0 && m.Op == zookeeper.RepConnected:
		// reconnected with the same session
	case m.ID != z.reqID:
	case m.Op == zookeeper.RepConnected:
		z.session, z.timeout = m.Num(zookeeper.ArgSession), time.Duration(m.Num(zookeeper.ArgTimeout))*time.Millisecond
		out.SetTimer(timerZKPing, z.timeout/3)
		d.answer(out, fmt.Sprintf("connected, timeout %d", m.Num(zookeeper.ArgTimeout)))
	case m.Op == zookeeper.RepError:
		d.answer(out, "error "+m.Value)
	case m.Op == zookeeper.RepCreated:
		d.answer(out, "created "+m.Key)
	case m.Op == zookeeper.RepDeleted:
		d.answer(out, "deleted")
	case m.Op == zookeeper.RepStat:
		d.answer(out, "exists")
	case m.Op == zookeeper.RepClosed:
		d.answer(out, "closed")
	case m.Op == zookeeper.RepChildren:
		d.answer(out, m.Body.(fmt.Stringer).String())
	default:
		d.answer(out, "unexpected "+m.String())
	}
}

func zkCases() []fcase {
	return []fcase{
		// The server grants a session timeout within [2, 20] ticks.
		{name: "session-timeout-negotiation", config: "z1", script: `
c1> connect 1000
c2> connect 4000
c3> connect 10000
c4> connect 60000
c5> connect 3999`},
		{name: "session-timeout-negotiation-short-tick", config: "z1 tick=200ms", script: `
c1> connect 100
c2> connect 2000
c3> connect 4000
c4> connect 10000`},
		// Sequential names count the parent's creates (its cversion), deletes
		// do not move them; getChildren answers in the server's own order.
		{name: "sequential-names-and-order", config: "z1", script: zkManyChildren()},
		// The sequential counter is the parent's cversion: every child created
		// under it counts, sequential or not; a create refused NODEEXISTS does
		// not, nor does a delete (ZooKeeper 3.8's PrepRequestProcessor). A
		// plain child named like the next sequential one makes that create
		// fail, and the next one too, until some other child is created.
		{name: "sequence-counter-is-cversion", config: "z1", script: `
c1> connect 4000
c1> create /L
c1> create /L/lock-0000000001
c1> create /L/lock- ephemeral sequential
c1> create /L/lock- ephemeral sequential
c1> create /L/other
c1> create /L/lock- ephemeral sequential
c1> delete /L/other
c1> create /L/lock- sequential
c1> create /L/lock-0000000004 ephemeral
c1> create /L/lock- ephemeral sequential
c1> children /L`},
		{name: "ephemerals-go-with-a-closed-session", config: "z1", script: `
c1> connect 4000
c1> create /L
c1> create /L/lock- ephemeral sequential
c1> create /L/lock- ephemeral sequential
c1> create /L/keep sequential
c2> connect 4000
c2> exists /L/lock-0000000000 watch
c2> children /L watch
c1> close
c2> children /L
c2> exists /L/lock-0000000001
c2> exists /L/keep0000000002`,
			differs: []difference{{
				real:  "  c2: WATCH NodeChildrenChanged /L\n  c2: WATCH NodeDeleted /L/lock-0000000000\n",
				model: "  c2: WATCH NodeDeleted /L/lock-0000000000\n  c2: WATCH NodeChildrenChanged /L\n",
				why:   "zookeeper-close-order",
			}}},
		// A client that dies says nothing: its session lives on until the
		// leader's first whole tick past its timeout (4 to 6 s after its last
		// ping), then its ephemeral nodes go.
		{name: "ephemerals-go-with-an-expired-session", config: "z1", timing: true, script: `
c1> connect 4000
c1> create /L
c1> create /L/lock- ephemeral sequential
c2> connect 10000
c2> exists /L/lock-0000000000 watch
close c1
sleep 3500ms
c2> exists /L/lock-0000000000
sleep 3000ms
c2> exists /L/lock-0000000000
c2> children /L`},
		// A watch fires once; to hear of the next change a client sets it again.
		{name: "one-shot-watches", config: "z1", script: `
c1> connect 4000
c2> connect 4000
c2> exists /w watch
c1> create /w
c1> delete /w
c2> exists /w watch
c2> exists /w watch
c1> create /w
c2> children /w watch
c1> create /w/a
c1> create /w/b
c2> children /w watch
c1> delete /w/a
c2> exists /w/b watch
c2> children /w watch
c1> delete /w/b
c1> delete /w`},
		// Watches in each of their forms: a child watch is set only on a node
		// that exists (getChildren on a missing node sets none, where exists
		// does); a data watch (exists) is not fired by a child; a child watch
		// on a node that is deleted fires NodeDeleted; a session with both
		// watches on a deleted node hears once; two sessions watching one
		// path both hear.
		{name: "watch-forms", config: "z1", script: `
c1> connect 4000
c2> connect 4000
c3> connect 4000
c2> children /m watch
c1> create /m
c1> create /m/a
c1> create /w
c2> exists /w watch
c2> children /w watch
c1> create /w/a
c1> delete /w/a
c2> children /w watch
c1> delete /w
c2> children /m watch
c2> exists /m/a watch
c1> delete /m/a
c2> exists /x watch
c3> exists /x watch
c1> create /x
c2> children /m watch
c3> exists /m watch
c1> delete /m`},
		// delete's version: -1 is any version; any other version must be the
		// node's (0 for a node never written); a missing node is NONODE
		// whatever the version.
		{name: "delete-versions", config: "z1", script: `
c1> connect 4000
c1> create /v
c1> delete /v -1
c1> create /v
c1> delete /v 1
c1> delete /v -2
c1> delete /v 0
c1> delete /v -1
c1> delete /v 0`},
		// The create modes: persistent, ephemeral, persistent and ephemeral
		// sequential (a path ending in "/" too); no child under an ephemeral
		// node; closing the session takes only its ephemeral nodes, and the
		// counter goes on from the parent's cversion.
		{name: "create-modes", config: "z1", script: `
c1> connect 4000
c1> create /p
c1> create /p/persistent
c1> create /p/eph ephemeral
c1> create /p/eph/child
c1> create /p/eph/child- ephemeral sequential
c1> create /p/seq- sequential
c1> create /p/ sequential
c1> create /p/seq- ephemeral sequential
c2> connect 4000
c2> children /p
c1> close
c2> children /p
c2> exists /p/eph
c2> create /p/x- sequential
c2> children /p`},
		// A parent deleted and created again is a new node: its counter starts
		// again at 0, and the names are issued a second time (the lesson of
		// container lock nodes, lock-nodes=container).
		{name: "sequence-restarts-with-a-new-parent", config: "z1", script: `
c1> connect 4000
c1> create /q
c1> create /q/a- sequential
c1> create /q/a- ephemeral sequential
c1> delete /q/a-0000000000
c1> delete /q/a-0000000001
c1> delete /q
c1> create /q
c1> create /q/a- ephemeral sequential
c1> children /q`},
		// Reads and watches at the followers of an ensemble of three: writes
		// made through one server are read, and fire the watches set, at
		// another.
		{name: "ensemble-reads-and-watches", config: "z1; z2; z3", script: `
c1@z1> connect 4000
c2@z2> connect 4000
c3@z3> connect 4000
c2@z2> exists /r watch
c1@z1> create /r
c2@z2> children /r watch
c3@z3> create /r/lock- ephemeral sequential
c1@z1> create /r/lock- ephemeral sequential
c2@z2> children /r
c1@z1> exists /r/lock-0000000000 watch
c3@z3> delete /r/lock-0000000000 0
c2@z2> exists /r/lock-0000000000
c1@z1> children /r`},
		{name: "errors", config: "z1", script: `
c1> connect 4000
c1> create /L
c1> create /L
c1> create /L/a ephemeral
c1> delete /L/a 3
c1> delete /L
c1> delete /L/a 0
c1> delete /L/a
c1> exists /L/a
c1> children /M
c1> create /M/x ephemeral sequential`,
			differs: []difference{{
				real:  "c1> create /M/x ephemeral sequential\n  c1: error NONODE\n",
				model: "c1> create /M/x ephemeral sequential\n  c1: created /M/x0000000000\n",
				why:   "zookeeper-lock-node",
			}}},
		// The recipe: each waiter watches its predecessor, so a release wakes
		// only the next in line; the list they read is not in order.
		{name: "lock-recipe-queue", config: "z1", script: `
c1> connect 4000
c1> create /L
c1> create /L/lock- ephemeral sequential
c2> connect 4000
c2> create /L/lock- ephemeral sequential
c3> connect 4000
c3> create /L/lock- ephemeral sequential
c3> children /L
c2> exists /L/lock-0000000000 watch
c3> exists /L/lock-0000000001 watch
c1> delete /L/lock-0000000000 0
c2> children /L
c2> delete /L/lock-0000000001 0
c3> children /L`},
		// The leader dies while c1 holds the lock and c2 waits: the survivors
		// elect a new leader, the clients reconnect with their sessions, and
		// the queue is intact. Real followers notice a dead leader's closed
		// connection at once; the model's only by its silence, after syncLimit
		// (5 ticks, 10 s): the script waits for both.
		{name: "leader-failover", config: "z1; z2; z3", timing: true, script: `
c1@z1> connect 20000
c1@z1> create /L
c1@z1> create /L/lock- ephemeral sequential
c2@z2> connect 20000
c2@z2> create /L/lock- ephemeral sequential
c2@z2> exists /L/lock-0000000000 watch
crash z3
sleep 13s
c1@z1> children /L
c2@z2> exists /L/lock-0000000000
c1@z1> delete /L/lock-0000000000 0
c2@z2> children /L`},
	}
}

// zkManyChildren creates twelve sequential children (the HashSet holding them
// grows from 8 slots to 16), deletes two and creates two more, listing the
// children as the server orders them after each phase.
func zkManyChildren() string {
	var b strings.Builder
	b.WriteString("c1> connect 4000\nc1> create /L\n")
	for range 12 {
		b.WriteString("c1> create /L/lock- ephemeral sequential\n")
	}
	b.WriteString("c1> children /L\nc1> delete /L/lock-0000000003\nc1> delete /L/lock-0000000007\nc1> children /L\n")
	b.WriteString("c1> create /L/lock- ephemeral sequential\nc1> create /L/lock- ephemeral sequential\nc1> children /L\n")
	return b.String()
}
