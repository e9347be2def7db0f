package etcd

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// Tests of the Raft core on its own (Ongaro and Ousterhout, "In Search of an
// Understandable Consensus Algorithm", 2014; etcd's raft with CheckQuorum): no
// Member, no store, no lessor, no client. Each member of a test cluster is a
// node: the core and a state machine that records what the core hands it.
// Figure 3's properties are checked on every run: at most one leader per term
// (Election Safety), and no two members apply different entries at an index
// (State Machine Safety).

// raftCluster is a world of nodes e1..eN; e1 leads a fresh cluster.
type raftCluster struct {
	t     *testing.T
	w     *sim.World
	ids   []sim.ProcID
	nodes []*node // each member's latest incarnation
	// leaders lists who became leader in each term.
	leaders map[int64][]string
	// applied is the first entry any member applied at each index.
	applied map[int64]entry
}

// node runs one Raft core as a sim process, with a state machine that records
// what it is told.
type node struct {
	c       *raftCluster
	env     sim.Env
	r       raft
	applied []entry // in the order applied, replays included
	replays int     // how many of them were replays from disk
	roles   []roleChange
}

type roleChange struct {
	at       time.Duration // on the node's monotonic clock
	from, to role
	term     int64
}

func newRaftCluster(t *testing.T, n int, seed uint64, link sim.Link) *raftCluster {
	c := &raftCluster{t: t, leaders: map[int64][]string{}, applied: map[int64]entry{},
		w: sim.NewWorld(sim.Config{Seed: seed, Limits: sim.Limits{MaxEvents: 1_000_000, MaxTime: 20 * time.Second, MaxQueue: 100_000}})}
	for i := range n {
		c.ids = append(c.ids, sim.ProcID(i))
	}
	c.nodes = make([]*node, n)
	for i := range n {
		c.w.AddProcess(fmt.Sprintf("e%d", i+1), "raft", sim.Clock{}, func(env sim.Env) sim.Process {
			nd := &node{c: c, env: env}
			nd.r = newRaft(raftConfig{ID: env.ID, Name: env.Name, Peers: c.ids, Heartbeat: 100 * time.Millisecond,
				ElectionTimeout: time.Second, Rand: env.Rand}, nd)
			c.nodes[env.ID] = nd
			return nd
		})
	}
	c.w.Network().SetDefault(link)
	return c
}

func (n *node) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InRestart:
		if len(in.Disk) == 0 && n.env.Incarnation == 0 {
			n.r.Bootstrap(now, out)
		} else {
			n.r.Restart(now, in.Disk, out)
		}
	case sim.InTimer:
		n.r.Tick(now, in.Timer, out)
	case sim.InMessage:
		n.r.Step(now, in.From, in.Msg, out)
	case sim.InCommand: // a proposal: only a leader takes it
		n.r.Propose(now, &cmd{Kind: cmdGet, Key: in.Msg.Key}, out)
	}
}

func (n *node) Describe() string {
	return fmt.Sprintf("%s term %d, log %d, commit %d", n.r.role, n.r.term, n.r.lastIndex(), n.r.commit)
}

func (n *node) applyEntry(_ sim.LocalTime, e entry, replaying bool, _ *sim.Outputs) {
	n.applied = append(n.applied, e)
	if replaying {
		n.replays++
	}
	if first, ok := n.c.applied[e.Index]; !ok {
		n.c.applied[e.Index] = e
	} else if (entries{first}).String() != (entries{e}).String() {
		n.c.t.Errorf("State Machine Safety: %s applied %s at index %d, another member %s", n.env.Name,
			entries{e}, e.Index, entries{first})
	}
}

func (n *node) roleChanged(now sim.LocalTime, from, to role) {
	n.roles = append(n.roles, roleChange{now.Mono, from, to, n.r.term})
	if to == roleLeader {
		n.c.leaders[n.r.term] = append(n.c.leaders[n.r.term], n.env.Name)
	}
}

// propose commands members to propose the entry key at a time; only a leader
// takes it.
func (c *raftCluster) propose(at time.Duration, key string, to ...sim.ProcID) {
	if len(to) == 0 {
		to = c.ids
	}
	for _, p := range to {
		c.w.Schedule(sim.Time(at), sim.Action{Kind: sim.ActCommand, Proc: p, Msg: sim.Message{Op: "propose", Key: key}})
	}
}

func (c *raftCluster) act(at time.Duration, a sim.Action) { c.w.Schedule(sim.Time(at), a) }

// run runs the world and checks Election Safety.
func (c *raftCluster) run() *sim.Trace {
	tr := c.w.Run()
	for term, ls := range c.leaders {
		if len(ls) > 1 {
			c.t.Errorf("Election Safety: term %d had leaders %v", term, ls)
		}
	}
	return tr
}

