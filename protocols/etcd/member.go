package etcd

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// Client requests and member replies, named after etcd's API.
const (
	OpGrant     = "LeaseGrant"     // ArgTTL
	OpKeepAlive = "LeaseKeepAlive" // ArgLease
	OpRevoke    = "LeaseRevoke"    // ArgLease
	OpTxn       = "Txn"            // Key: my key (the lock prefix, then my lease in hex), ArgLease
	OpRange     = "Range"          // Key: a key; with Opts LAST-CREATE a prefix, ArgMaxCreateRev
	OpDelete    = "DeleteRange"    // Key
	OpWatch     = "Watch"          // Key, ArgFromRev

	// Requests and replies carry their numbers without showing them
	// (sim.Message.Carrying): Value says the same in words.
	RepGranted = "GRANTED" // ArgLease, ArgLeaseTTL
	RepTTL     = "TTL"     // ArgLease, ArgLeaseTTL (0: the lease is gone)
	RepRevoked = "REVOKED"
	RepTxn     = "TXN"     // Key: my key, ArgMyRev, ArgOwnerRev
	RepRange   = "RANGE"   // Key: the key found (empty: none), ArgRevision, ArgCreateRev
	RepDeleted = "DELETED" // ArgRevision
	RepEvent   = "EVENT"   // a watch fired: Opts DELETE, ArgRevision: the deletion's
	RepError   = "ERROR"   // Value: what went wrong

	ErrNoLeader      = "etcdserver: no leader"
	ErrLeaseNotFound = "etcdserver: requested lease not found"
	// ErrLeaseTTLTooLarge answers a LeaseGrant above MaxLeaseTTL.
	ErrLeaseTTLTooLarge = "etcdserver: too large lease TTL"

	optLastCreate = "LAST-CREATE"

	// Service names the cluster's grants in observations.
	Service = "etcd"
)

// MaxLeaseTTL is the longest lease etcd grants (the lessor's MaxLeaseTTL,
// 9,000,000,000 s); a LeaseGrant above it is refused with ErrLeaseTTLTooLarge.
const MaxLeaseTTL = 9_000_000_000 * time.Second

// The numbers etcd messages carry (sim.Arg).
const (
	ArgTTL          = sim.ArgTTL // a LeaseGrant's TTL in ms
	ArgLease        = sim.Num1   // a lease id
	ArgLeaseTTL     = sim.Num2   // a lease's TTL in ms, as granted or renewed
	ArgMaxCreateRev = sim.Num1   // a LAST-CREATE Range: the newest create revision wanted
	ArgFromRev      = sim.Num1   // the revision a Watch starts from
	ArgMyRev        = sim.Num1   // TXN: the create revision of the caller's key
	ArgOwnerRev     = sim.Num2   // TXN: the create revision of the oldest key under the prefix
	ArgRevision     = sim.Num1   // the store's revision (RANGE, DELETED; EVENT: the deletion's)
	ArgCreateRev    = sim.Num2   // RANGE: the found key's create revision
)

// MemberConfig configures a member. CheckTimeouts says which timeouts etcd
// accepts.
type MemberConfig struct {
	Members         []sim.ProcID  // the cluster; the first leads a fresh cluster
	Heartbeat       time.Duration // leader heartbeats and lease checks (default 100 ms, etcd's)
	ElectionTimeout time.Duration // default 1 s, etcd's; randomised up to twice that
}

// maxElection is the longest election timeout etcd accepts.
const maxElection = 50 * time.Second

// CheckTimeouts is etcd's check of its --heartbeat-interval and
// --election-timeout flags at start (embed.Config.Validate), worded as etcd
// words it: etcd refuses to start with an election timeout under five
// heartbeats or over 50 s. Both are whole milliseconds in etcd's flags.
func CheckTimeouts(heartbeat, election time.Duration) error {
	hb, el := heartbeat.Milliseconds(), election.Milliseconds()
	switch {
	case heartbeat%time.Millisecond != 0 || election%time.Millisecond != 0:
		return fmt.Errorf("--heartbeat-interval and --election-timeout are whole milliseconds (set to %s and %s)",
			sim.FormatDuration(heartbeat), sim.FormatDuration(election))
	case hb <= 0:
		return fmt.Errorf("--heartbeat-interval must be >0 (set to %dms)", hb)
	case el <= 0:
		return fmt.Errorf("--election-timeout must be >0 (set to %dms)", el)
	case 5*hb > el:
		return fmt.Errorf("--election-timeout[%dms] should be at least as 5 times as --heartbeat-interval[%dms]", el, hb)
	case election > maxElection:
		return fmt.Errorf("--election-timeout[%dms] is too long, and should be set less than %dms", el, maxElection.Milliseconds())
	}
	return nil
}

