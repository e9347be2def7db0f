package redis

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// Persistence is a node's durability policy, as the Redis persistence page lists them.
type Persistence uint8

const (
	PersistNone     Persistence = iota // nothing on disk: a restart starts empty
	PersistEverySec                    // AOF, fsync once a second by the node's clock
	PersistAlways                      // AOF, fsync before every reply
	PersistNoFsync                     // AOF, the OS decides when to flush
)

var persistNames = [...]string{PersistNone: "none", PersistEverySec: "everysec",
	PersistAlways: "always", PersistNoFsync: "no"}

func (p Persistence) String() string { return persistNames[p] }

// ParsePersistence reads a policy name.
func ParsePersistence(s string) (Persistence, bool) {
	for i, n := range persistNames {
		if n == s {
			return Persistence(i), true
		}
	}
	return 0, false
}

// PersistenceNames lists the policy names, for hints.
func PersistenceNames() []string { return persistNames[:] }

// NodeConfig configures a node.
type NodeConfig struct {
	Persistence Persistence
	// Service names the lock service in grant observations. Nodes that stand for one
	// service (a master and its replicas) share it; by default it is the node's name.
	Service string
	// Preload sets keys when the node first starts (a counter that has been
	// counting for a while, so tokens read 33 and 34 as in Kleppmann's figure).
	Preload map[string]string
	// Replica makes the node a replica of Master; by default it is a master.
	Replica bool
	Master  sim.ProcID
	// ReplLag is how long a master keeps a write before shipping it to its
	// replicas (0: at once, in the same step).
	ReplLag time.Duration
	// MonotonicExpiry makes the node expire keys by its monotonic clock, as
	// antirez proposes in "Is Redlock safe?" (2016), so that a step of the wall
	// clock (an operator's date, an NTP step) no longer expires a key early.
	// The default is Redis as it is: expiry by the wall clock.
	MonotonicExpiry bool
}

const (
	timerExpire sim.TimerID = iota + 1
	timerFsync
)

type entry struct {
	value    string
	expires  bool          // the key has a TTL
	expireAt time.Duration // on the node's expiry clock (wall, or monotonic): see Node.clock
	owner    sim.ProcID    // who set it (bookkeeping for observations)
	lock     bool          // set with NX: a lock grant
}

// Node is one Redis server.
type Node struct {
	env         sim.Env
	cfg         NodeConfig
	keys        map[string]entry
	zsets       map[string]map[string]zmember // sorted sets (zset.go), apart from keys
	master      sim.ProcID                    // the master followed, or NoProc for a master
	replicas    []replica
	backlog     []sim.Message
	replArmed   bool
	offset      int64                // writes shipped to replicas (a master)
	replOffset  int64                // writes applied from the stream (a replica)
	woff        map[sim.ProcID]int64 // the offset after each client's last command, which its WAIT waits for
	waits       []waiter
	expiryArmed bool
	expiryAt    time.Duration // the armed expiry timer's wall deadline
	fsyncArmed  bool
	now         sim.LocalTime // the clocks' reading at the current step
}

// NewNode returns a constructor for a node with cfg, for sim.World.AddProcess.
func NewNode(cfg NodeConfig) func(sim.Env) sim.Process {
	return func(env sim.Env) sim.Process {
		master := sim.NoProc
		if cfg.Replica {
			master = cfg.Master
		}
		if cfg.Service == "" {
			cfg.Service = env.Name
			if master != sim.NoProc {
				cfg.Service = env.Names[master] // one service: the master and its replicas
			}
		}
		return &Node{env: env, cfg: cfg, keys: map[string]entry{}, zsets: map[string]map[string]zmember{}, master: master,
			woff: map[sim.ProcID]int64{}}
	}
}