// keys are the commands of applied entries, without the leaders' empty entries.
func keys(es []entry) []string {
	var out []string
	for _, e := range es {
		if e.Cmd != nil {
			out = append(out, e.Cmd.Key)
		}
	}
	return out
}

// leaderOf is who led the highest term that had a leader.
func (c *raftCluster) leaderOf() (string, int64) {
	var best int64
	for term := range c.leaders {
		best = max(best, term)
	}
	if best == 0 {
		return "", 0
	}
	return c.leaders[best][0], best
}

// sameLogs fails unless every member ends with the same log, all of it
// committed and applied: what a quiet end after the faults must bring.
func (c *raftCluster) sameLogs() {
	c.t.Helper()
	first := c.nodes[0]
	for _, n := range c.nodes {
		if n.r.commit != first.r.commit || entries(n.r.log).String() != entries(first.r.log).String() {
			c.t.Errorf("logs differ:\n %s commit %d %s\n %s commit %d %s", first.env.Name, first.r.commit, entries(first.r.log),
				n.env.Name, n.r.commit, entries(n.r.log))
		}
		if n.r.commit != n.r.lastIndex() || n.r.applied != n.r.commit {
			c.t.Errorf("%s: log %d, commit %d, applied %d: want all of it committed and applied", n.env.Name,
				n.r.lastIndex(), n.r.commit, n.r.applied)
		}
	}
}

var steady = sim.Link{Delay: time.Millisecond}

// --- Leader election (section 5.2) ---

// A fresh cluster starts with e1 leading term 1; when it crashes, the others
// hear nothing for an election timeout, one of them wins term 2 with a
// majority, and every entry e1 committed is still there (Leader Completeness).
func TestRaftElectsANewLeaderWhenTheLeaderCrashes(t *testing.T) {
	c := newRaftCluster(t, 3, 1, steady)
	c.propose(100*time.Millisecond, "x1")
	c.propose(200*time.Millisecond, "x2")
	c.act(time.Second, sim.Action{Kind: sim.ActCrash, Proc: c.ids[0]})
	c.propose(5*time.Second, "x3")
	c.run()
	if got := c.leaders[1]; !slices.Equal(got, []string{"e1"}) {
		t.Errorf("term 1's leader: %v, want e1", got)
	}
	name, term := c.leaderOf()
	if name == "e1" || term < 2 {
		t.Fatalf("after e1's crash the last leader is %s of term %d", name, term)
	}
	for _, n := range c.nodes[1:] {
		if got := keys(n.applied); !slices.Equal(got, []string{"x1", "x2", "x3"}) {
			t.Errorf("%s applied %v, want x1 x2 x3", n.env.Name, got)
		}
	}
	// Section 5.2: the others wait an election timeout, randomised in
	// [1s, 2s), from the last word of e1 (at most a heartbeat before its crash).
	for _, n := range c.nodes[1:] {
		for _, rc := range n.roles {
			if rc.to == roleCandidate && (rc.at < time.Second || rc.at > 3*time.Second) {
				t.Errorf("%s stood for election at %s, want within [1s, 3s)", n.env.Name, sim.FormatDuration(rc.at))
			}
		}
	}
}

// A member whose log is behind cannot win (section 5.4.1, the election
// restriction): e3 misses two committed entries while cut off; then e1
// crashes. e2 refuses e3 its vote, so only e2 can lead, and the entries
// survive.
func TestRaftVotesOnlyForAnUpToDateLog(t *testing.T) {
	c := newRaftCluster(t, 3, 2, steady)
	c.act(500*time.Millisecond, sim.Action{Kind: sim.ActPartition, A: c.ids[2:], B: c.ids[:2]})
	c.propose(600*time.Millisecond, "x1")
	c.propose(700*time.Millisecond, "x2")
	c.act(3*time.Second, sim.Action{Kind: sim.ActHeal})
	c.act(3*time.Second, sim.Action{Kind: sim.ActCrash, Proc: c.ids[0]})
	tr := c.run()
	stood := false
	for _, o := range tr.Observations() {
		stood = stood || (o.At > sim.Time(3*time.Second) && strings.HasPrefix(o.Text, "e3 heard from no leader"))
	}
	if !stood {
		t.Error("e3 never stood for election after the heal: the test shows nothing")
	}
	for term, ls := range c.leaders {
		if term > 1 && ls[0] != "e2" {
			t.Errorf("%s led term %d; only e2 has every committed entry", ls[0], term)
		}
	}
	if got := keys(c.nodes[2].applied); !slices.Equal(got, []string{"x1", "x2"}) {
		t.Errorf("e3 applied %v, want x1 x2 (from e2, once it leads)", got)
	}
}

// --- Log replication (section 5.3) ---