// watcher is a client's watch on one key, from a revision on.
type watcher struct {
	client sim.ProcID
	from   int64
}

// Member is one etcd member: a Raft peer, a copy of the store, and (while it
// leads) the lessor. It runs its Raft core as the core's state machine:
// committed entries come back to it through applyEntry.
type Member struct {
	env    sim.Env
	cfg    MemberConfig
	raft   raft
	st     *store
	lessor lessor
	// watches are this member's, by key: they die with it.
	watches map[string][]watcher
}

// NewMember returns a constructor for a member with cfg.
func NewMember(cfg MemberConfig) func(sim.Env) sim.Process {
	if cfg.Heartbeat == 0 {
		cfg.Heartbeat = 100 * time.Millisecond
	}
	if cfg.ElectionTimeout == 0 {
		cfg.ElectionTimeout = time.Second
	}
	if err := CheckTimeouts(cfg.Heartbeat, cfg.ElectionTimeout); err != nil {
		panic("etcd: a member etcd would refuse to start: " + err.Error())
	}
	return func(env sim.Env) sim.Process {
		m := &Member{env: env, cfg: cfg, st: newStore(), watches: map[string][]watcher{}}
		m.raft = newRaft(raftConfig{ID: env.ID, Name: env.Name, Peers: cfg.Members, Heartbeat: cfg.Heartbeat,
			ElectionTimeout: cfg.ElectionTimeout, Rand: env.Rand}, m)
		return m
	}
}

// Step handles one input.
func (m *Member) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InRestart:
		if len(in.Disk) == 0 && m.env.Incarnation == 0 {
			m.raft.Bootstrap(now, out)
		} else {
			m.raft.Restart(now, in.Disk, out)
		}
	case sim.InTimer:
		m.raft.Tick(now, in.Timer, out)
		// The leader checks its leases on each heartbeat.
		if in.Timer == timerHeartbeat && m.raft.role == roleLeader {
			m.lessor.expire(m, now, out)
		}
	case sim.InMessage:
		if slices.Contains(m.cfg.Members, in.From) {
			m.peer(now, in.From, in.Msg, out)
		} else {
			m.client(now, in.From, in.Msg, out)
		}
	}
}

func (m *Member) peer(now sim.LocalTime, from sim.ProcID, msg sim.Message, out *sim.Outputs) {
	switch msg.Op {
	case opProp:
		m.raft.Propose(now, msg.Body.(*cmd), out)
	case opKeepAliveFwd:
		rep := sim.Message{Op: RepError, Value: ErrNoLeader}.With(ArgLease, msg.Num(ArgLease))
		if m.raft.role == roleLeader {
			rep = m.lessor.keepAlive(m, now, msg.Num(ArgLease))
		}
		out.Send(from, sim.Message{Op: opKeepAliveResp, Body: &keepAlive{Client: msg.Body.(*keepAlive).Client, Reply: rep}}.InBackground())
	case opKeepAliveResp:
		ka := msg.Body.(*keepAlive)
		out.Send(ka.Client, ka.Reply.InBackground())
	default:
		m.raft.Step(now, from, msg, out)
	}
}

// keepAlive is a keepalive a member forwards to the leader for its client, and
// the leader's answer on its way back.
type keepAlive struct {
	Client sim.ProcID
	Reply  sim.Message
}

func (k *keepAlive) String() string { return k.Reply.String() }

const (
	opProp          = "MsgProp" // a follower forwards a proposal to the leader
	opKeepAliveFwd  = "LeaseKeepAlive"
	opKeepAliveResp = "LeaseKeepAliveResponse"
)