// Step handles one input.
func (n *Node) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	n.now = now
	switch in.Kind {
	case sim.InRestart:
		if n.env.Incarnation == 0 {
			for _, k := range slices.Sorted(maps.Keys(n.cfg.Preload)) {
				n.keys[k] = entry{value: n.cfg.Preload[k], owner: sim.NoProc}
				n.persist(k, n.keys[k], out)
			}
		}
		n.recover(now, in.Disk, out)
		if n.isReplica() {
			out.Send(n.master, sim.Message{Op: OpPSync})
			out.SetTimer(timerReplCron, replCronPeriod)
		}
	case sim.InCommand:
		if in.Msg.Op == CmdFailover {
			n.promote(out)
		}
	case sim.InShutdown:
		// SHUTDOWN flushes the AOF, so with persistence on every key survives a
		// clean stop, and its absolute expiry keeps counting while the node is
		// down. With persistence off there is nothing to save.
		if n.cfg.Persistence != PersistNone {
			out.Fsync()
		}
	case sim.InTimer:
		switch in.Timer {
		case timerExpire:
			n.expiryArmed = false
			for _, k := range n.sortedKeys() {
				n.expireIfDue(now, k, out)
			}
			n.armExpiry(out)
		case timerFsync:
			n.fsyncArmed = false
			out.Fsync()
		case timerRepl:
			n.ship(out)
		case timerWait:
			n.answerWaits(now, out)
		case timerReplCron:
			// replicationCron: a replica acknowledges once a second, unasked.
			if n.isReplica() {
				out.Send(n.master, sim.Message{Op: OpReplAck}.With(argOffset, n.replOffset).InBackground())
				out.SetTimer(timerReplCron, replCronPeriod)
			}
		}
	case sim.InMessage:
		if n.replication(now, in.From, in.Msg, out) {
			return
		}
		// Redis remembers the replication offset after each of a client's
		// commands (c->woff): its next WAIT waits for the replicas to reach it.
		if in.Msg.Op == OpWait {
			// WAIT's own offset is taken before it asks for acknowledgements.
			woff := n.woff[in.From]
			n.woff[in.From] = n.offset
			n.wait(now, in.From, woff, in.Msg, out)
			return
		}
		defer func() { n.woff[in.From] = n.offset }()
		var reply sim.Message
		if in.Msg.Op == CmdFailover {
			// A client (an operator, Sentinel) may send REPLICAOF NO ONE itself.
			n.promote(out)
			out.Send(in.From, sim.Message{Op: ReplyOK, ID: in.Msg.ID})
			return
		}
		if n.isReplica() && writes(in.Msg.Op) {
			reply = n.readOnly(now, in.From, in.Msg, out)
		} else {
			reply = n.command(now, in.From, in.Msg, out)
		}
		reply.ID = in.Msg.ID
		out.Send(in.From, reply)
	}
}

func (n *Node) command(now sim.LocalTime, from sim.ProcID, m sim.Message, out *sim.Outputs) sim.Message {
	if m.Op == OpDel && m.Opts != "" {
		// DEL key [key ...]: each key in turn, the count of those deleted (a
		// key named twice is deleted once).
		deleted := int64(0)
		for _, k := range append([]string{m.Key}, strings.Fields(m.Opts)...) {
			deleted += n.command(now, from, sim.Message{Op: OpDel, Key: k}, out).Num(ArgInt)
		}
		return intReply(deleted)
	}
	k := m.Key
	n.expireIfDue(now, k, out)
	e, exists := n.keys[k]
	_, isZSet := n.zsets[k]
	if isZSet {
		switch m.Op {
		case OpGet, OpIncr, OpGetSet:
			return errReply(ErrWrongType)
		case OpCAD:
			return scriptErr(errReply(ErrWrongType), ReleaseScript, 1) // the script's GET fails
		case OpCAX:
			return scriptErr(errReply(ErrWrongType), ExtendScript, 1)
		}
	}
	switch m.Op {
	case OpZAdd:
		_, claim := m.Body.(JobClaim)
		_, reset := m.Body.(JobReset)
		return n.zadd(from, k, m.Opts, zmark{claim: claim, reset: reset}, out)
	case OpZScore:
		return n.zscore(k, m.Opts)
	case OpSet:
		return n.set(now, from, m, out)
	case OpSetNX:
		if exists || isZSet {
			return intReply(0)
		}
		n.store(now, from, k, entry{value: m.Value, owner: from, lock: true}, out)
		return intReply(1)
	case OpExpire, OpPExpire:
		return n.expire(now, from, m, out)
	case OpPTTL:
		return n.pttl(now, k)
	case OpCAX:
		return n.extend(now, from, m, out)
	case OpGet:
		if !exists {
			return sim.Message{Op: ReplyNil}
		}
		return sim.Message{Op: ReplyBulk, Value: e.value}
	case OpGetSet:
		// The new value has no TTL (GETSET clears it, as SET does). The node
		// cannot tell a takeover from a loser's overwrite (only the stamp in
		// the reply can): the old SETNX page's clients report their own grants.
		reply := sim.Message{Op: ReplyNil}
		if exists {
			reply = sim.Message{Op: ReplyBulk, Value: e.value}
		}
		n.store(now, from, k, entry{value: m.Value, owner: from}, out)
		return reply
	case OpDel:
		if isZSet {
			n.zdel(from, k, out)
			return intReply(1)
		}
		if !exists {
			return intReply(0)
		}
		n.remove(from, k, e, ownerReason(from, e), out)
		return intReply(1)
	case OpCAD:
		if !exists || e.value != m.Value {
			return intReply(0)
		}
		n.remove(from, k, e, ownerReason(from, e), out)
		return intReply(1)
	case OpIncr:
		return n.incr(from, k, out)
	}
	return errReply(errNotModelled + m.Op)
}