// Entries a leader proposes are applied by every member in the same order;
// and the leader's empty entry of each new term commits the entries before it.
func TestRaftEveryMemberAppliesTheSameEntriesInOrder(t *testing.T) {
	c := newRaftCluster(t, 5, 3, sim.Link{Delay: time.Millisecond, Jitter: 3 * time.Millisecond, Dist: sim.DelayUniform})
	var want []string
	for i := range 20 {
		k := fmt.Sprintf("x%d", i+1)
		want = append(want, k)
		c.propose(time.Duration(100+10*i)*time.Millisecond, k)
	}
	c.run()
	for _, n := range c.nodes {
		if got := keys(n.applied); !slices.Equal(got, want) {
			t.Errorf("%s applied %v, want %v", n.env.Name, got, want)
		}
		for i, e := range n.applied {
			if e.Index != int64(i+1) {
				t.Fatalf("%s applied index %d in position %d", n.env.Name, e.Index, i+1)
			}
		}
	}
	c.sameLogs()
}

// The Log Matching Property and State Machine Safety under a network that
// loses, duplicates and reorders messages, with crashes and partitions: after
// the faults heal, every member ends with the same log, and no two members
// ever applied different entries at one index (checked as they apply).
func TestRaftLogsMatchAfterLossCrashesAndPartitions(t *testing.T) {
	lossy := sim.Link{Delay: time.Millisecond, Jitter: 2 * time.Millisecond, Dist: sim.DelayUniform,
		Loss: 0.05, Dup: 0.05, Reorder: 0.05}
	for seed := range uint64(20) {
		c := newRaftCluster(t, 3, seed, lossy)
		for i := range 60 {
			c.propose(time.Duration(100+100*i)*time.Millisecond, fmt.Sprintf("x%d", i+1))
		}
		c.act(time.Second, sim.Action{Kind: sim.ActPartition, A: c.ids[:1], B: c.ids[1:]})
		c.act(3*time.Second, sim.Action{Kind: sim.ActHeal})
		c.act(4*time.Second, sim.Action{Kind: sim.ActCrash, Proc: c.ids[1]})
		c.act(5*time.Second, sim.Action{Kind: sim.ActRestart, Proc: c.ids[1]})
		c.act(6*time.Second, sim.Action{Kind: sim.ActPartition, A: c.ids[2:], B: c.ids[:2]})
		c.act(8*time.Second, sim.Action{Kind: sim.ActCrash, Proc: c.ids[0]})
		c.act(8500*time.Millisecond, sim.Action{Kind: sim.ActRestart, Proc: c.ids[0]})
		c.act(9*time.Second, sim.Action{Kind: sim.ActHeal})
		c.run() // 11 s of quiet after the last fault
		c.sameLogs()
		if c.nodes[0].r.commit < 20 { // the faults cost proposals, not all of them
			t.Errorf("seed %d: only %d entries committed of 60 proposed", seed, c.nodes[0].r.commit)
		}
		if t.Failed() {
			t.Fatalf("seed %d", seed)
		}
	}
}

// Figure 8 (section 5.4.2): a leader never commits an entry of an earlier
// term by counting replicas, only by committing an entry of its own term after
// it. The leader of term 4 holds 2@2 with e2 and e3, a majority of five: that
// commits nothing; once a majority holds its own 3@4, both commit, in order.
func TestRaftCommitsOnlyEntriesOfItsOwnTermByCounting(t *testing.T) {
	c := &raftCluster{t: t, leaders: map[int64][]string{}, applied: map[int64]entry{}}
	n := &node{c: c, env: sim.Env{ID: 0, Name: "e1"}}
	n.r = newRaft(raftConfig{ID: 0, Name: "e1", Peers: []sim.ProcID{0, 1, 2, 3, 4}, Heartbeat: 100 * time.Millisecond,
		ElectionTimeout: time.Second}, n)
	n.r.log = append(n.r.log, entry{Term: 1, Index: 1, Cmd: &cmd{Kind: cmdGet, Key: "x1"}},
		entry{Term: 2, Index: 2, Cmd: &cmd{Kind: cmdGet, Key: "x2"}})
	n.r.term = 4
	var out sim.Outputs // what the core sends is not looked at here
	n.r.becomeLeader(sim.LocalTime{}, &out)
	if n.r.lastIndex() != 3 || n.r.log[3].Term != 4 || n.r.log[3].Cmd != nil {
		t.Fatalf("a new leader appends an empty entry of its term: log %s", entries(n.r.log))
	}
	ack := func(from sim.ProcID, index int64) {
		n.r.Step(sim.LocalTime{}, from, sim.Message{Op: opAppResp, Body: &appResp{Term: 4, Index: index}}, &out)
	}
	ack(1, 2)
	ack(2, 2)
	if n.r.commit != 0 || len(n.applied) != 0 {
		t.Fatalf("2@2 is on 3 of 5 members, but of an earlier term: committed %d, applied %s", n.r.commit, entries(n.applied))
	}
	ack(1, 3)
	if n.r.commit != 0 {
		t.Fatalf("3@4 is on 2 of 5 members: committed %d", n.r.commit)
	}
	ack(2, 3)
	if n.r.commit != 3 || len(n.applied) != 3 || keys(n.applied)[1] != "x2" {
		t.Fatalf("3@4 is on 3 of 5 members: want 1..3 committed and applied in order, got commit %d, applied %s",
			n.r.commit, entries(n.applied))
	}
}