// client serves one client request: keepalives go to the leader's lessor,
// watches stay here, everything else goes through the log.
func (m *Member) client(now sim.LocalTime, from sim.ProcID, msg sim.Message, out *sim.Outputs) {
	if msg.Op == OpWatch {
		m.watch(from, msg.Key, msg.Num(ArgFromRev), out)
		return
	}
	r := &m.raft
	if r.leader == sim.NoProc {
		out.Send(from, sim.Message{Op: RepError, ID: msg.ID, Value: ErrNoLeader})
		return
	}
	if msg.Op == OpKeepAlive {
		if r.role == roleLeader {
			out.Send(from, m.lessor.keepAlive(m, now, msg.Num(ArgLease)).InBackground())
			return
		}
		out.Send(r.leader, sim.Message{Op: opKeepAliveFwd, Body: &keepAlive{Client: from}}.With(ArgLease, msg.Num(ArgLease)).InBackground())
		return
	}
	c := &cmd{Client: from, Origin: m.env.ID, Req: msg.ID}
	switch msg.Op {
	case OpGrant:
		if msg.Num(ArgTTL) > MaxLeaseTTL.Milliseconds() {
			// The lessor refuses it as it applies the grant; nothing changes.
			out.Send(from, sim.Message{Op: RepError, ID: msg.ID, Value: ErrLeaseTTLTooLarge})
			return
		}
		c.Kind, c.TTL = cmdGrant, max(time.Duration(msg.Num(ArgTTL))*time.Millisecond, m.minTTL())
	case OpRevoke:
		c.Kind, c.Lease = cmdRevoke, msg.Num(ArgLease)
	case OpTxn:
		c.Kind, c.Key, c.Prefix, c.Lease = cmdLockTxn, msg.Key, msg.Key[:strings.LastIndexByte(msg.Key, '/')+1], msg.Num(ArgLease)
	case OpRange:
		c.Kind, c.Key = cmdGet, msg.Key
		if msg.Opts == optLastCreate {
			c.Kind, c.MaxRev = cmdGetPred, msg.Num(ArgMaxCreateRev)
		}
	case OpDelete:
		c.Kind, c.Key = cmdDelete, msg.Key
	default:
		return
	}
	if r.role == roleLeader {
		r.Propose(now, c, out)
		return
	}
	out.Send(r.leader, sim.Message{Op: opProp, Body: c})
}

// electionTimeout is the election timeout as etcd counts it, in whole
// heartbeat ticks (ElectionTicks = election-timeout / heartbeat-interval).
func (m *Member) electionTimeout() time.Duration {
	return m.cfg.ElectionTimeout / m.cfg.Heartbeat * m.cfg.Heartbeat
}

// minTTL is the shortest lease etcd grants (etcd's minLeaseTTL): 3/2 of the
// election ticks, in whole ticks, as time, rounded up to whole seconds. With
// heartbeat 300 ms and election 2100 ms that is 10 ticks, 3 s. A shorter lease
// could expire during a leader election, before any leader could renew it;
// etcd raises it silently.
func (m *Member) minTTL() time.Duration {
	ticks := int64(m.cfg.ElectionTimeout / m.cfg.Heartbeat)
	return (time.Duration(3*ticks/2)*m.cfg.Heartbeat + time.Second - 1).Truncate(time.Second)
}

// watch registers a watch for the deletion of key from revision from on; the
// first deletion this member already applied at or after from fires it at once
// (etcd's watch history). From 0 is etcd's "from now": no history. The watch
// is one-shot, as concurrency's waitDelete uses it: the first DELETE ends it.
func (m *Member) watch(client sim.ProcID, key string, from int64, out *sim.Outputs) {
	if from > 0 {
		for _, rev := range m.st.deleted[key] {
			if rev >= from {
				out.Send(client, deleteEvent(key, rev))
				return
			}
		}
	}
	w := watcher{client, from}
	if !slices.Contains(m.watches[key], w) { // a renewal of a watch it has
		m.watches[key] = append(m.watches[key], w)
	}
}

func deleteEvent(key string, rev int64) sim.Message {
	return sim.Message{Op: RepEvent, Key: key, Value: fmt.Sprintf("DELETE at revision %d", rev)}.Carrying(ArgRevision, rev)
}