// store sets a key (SET, SETNX). A key set with NX is a lock: the node reports
// its grant, with the key's TTL as the window. A key that replaces a lock ends
// the lock's grant.
func (n *Node) store(now sim.LocalTime, from sim.ProcID, k string, e entry, out *sim.Outputs) {
	if old, ok := n.keys[k]; ok && old.lock {
		out.Observe(sim.Observation{Kind: sim.ObsGrantEnd, Service: n.cfg.Service, Client: old.owner,
			By: from, Lock: k, Grant: old.value, Reason: ownerReason(from, old)})
	}
	n.keys[k] = e
	out.Observe(sim.Observation{Kind: sim.ObsStored, Client: from, By: sim.NoProc, Lock: k, Grant: e.value})
	if e.lock {
		var window time.Duration
		if e.expires {
			window = max(e.expireAt-n.clock(now), 0)
		}
		out.Observe(sim.Observation{Kind: sim.ObsGrant, Service: n.cfg.Service, Client: from,
			By: sim.NoProc, Lock: k, Grant: e.value, Window: window})
	}
	n.persist(k, e, out)
	n.armExpiry(out)
}

// setExpiry gives a key a new absolute expiry, ttl from now.
func (n *Node) setExpiry(by sim.ProcID, k string, e entry, at, ttl time.Duration, out *sim.Outputs) {
	e.expires, e.expireAt = true, at
	n.keys[k] = e
	switch {
	case e.lock && by == e.owner:
		// The owner changes its promise: the lock now ends ttl from here.
		out.Observe(sim.Observation{Kind: sim.ObsGrant, Service: n.cfg.Service, Client: e.owner,
			By: sim.NoProc, Lock: k, Grant: e.value, Window: ttl})
	case e.lock:
		// Someone else's EXPIRE changes the key under its owner: the key may now
		// expire early, but the service's promise to the owner stands.
		out.Observe(n.note("%s's %s changes the expiry of %s's key %s", n.env.Names[by], "EXPIRE", n.env.Names[e.owner], k))
	}
	n.persist(k, e, out)
	n.armExpiry(out)
}

func ownerReason(by sim.ProcID, e entry) string {
	if by == e.owner {
		return sim.ReasonReleased
	}
	return sim.ReasonDeleted
}

// remove deletes a key on a command and logs the deletion.
func (n *Node) remove(by sim.ProcID, k string, e entry, reason string, out *sim.Outputs) {
	n.drop(k, e, by, reason, out)
	n.replicate(sim.Message{Op: recDel, Key: k}, out)
	if n.cfg.Persistence != PersistNone {
		out.Write(sim.Message{Op: recDel, Key: k})
		n.syncPolicy(out)
	}
}

