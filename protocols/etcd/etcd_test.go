package etcd_test

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/etcd"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
)

// cluster is a test world: n members e1..eN (e1 leads at the start) and clients
// c1..cK, each talking first to the member its index picks.
type cluster struct {
	w       *sim.World
	members []sim.ProcID
	clients []sim.ProcID
}

func newCluster(n, clients int, cfg etcd.ClientConfig) *cluster {
	c := &cluster{w: sim.NewWorld(sim.Config{Seed: 7, Snapshots: true,
		Limits: sim.Limits{MaxEvents: 500_000, MaxTime: 30 * time.Second, MaxQueue: 10_000}})}
	for i := range n {
		c.members = append(c.members, sim.ProcID(i))
	}
	for i := range n {
		c.w.AddProcess(fmt.Sprintf("e%d", i+1), "etcd", sim.Clock{}, etcd.NewMember(etcd.MemberConfig{Members: c.members}))
	}
	for i := range clients {
		cc := cfg
		for j := range n {
			cc.Members = append(cc.Members, c.members[(i+j)%n])
		}
		c.clients = append(c.clients, c.w.AddProcess(fmt.Sprintf("c%d", i+1), "client", sim.Clock{}, etcd.NewClient(cc)))
	}
	c.w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	return c
}

func (c *cluster) cmd(at time.Duration, client int, op string) {
	c.w.Schedule(sim.Time(at), sim.Action{Kind: sim.ActCommand, Proc: c.clients[client], Msg: sim.Message{Op: op, Key: "L"}})
}

func (c *cluster) act(at time.Duration, a sim.Action) { c.w.Schedule(sim.Time(at), a) }

func obs(tr *sim.Trace, kind sim.ObsKind) []sim.Observation {
	var out []sim.Observation
	for _, o := range tr.Observations() {
		if o.Kind == kind {
			out = append(out, o)
		}
	}
	return out
}

// lastState is each process's last described state.
func lastState(tr *sim.Trace, name string) string {
	s := ""
	for i := range tr.Len() {
		e := tr.Event(i)
		if e.Proc >= 0 && tr.Names[e.Proc] == name {
			if st := tr.State(e); st != "" {
				s = st
			}
		}
	}
	return s
}

func mustHold(t *testing.T, tr *sim.Trace, invs ...string) {
	t.Helper()
	rep := check.Check(tr, check.Options{})
	for _, inv := range invs {
		if r, _ := rep.Result(inv); len(r.Violations) > 0 {
			t.Fatalf("%s violated at %s: %s", inv, r.Violations[0].At, r.Violations[0].Detail)
		}
	}
}

// --- the lock recipe (etcd client/v3/concurrency, Mutex.Lock and waitDeletes) ---

// Waiters queue in create-revision order: each holds after its predecessor
// releases, with a larger create revision (its fencing token) every time.
func TestWaitersHoldInCreateRevisionOrder(t *testing.T) {
	c := newCluster(3, 3, etcd.ClientConfig{Hold: time.Second, Fencing: true})
	for i := range 3 {
		c.cmd(time.Duration(100+100*i)*time.Millisecond, i, etcd.CmdAcquire)
	}
	tr := c.w.Run()
	b := obs(tr, sim.ObsBeliefStart)
	if len(b) != 3 {
		t.Fatalf("%d clients held the lock, want 3", len(b))
	}
	for i, o := range b {
		if tr.Names[o.Client] != fmt.Sprintf("c%d", i+1) {
			t.Errorf("holder %d is %s, want c%d", i+1, tr.Names[o.Client], i+1)
		}
		if i > 0 && o.Token <= b[i-1].Token {
			t.Errorf("token %d after %d: create revisions must grow", o.Token, b[i-1].Token)
		}
	}
	mustHold(t, tr, "mutex-belief", "grant-exclusive", "progress")
}