// applyEntry applies one committed entry (the Raft core calls it): it answers
// the client if this member took the request, fires watches, and, on the
// leader, reports the lock grants the entry changed.
func (m *Member) applyEntry(now sim.LocalTime, e entry, replaying bool, out *sim.Outputs) {
	before := m.st.rev
	res := m.st.apply(e.Index, e.Cmd)
	changes := m.st.updateHolders()
	if e.Cmd != nil && e.Cmd.Kind == cmdGrant {
		m.lessor.granted(now, e.Index, e.Cmd.TTL)
	}
	if replaying {
		return
	}
	if res.ok && e.Cmd.Origin == m.env.ID {
		res.msg.ID = e.Cmd.Req
		out.Send(e.Cmd.Client, res.msg)
	}
	if m.st.rev != before {
		for _, k := range slices.Sorted(maps.Keys(m.watches)) {
			revs := m.st.deleted[k]
			if len(revs) == 0 || revs[len(revs)-1] <= before {
				continue
			}
			rev := revs[len(revs)-1]
			// A watch from a revision still to come waits for a deletion at or
			// after it.
			m.watches[k] = slices.DeleteFunc(m.watches[k], func(w watcher) bool {
				if rev < w.from {
					return false
				}
				out.Send(w.client, deleteEvent(k, rev))
				return true
			})
			if len(m.watches[k]) == 0 {
				delete(m.watches, k)
			}
		}
	}
	if m.raft.role == roleLeader {
		m.reportHolders(e, changes, out)
		// The lessor starts once the leader has applied an entry of its own
		// term, and with it every earlier term's (etcd's Promote): only then
		// does it know every lease.
		if !m.lessor.promoted && e.Term == m.raft.term {
			m.lessor.promote(m, now, out)
		}
	}
}

// roleChanged: a member that stops leading forgets its lease deadlines (the
// Raft core calls it).
func (m *Member) roleChanged(_ sim.LocalTime, from, _ role) {
	if from == roleLeader {
		m.lessor.demote()
	}
}

// reportHolders tells the checker how the entry changed each lock's owner.
func (m *Member) reportHolders(e entry, changes []holderChange, out *sim.Outputs) {
	lock := func(prefix string) string { return strings.TrimSuffix(prefix, "/") }
	for _, ch := range changes {
		if b := ch.before; b.key != "" {
			reason, by := sim.ReasonDeleted, m.env.ID
			switch {
			case e.Cmd.Kind == cmdRevoke && e.Cmd.Expired:
				reason = sim.ReasonExpired // the leader expired its lease
			case e.Cmd.Kind == cmdDelete, e.Cmd.Kind == cmdRevoke:
				// its key deleted or its lease revoked: by its owner, a release;
				// by another client, a deletion by that client
				by = e.Cmd.Client
				if by == b.owner {
					reason = sim.ReasonReleased
				}
			}
			out.Observe(sim.Observation{Kind: sim.ObsGrantEnd, Service: Service, Client: b.owner, By: by,
				Lock: lock(ch.prefix), Grant: b.key, Reason: reason, Seq: e.Index})
		}
		if a := ch.after; a.key != "" {
			out.Observe(sim.Observation{Kind: sim.ObsGrant, Service: Service, Client: a.owner, By: sim.NoProc,
				Lock: lock(ch.prefix), Grant: a.key, Token: a.create, HasToken: true, Seq: e.Index})
		}
	}
}

// TimerName names the member's timers for the log.
func (m *Member) TimerName(id sim.TimerID) string {
	switch id {
	case timerHeartbeat:
		return "heartbeat"
	case timerElection:
		return "election timeout"
	}
	return ""
}

// BackgroundTimer: the heartbeat keeps the leadership alive.
func (m *Member) BackgroundTimer(id sim.TimerID) bool { return id == timerHeartbeat }

// Describe is the member's state.
func (m *Member) Describe() string {
	r := &m.raft
	var b strings.Builder
	ld := "none"
	if r.leader != sim.NoProc {
		ld = m.env.Names[r.leader]
	}
	fmt.Fprintf(&b, "%s (term %d, leader %s), log %d, commit %d, revision %d;", roleNames[r.role], r.term, ld,
		r.lastIndex(), r.commit, m.st.rev)
	for _, id := range slices.Sorted(maps.Keys(m.st.leases)) {
		l := m.st.leases[id]
		fmt.Fprintf(&b, " lease %d of %s ttl %s", id, m.env.Names[l.client], sim.FormatDuration(l.ttl))
		if d, ok := m.lessor.expiry[id]; ok && r.role == roleLeader {
			fmt.Fprintf(&b, " (expires at %s)", sim.FormatDuration(d))
		}
		b.WriteString(";")
	}
	for _, k := range slices.Sorted(maps.Keys(m.st.keys)) {
		x := m.st.keys[k]
		fmt.Fprintf(&b, " %s(create %d, lease %d)", k, x.create, x.lease)
	}
	return b.String()
}