func (n *Node) drop(k string, e entry, by sim.ProcID, reason string, out *sim.Outputs) {
	delete(n.keys, k)
	defer n.armExpiry(out)
	out.Observe(sim.Observation{Kind: sim.ObsRemoved, Client: e.owner, By: by, Lock: k, Grant: e.value, Reason: reason})
	if e.lock {
		out.Observe(sim.Observation{Kind: sim.ObsGrantEnd, Service: n.cfg.Service, Client: e.owner,
			By: by, Lock: k, Grant: e.value, Reason: reason})
	}
}

func (n *Node) expireIfDue(now sim.LocalTime, k string, out *sim.Outputs) {
	if e, ok := n.keys[k]; ok && e.expires && n.clock(now) >= e.expireAt {
		n.drop(k, e, n.env.ID, sim.ReasonExpired, out)
	}
}

// armExpiry keeps one wall-clock timer at the earliest expiry. Redis expires keys
// lazily when touched and actively in a 10 Hz cycle, so a key is gone within about
// 100 ms of its expiry by the node's wall clock; the model removes it at that
// instant, which keeps the log readable and changes no verdict.
func (n *Node) armExpiry(out *sim.Outputs) {
	var first time.Duration
	any := false
	// order-free: the earliest deadline is the same whichever key comes first
	for _, e := range n.keys {
		if e.expires && (!any || e.expireAt < first) {
			first, any = e.expireAt, true
		}
	}
	if any == n.expiryArmed && (!any || first == n.expiryAt) {
		return
	}
	n.expiryArmed, n.expiryAt = any, first
	if !any {
		out.CancelTimer(timerExpire)
		return
	}
	if n.cfg.MonotonicExpiry {
		out.SetTimer(timerExpire, max(first-n.now.Mono, 0))
		return
	}
	out.SetWallTimer(timerExpire, first)
}

// clock is the node's expiry clock: the wall clock, as Redis expires keys, or
// the monotonic clock (MonotonicExpiry). Every expireAt is a reading of it.
func (n *Node) clock(now sim.LocalTime) time.Duration {
	if n.cfg.MonotonicExpiry {
		return now.Mono
	}
	return now.Wall
}

// fromWall reads an absolute wall-clock deadline (PXAT, a disk or replication
// record) on the node's expiry clock.
func (n *Node) fromWall(now sim.LocalTime, w time.Duration) time.Duration {
	if !n.cfg.MonotonicExpiry || w == math.MaxInt64 || w == math.MinInt64 {
		return w
	}
	return addSat(w-now.Wall, now.Mono)
}

// toWall is an expiry deadline as an absolute wall-clock time (for the disk and
// the replicas, which read absolute times as Redis writes them).
func (n *Node) toWall(now sim.LocalTime, at time.Duration) time.Duration {
	if !n.cfg.MonotonicExpiry || at == math.MaxInt64 || at == math.MinInt64 {
		return at
	}
	return addSat(at-now.Mono, now.Wall)
}

// BackgroundTimer reports the replica's once-a-second acknowledgement, which
// only says "alive, at offset N" (sim.BackgroundTimers); the ACK that answers
// a WAIT's GETACK is not background.
func (n *Node) BackgroundTimer(id sim.TimerID) bool { return id == timerReplCron }

// TimerName names the node's timers for the log.
func (n *Node) TimerName(id sim.TimerID) string {
	switch id {
	case timerExpire:
		return "key expiry"
	case timerFsync:
		return "fsync (everysec)"
	case timerRepl:
		return "ship writes to replicas"
	case timerWait:
		return "WAIT timeout"
	case timerReplCron:
		return "REPLCONF ACK (once a second)"
	}
	return ""
}

// persist hands a key's new state to the disk (per policy) and, on a master, to
// the replicas.
func (n *Node) persist(k string, e entry, out *sim.Outputs) {
	n.replicate(n.record(k, e), out)
	if n.cfg.Persistence == PersistNone {
		return
	}
	out.Write(n.record(k, e))
	n.syncPolicy(out)
}

// writes reports whether a command changes the dataset.
func writes(op string) bool {
	switch op {
	case OpGet, OpZScore, OpPTTL:
		return false
	}
	return true
}

// errReadOnly is a replica's answer to a write.
const errReadOnly = "READONLY You can't write against a read only replica."