// A keepalive left unanswered in a session that then ends says nothing about
// the next session: its first keepalive is judged on its own. (Before
// lockkit.Keepalive the unanswered flag outlived the revoked lease, and the
// next session's first keepalive moved the client off a healthy member.)
func TestANewSessionForgetsTheLastOnesUnansweredKeepalive(t *testing.T) {
	c := newCluster(3, 1, etcd.ClientConfig{TTL: 3 * time.Second}) // a keepalive every second
	c.cmd(100*time.Millisecond, 0, etcd.CmdAcquire)
	// e1's answer to c1's first keepalive (at about 1.1 s) is lost.
	c.act(time.Second, sim.Action{Kind: sim.ActPartition, A: c.members[:1], B: c.clients, OneWay: true})
	c.act(1500*time.Millisecond, sim.Action{Kind: sim.ActHeal})
	c.cmd(1600*time.Millisecond, 0, etcd.CmdRelease)
	c.cmd(2500*time.Millisecond, 0, etcd.CmdAcquire)
	c.act(5*time.Second, sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	tr := c.w.Run()
	if n := len(obs(tr, sim.ObsBeliefStart)); n != 2 {
		t.Fatalf("c1 held the lock %d times, want 2", n)
	}
	for _, o := range obs(tr, sim.ObsNote) {
		if strings.Contains(o.Text, "it tries") {
			t.Errorf("at %s: %s; e1 answered every keepalive of the second session", o.At, o.Text)
		}
	}
}

// Unlock deletes the key; closing the session revokes the lease. The cluster
// reports the grant's end as a release by its owner.
func TestReleaseDeletesTheKeyAndRevokesTheLease(t *testing.T) {
	c := newCluster(3, 1, etcd.ClientConfig{})
	c.cmd(100*time.Millisecond, 0, etcd.CmdAcquire)
	c.cmd(time.Second, 0, etcd.CmdRelease)
	tr := c.w.Run()
	var sent []string
	for i := range tr.Len() {
		if x := tr.EventText(i); strings.HasPrefix(x, "send c1->") && !strings.Contains(x, "KeepAlive") {
			sent = append(sent, strings.Fields(x)[2])
		}
	}
	if want := "LeaseGrant Txn DeleteRange LeaseRevoke"; strings.Join(sent, " ") != want {
		t.Errorf("c1 sent %v, want %s", sent, want)
	}
	ends := obs(tr, sim.ObsGrantEnd)
	if len(ends) != 1 || ends[0].Reason != sim.ReasonReleased || ends[0].By != c.clients[0] {
		t.Fatalf("grant ends %+v, want one release by c1", ends)
	}
	if st := lastState(tr, "e1"); strings.Contains(st, "lease") || strings.Contains(st, "L/") {
		t.Errorf("the leader still has a lease or key after the release: %s", st)
	}
}

// intruder deletes the newest key under a prefix when commanded, as any etcd
// client may (etcdctl del): a Range for the last key created, then a
// DeleteRange of it.
type intruder struct{ member sim.ProcID }

func (x *intruder) Step(_ sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch {
	case in.Kind == sim.InCommand:
		out.Send(x.member, sim.Message{Op: etcd.OpRange, Key: in.Msg.Key, Opts: "LAST-CREATE"}.Carrying(etcd.ArgMaxCreateRev, 1<<40))
	case in.Kind == sim.InMessage && in.Msg.Op == etcd.RepRange && in.Msg.Key != "":
		out.Send(x.member, sim.Message{Op: etcd.OpDelete, Key: in.Msg.Key})
	}
}

func (x *intruder) Describe() string { return "" }

// Regression: a grant whose key another client deletes ends as deleted by that
// client (it was reported as deleted by the member). The owner's own delete is
// a release (TestReleaseDeletesTheKeyAndRevokesTheLease).
func TestAKeyDeletedByAnotherClientEndsTheGrantAsDeleted(t *testing.T) {
	c := newCluster(3, 1, etcd.ClientConfig{})
	x := c.w.AddProcess("x", "client", sim.Clock{}, func(sim.Env) sim.Process { return &intruder{member: c.members[0]} })
	c.cmd(100*time.Millisecond, 0, etcd.CmdAcquire)
	c.act(time.Second, sim.Action{Kind: sim.ActCommand, Proc: x, Msg: sim.Message{Key: "L/"}})
	tr := c.w.Run()
	ends := obs(tr, sim.ObsGrantEnd)
	if len(ends) != 1 || ends[0].Reason != sim.ReasonDeleted || ends[0].By != x || ends[0].Client != c.clients[0] {
		t.Fatalf("grant ends %+v, want c1's grant deleted by x", ends)
	}
}

// --- leases (etcd's lessor: the leader decides expiry, keepalive renews) ---

// Keepalives every TTL/3 hold a lease far beyond its TTL.
func TestKeepalivesHoldTheLease(t *testing.T) {
	c := newCluster(3, 1, etcd.ClientConfig{TTL: 2 * time.Second})
	c.cmd(100*time.Millisecond, 0, etcd.CmdAcquire)
	c.cmd(20*time.Second, 0, etcd.CmdRelease)
	tr := c.w.Run()
	for _, o := range obs(tr, sim.ObsGrantEnd) {
		if o.Reason != sim.ReasonReleased {
			t.Fatalf("the grant ended at %s (%s) although c1 kept its lease alive", o.At, o.Reason)
		}
	}
}

// Without keepalives the leader revokes the lease one TTL after the last
// renewal (to within its 100 ms check), deleting the key: the grant ends as
// expired, and the waiter holds next.
func TestLeaderRevokesALeaseOneTTLAfterItsLastRenewal(t *testing.T) {
	c := newCluster(3, 2, etcd.ClientConfig{TTL: 2 * time.Second})
	c.cmd(100*time.Millisecond, 0, etcd.CmdAcquire)
	c.cmd(200*time.Millisecond, 1, etcd.CmdAcquire)
	c.act(time.Second, sim.Action{Kind: sim.ActPause, Proc: c.clients[0], Dur: 10 * time.Second})
	tr := c.w.Run()
	renewed := sim.Time(-1)
	for i := range tr.Len() {
		e := tr.Event(i)
		x := tr.EventText(i)
		if e.At > sim.Time(time.Second) {
			break
		}
		// the leader's answers to c1's grant and keepalives
		if strings.HasPrefix(x, "send e1->c1 GRANTED") || strings.HasPrefix(x, "send e1->c1 TTL") {
			renewed = e.At
		}
	}
	var expired *sim.Observation
	for _, o := range obs(tr, sim.ObsGrantEnd) {
		if o.Reason == sim.ReasonExpired {
			expired = &o
			break
		}
	}
	if expired == nil || renewed < 0 {
		t.Fatalf("no expiry (last renewal %s)", renewed)
	}
	if d := time.Duration(expired.At - renewed); d < 2*time.Second || d > 2*time.Second+150*time.Millisecond {
		t.Errorf("the lease expired %s after its last renewal, want 2s (+ the leader's check and one commit)", d)
	}
	b := obs(tr, sim.ObsBeliefStart)
	if len(b) != 2 || b[1].At < expired.At {
		t.Errorf("c2 should hold after the expiry at %s: beliefs %+v", expired.At, b)
	}
}

// --- Raft (Ongaro and Ousterhout 2014, figure 2 and section 5.4) ---

// A committed write survives the leader's crash: the new leader has it, the
// lease lives on (a new leader's lessor gives it a fresh TTL), and the lock
// passes in order with growing revisions.
func TestCommittedStateSurvivesTheLeadersCrash(t *testing.T) {
	c := newCluster(3, 2, etcd.ClientConfig{TTL: 5 * time.Second})
	c.cmd(100*time.Millisecond, 0, etcd.CmdAcquire)
	c.act(time.Second, sim.Action{Kind: sim.ActCrash, Proc: c.members[0]})
	c.cmd(4*time.Second, 1, etcd.CmdAcquire)
	c.cmd(8*time.Second, 0, etcd.CmdRelease)
	c.cmd(12*time.Second, 1, etcd.CmdRelease)
	tr := c.w.Run()
	for _, o := range obs(tr, sim.ObsGrantEnd) {
		if o.Reason == sim.ReasonExpired {
			t.Errorf("a lease expired at %s across the leader change", o.At)
		}
	}
	b := obs(tr, sim.ObsBeliefStart)
	if len(b) != 2 || tr.Names[b[1].Client] != "c2" || b[1].At < sim.Time(8*time.Second) {
		t.Fatalf("want c1 then c2 (after c1's release at 8s), got %+v", b)
	}
	mustHold(t, tr, "mutex-belief", "grant-exclusive")
	if st := lastState(tr, "e2") + lastState(tr, "e3"); !strings.Contains(st, "leader (term 2") {
		t.Errorf("no member leads term 2: %s", st)
	}
}

var summary = regexp.MustCompile(`^\w+ \(term (\d+), leader \w+\), log (\d+), commit (\d+), revision (\d+)`)

// A leader cut off from the quorum steps down (CheckQuorum); what it appended
// alone is never committed, and once the partition heals it takes the
// majority's log: every member ends with the same log, commit and revision.
func TestAnIsolatedLeaderStepsDownAndConverges(t *testing.T) {
	c := newCluster(3, 2, etcd.ClientConfig{TTL: 5 * time.Second, Timeout: 10 * time.Second})
	c.act(500*time.Millisecond, sim.Action{Kind: sim.ActPartition, A: []sim.ProcID{c.members[0], c.clients[0]},
		B: []sim.ProcID{c.members[1], c.members[2], c.clients[1]}})
	c.cmd(600*time.Millisecond, 0, etcd.CmdAcquire) // reaches e1 alone
	c.cmd(4*time.Second, 1, etcd.CmdAcquire)        // the majority elects and serves c2
	c.act(8*time.Second, sim.Action{Kind: sim.ActHeal})
	c.cmd(12*time.Second, 1, etcd.CmdRelease)
	tr := c.w.Run()
	stepped := false
	for _, o := range obs(tr, sim.ObsNote) {
		stepped = stepped || strings.Contains(o.Text, "e1 hears from only 1 of 3 members: it steps down")
	}
	if !stepped {
		t.Error("the isolated leader did not step down")
	}
	var want []string
	for i, m := range []string{"e1", "e2", "e3"} {
		st := summary.FindStringSubmatch(lastState(tr, m))
		if st == nil {
			t.Fatalf("%s: unreadable state %q", m, lastState(tr, m))
		}
		if i == 0 {
			want = st[2:]
		} else if strings.Join(st[2:], " ") != strings.Join(want, " ") {
			t.Errorf("%s ends with log/commit/revision %v, e1 with %v", m, st[2:], want)
		}
	}
	mustHold(t, tr, "grant-exclusive")
}

// A member that crashes and restarts rebuilds its log from its disk and catches
// up: it ends level with the others.
func TestARestartedMemberRecoversFromItsDisk(t *testing.T) {
	c := newCluster(3, 1, etcd.ClientConfig{Hold: 2 * time.Second})
	c.cmd(100*time.Millisecond, 0, etcd.CmdAcquire)
	c.act(500*time.Millisecond, sim.Action{Kind: sim.ActCrash, Proc: c.members[2]})
	c.act(5*time.Second, sim.Action{Kind: sim.ActRestart, Proc: c.members[2]})
	tr := c.w.Run()
	e1 := summary.FindStringSubmatch(lastState(tr, "e1"))
	e3 := summary.FindStringSubmatch(lastState(tr, "e3"))
	if e1 == nil || e3 == nil || strings.Join(e1[2:], " ") != strings.Join(e3[2:], " ") {
		t.Fatalf("e3 did not catch up:\n e1 %s\n e3 %s", lastState(tr, "e1"), lastState(tr, "e3"))
	}
}