// --- CheckQuorum and the partitioned leader (etcd's raft; section 6.2 of
// Ongaro's thesis) ---

// A leader that hears from no quorum for an election timeout steps down
// (CheckQuorum), within a heartbeat of the timeout; the majority elects a
// leader of its own.
func TestRaftCheckQuorumStepsDownAnIsolatedLeader(t *testing.T) {
	c := newRaftCluster(t, 3, 4, steady)
	c.act(time.Second, sim.Action{Kind: sim.ActPartition, A: c.ids[:1], B: c.ids[1:]})
	c.run()
	var down time.Duration
	for _, rc := range c.nodes[0].roles {
		if rc.from == roleLeader {
			down = rc.at
			break
		}
	}
	// e1 last heard from both at about 1s - 100ms; it counts them out once
	// more than an election timeout has passed, at a heartbeat.
	if down < 1900*time.Millisecond || down > 2100*time.Millisecond+time.Millisecond {
		t.Errorf("e1 stepped down at %s, want about 2s (an election timeout after the cut, at a heartbeat)", sim.FormatDuration(down))
	}
	if name, term := c.leaderOf(); name == "e1" || term < 2 {
		t.Errorf("the majority's leader: %s of term %d", name, term)
	}
}

// A leader cut off with a minority takes proposals it can never commit; the
// majority elects a leader that commits its own. After the heal, the old
// leader's uncommitted entries are cut from its log (a conflicting suffix),
// nobody ever applied them, and every log is the majority's.
func TestRaftAPartitionedLeadersEntriesAreNeverApplied(t *testing.T) {
	c := newRaftCluster(t, 3, 5, steady)
	c.propose(100*time.Millisecond, "before")
	c.act(time.Second, sim.Action{Kind: sim.ActPartition, A: c.ids[:1], B: c.ids[1:]})
	c.propose(1200*time.Millisecond, "lost1", c.ids[0])
	c.propose(1300*time.Millisecond, "lost2", c.ids[0])
	c.propose(4*time.Second, "after", c.ids[1:]...)
	c.act(6*time.Second, sim.Action{Kind: sim.ActHeal})
	c.run()
	if n := c.nodes[0]; n.r.lastIndex() < 3 {
		t.Fatalf("e1's log %s: it never took the proposals", entries(n.r.log))
	}
	for _, n := range c.nodes {
		if got := keys(n.applied); !slices.Equal(got, []string{"before", "after"}) {
			t.Errorf("%s applied %v, want before, after", n.env.Name, got)
		}
		if strings.Contains(entries(n.r.log).String(), "lost") {
			t.Errorf("%s still logs the partitioned leader's entries: %s", n.env.Name, entries(n.r.log))
		}
	}
	c.sameLogs()
}

// --- Persistence (figure 2: term, vote and log are on stable storage) ---

// A member that restarts rebuilds its log from its disk and re-applies what it
// knew was committed, marked as replays; then it catches up with the rest.
func TestRaftARestartedMemberReplaysItsDiskAndCatchesUp(t *testing.T) {
	c := newRaftCluster(t, 3, 6, steady)
	c.propose(100*time.Millisecond, "x1")
	c.propose(200*time.Millisecond, "x2")
	c.act(time.Second, sim.Action{Kind: sim.ActCrash, Proc: c.ids[2]})
	c.propose(1500*time.Millisecond, "x3")
	c.act(2*time.Second, sim.Action{Kind: sim.ActRestart, Proc: c.ids[2]})
	c.run()
	e3 := c.nodes[2]
	if e3.env.Incarnation != 1 {
		t.Fatalf("e3's incarnation %d: it did not restart", e3.env.Incarnation)
	}
	// It knew x1 and x2 committed (with term 1's empty entry): 3 replays.
	if e3.replays != 3 || !slices.Equal(keys(e3.applied), []string{"x1", "x2", "x3"}) {
		t.Errorf("e3 replayed %d and applied %v, want 3 replays, then x1 x2 x3", e3.replays, keys(e3.applied))
	}
	c.sameLogs()
}