// readOnly is a replica's answer to a command that may write: READONLY. A
// script runs on a replica until it reaches its write, so the release and
// extension scripts answer 0 for someone else's value (their GET reads), and
// fail at line 2, their DEL or PEXPIRE, for the caller's own.
func (n *Node) readOnly(now sim.LocalTime, from sim.ProcID, m sim.Message, out *sim.Outputs) sim.Message {
	script := ReleaseScript
	switch m.Op {
	case OpCAX:
		script = ExtendScript
	case OpCAD:
	default:
		return errReply(errReadOnly)
	}
	n.expireIfDue(now, m.Key, out)
	if _, isZSet := n.zsets[m.Key]; isZSet {
		return n.command(now, from, m, out) // the script's GET fails: WRONGTYPE
	}
	if e, ok := n.keys[m.Key]; !ok || e.value != m.Value {
		return intReply(0)
	}
	return scriptErr(errReply(errReadOnly), script, 2)
}

func (n *Node) syncPolicy(out *sim.Outputs) {
	switch n.cfg.Persistence {
	case PersistAlways:
		out.Fsync() // the kernel applies the fsync before the reply goes out
	case PersistEverySec:
		if !n.fsyncArmed {
			n.fsyncArmed = true
			out.SetTimer(timerFsync, time.Second)
		}
	}
}

func (n *Node) record(k string, e entry) sim.Message {
	r := sim.Message{Op: recSet, Key: k, Value: e.value}.With(argOwner, int64(e.owner))
	if e.expires {
		r = r.With(argExpireAt, int64(n.toWall(n.now, e.expireAt))) // PEXPIREAT: the absolute expiry
	}
	if e.lock {
		r.Opts = "NX"
	}
	return r
}

// recover rebuilds the dataset from the records that survived, dropping keys whose
// absolute expiry passed while the node was down.
func (n *Node) recover(now sim.LocalTime, disk []sim.Message, out *sim.Outputs) {
	for _, r := range disk {
		switch r.Op {
		case recSet:
			n.keys[r.Key] = entry{value: r.Value, expires: r.Has(argExpireAt), expireAt: n.fromWall(now, time.Duration(r.Num(argExpireAt))), owner: sim.ProcID(r.Num(argOwner)), lock: r.Opts == "NX"}
		case recDel:
			delete(n.keys, r.Key)
			delete(n.zsets, r.Key)
		case recZAdd:
			n.applyZRecord(r)
		}
	}
	if len(disk) == 0 {
		return
	}
	for _, k := range n.sortedKeys() {
		e := n.keys[k]
		if e.expires && n.clock(now) >= e.expireAt {
			delete(n.keys, k)
			continue
		}
		out.Observe(sim.Observation{Kind: sim.ObsStored, Client: e.owner, By: sim.NoProc, Lock: k, Grant: e.value,
			Reason: sim.ReasonRecovered})
	}
	n.zrecovered(out)
	out.Observe(sim.Observation{Kind: sim.ObsNote, Client: sim.NoProc, By: sim.NoProc,
		Text: fmt.Sprintf("%s recovered %d keys from %d disk records", n.env.Name, len(n.keys)+len(n.zsets), len(disk))})
	n.armExpiry(out)
}

func (n *Node) sortedKeys() []string { return slices.Sorted(maps.Keys(n.keys)) }

// Describe lists the keys with their values and expiry times.
func (n *Node) Describe() string {
	if len(n.keys) == 0 && len(n.zsets) == 0 {
		return "keys: (none)"
	}
	var b strings.Builder
	b.WriteString("keys:")
	for _, k := range n.sortedKeys() {
		e := n.keys[k]
		fmt.Fprintf(&b, " %s=%s", k, e.value)
		if e.expires {
			clock := "wall"
			if n.cfg.MonotonicExpiry {
				clock = "monotonic"
			}
			fmt.Fprintf(&b, " (expires at %s %s)", clock, sim.FormatDuration(e.expireAt))
		}
	}
	n.describeZSets(&b)
	return b.String()
}

func intReply(v int64) sim.Message { return sim.Message{Op: ReplyInt}.With(ArgInt, v) }
