package zookeeper_test

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/resource"
	"github.com/locksim/locksim/protocols/zookeeper"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
)

// The published mistakes of ZooKeeper lock clients (issue 19, mistakes 8-11),
// each told a second way: other timings and other faults than its catalogue
// scenario's, so that the model is right for the story and not for one
// phrasing. Sources are in docs/protocols/zookeeper.md, "Common mistakes".

// story is a small world: an ensemble of n servers (ticking every second, so
// that sessions of 3 s are granted as asked), clients, and a resource db.
type story struct {
	w       *sim.World
	servers []sim.ProcID
	procs   map[string]sim.ProcID
}

func newStory(n int, containers bool) *story {
	s := &story{w: sim.NewWorld(sim.Config{Seed: 7}), procs: map[string]sim.ProcID{}}
	for i := range n {
		s.servers = append(s.servers, sim.ProcID(i))
	}
	for i := range n {
		name := "z" + string(rune('1'+i))
		s.procs[name] = s.w.AddProcess(name, "zookeeper", sim.Clock{}, zookeeper.NewServer(zookeeper.ServerConfig{
			Servers: s.servers, Tick: time.Second, Containers: containers, ContainerCheck: time.Second}))
	}
	s.w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	return s
}

// client adds a client connected first to server first (0-based).
func (s *story) client(name string, first int, cfg zookeeper.ClientConfig) {
	for i := range s.servers {
		cfg.Servers = append(cfg.Servers, s.servers[(first+i)%len(s.servers)])
	}
	cfg.SessionTimeout = 3 * time.Second
	s.procs[name] = s.w.AddProcess(name, "client", sim.Clock{}, zookeeper.NewClient(cfg))
}

func (s *story) resource() {
	s.procs["db"] = s.w.AddProcess("db", "resource", sim.Clock{}, resource.New(resource.Config{}))
}

func (s *story) cmd(at time.Duration, proc, op, key string) {
	s.w.Schedule(sim.Time(at), sim.Action{Kind: sim.ActCommand, Proc: s.procs[proc], Msg: sim.Message{Op: op, Key: key}})
}

func (s *story) act(at time.Duration, a sim.Action) { s.w.Schedule(sim.Time(at), a) }

func (s *story) cut(at time.Duration, proc string) {
	s.act(at, sim.Action{Kind: sim.ActPartition, A: []sim.ProcID{s.procs[proc]}, B: s.servers})
}

func (s *story) run(until time.Duration) (*sim.Trace, check.Report) {
	s.act(until, sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	tr := s.w.Run()
	return tr, check.Check(tr, check.Options{Bound: 10 * time.Second})
}

func holds(rep check.Report, inv string) bool {
	r, _ := rep.Result(inv)
	return r.Holds()
}

// beliefStarts lists when client proc came to believe it holds a lock.
func beliefStarts(tr *sim.Trace, proc sim.ProcID) []sim.Time {
	var at []sim.Time
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsBeliefStart && o.Client == proc {
			at = append(at, o.At)
		}
	}
	return at
}

// Mistake 8, told with a session expiry instead of a give-up: c1 holds; c2,
// waiting behind it, pauses past its session, and its node is deleted; c3's
// watch on it fires. A client that trusts the watch holds beside c1; the
// recipe reads the children, finds c1's node, and waits for it.
func TestAWatchOnAnExpiredPredecessorIsNotTheLock(t *testing.T) {
	for _, trust := range []bool{true, false} {
		s := newStory(1, false)
		for i, name := range []string{"c1", "c2", "c3"} {
			s.client(name, 0, zookeeper.ClientConfig{TrustWatch: trust})
			s.cmd(time.Duration(100*(i+1))*time.Millisecond, name, zookeeper.CmdAcquire, "L")
		}
		s.act(time.Second, sim.Action{Kind: sim.ActPause, Proc: s.procs["c2"], Dur: 9 * time.Second})
		s.cmd(8*time.Second, "c1", zookeeper.CmdRelease, "L")
		tr, rep := s.run(12 * time.Second)
		c3 := beliefStarts(tr, s.procs["c3"])
		if len(c3) == 0 {
			t.Fatalf("trust=%v: c3 never held the lock", trust)
		}
		if trust && (holds(rep, "mutex-belief") || c3[0] >= sim.Time(8*time.Second)) {
			t.Errorf("a client that trusts the watch should hold as soon as c2's session expires, beside c1: c3 held at %s, mutex-belief holds: %v", c3[0], holds(rep, "mutex-belief"))
		}
		if !trust && (!holds(rep, "mutex-belief") || c3[0] < sim.Time(8*time.Second)) {
			t.Errorf("the recipe should hold only after c1's release at 8s: c3 held at %s, mutex-belief holds: %v", c3[0], holds(rep, "mutex-belief"))
		}
		if !holds(rep, "grant-exclusive") {
			t.Errorf("trust=%v: the ensemble granted the lock twice; the mistake is the client's", trust)
		}
	}
}

// Mistake 9, told at the lock level with no fault at all: c1 takes and
// releases the lock; the empty container /L is deleted; c2 takes it under a
// new /L with the same name. A token read off the name repeats; the czxid
// does not.
func TestSequenceTokensRepeatAfterAContainerIsDeleted(t *testing.T) {
	for _, seq := range []bool{true, false} {
		s := newStory(3, true)
		s.client("c1", 0, zookeeper.ClientConfig{SequenceToken: seq, Fencing: !seq, Hold: 500 * time.Millisecond})
		s.client("c2", 1, zookeeper.ClientConfig{SequenceToken: seq, Fencing: !seq})
		s.cmd(100*time.Millisecond, "c1", zookeeper.CmdAcquire, "L")
		s.cmd(5*time.Second, "c2", zookeeper.CmdAcquire, "L")
		tr, rep := s.run(7 * time.Second)
		var grants []string
		for _, o := range tr.Observations() {
			if o.Kind == sim.ObsGrant {
				grants = append(grants, o.Grant)
			}
		}
		if len(grants) != 2 || grants[0] != grants[1] {
			t.Fatalf("seq=%v: grants %v, want the same name twice (the container's counter restarts)", seq, grants)
		}
		if got := holds(rep, "tokens-ordered"); got == seq {
			t.Errorf("seq=%v: tokens-ordered holds = %v, want %v", seq, got, !seq)
		}
	}
}

// Mistake 10, told on a one-server ensemble with no third client: c1
// releases while cut off; its session expires and /L goes; c2 takes the lock
// under the same name; when c1 reaches the server again, a client that still
// sends its old delete ends c2's grant, and c4, coming later, is granted the
// lock while c2 still believes.
func TestAStaleReleaseDeletesAReissuedName(t *testing.T) {
	for _, stale := range []bool{true, false} {
		s := newStory(1, true)
		for i, name := range []string{"c1", "c2", "c4"} {
			s.client(name, i, zookeeper.ClientConfig{StaleDelete: stale})
		}
		s.cmd(100*time.Millisecond, "c1", zookeeper.CmdAcquire, "L")
		s.cut(time.Second, "c1")
		s.cmd(1200*time.Millisecond, "c1", zookeeper.CmdRelease, "L")
		s.cmd(7*time.Second, "c2", zookeeper.CmdAcquire, "L")
		s.act(9*time.Second, sim.Action{Kind: sim.ActHeal})
		s.cmd(14*time.Second, "c4", zookeeper.CmdAcquire, "L")
		tr, rep := s.run(16 * time.Second)
		deletedByC1 := false
		for _, o := range tr.Observations() {
			if o.Kind == sim.ObsGrantEnd && o.Client == s.procs["c2"] && o.By == s.procs["c1"] {
				deletedByC1 = true
			}
		}
		if deletedByC1 != stale || holds(rep, "grant-exclusive") == stale || holds(rep, "mutex-belief") == stale {
			t.Errorf("stale=%v: c1 deleted c2's node: %v; grant-exclusive holds: %v; mutex-belief holds: %v",
				stale, deletedByC1, holds(rep, "grant-exclusive"), holds(rep, "mutex-belief"))
		}
	}
}

// crashUnderTheHolder: c1 (on z2) holds L and c2 (on z3) queues; z2, a
// follower, crashes at 1 s and stays down; c1 releases at the given time. (The
// server is a follower: the leader z1 stays, and confirms c1's session when
// c1 reconnects to z3. A follower whose leader has died confirms nothing until
// a new leader is elected, which the model's followers notice only by its
// silence, after five ticks: past c1's session of three.)
func crashUnderTheHolder(cfg zookeeper.ClientConfig, release time.Duration) *story {
	s := newStory(3, false)
	s.client("c1", 1, cfg)
	s.client("c2", 2, cfg)
	s.cmd(100*time.Millisecond, "c1", zookeeper.CmdAcquire, "L")
	s.cmd(300*time.Millisecond, "c2", zookeeper.CmdAcquire, "L")
	s.act(time.Second, sim.Action{Kind: sim.ActCrash, Proc: s.procs["z2"]})
	s.cmd(release, "c1", zookeeper.CmdRelease, "L")
	return s
}

// Mistake 11, the other way out of SUSPENDED: c1's server crashes and stays
// down; c1 stops work when its connection is SUSPENDED, reconnects to another
// server within its session (RECONNECTED), finds its node still the lowest and
// holds again. c2 waits throughout; the lock is never held twice.
func TestAReconnectedHolderChecksItsNodeAndHoldsAgain(t *testing.T) {
	s := crashUnderTheHolder(zookeeper.ClientConfig{StopOnSuspend: true}, 10*time.Second)
	tr, rep := s.run(12 * time.Second)
	c1 := beliefStarts(tr, s.procs["c1"])
	if len(c1) != 2 {
		t.Fatalf("c1 came to hold %d times (at %v), want 2: before the crash, and after RECONNECTED", len(c1), c1)
	}
	var suspended, lost bool
	for _, o := range tr.Observations() {
		suspended = suspended || o.Kind == sim.ObsNote && strings.Contains(o.Text, "c1 is SUSPENDED")
		lost = lost || o.Kind == sim.ObsNote && strings.Contains(o.Text, "connection LOST")
	}
	if !suspended || lost {
		t.Errorf("c1 suspended: %v, lost: %v; want SUSPENDED then RECONNECTED, never LOST", suspended, lost)
	}
	if c2 := beliefStarts(tr, s.procs["c2"]); len(c2) != 1 || c2[0] < sim.Time(10*time.Second) || !holds(rep, "mutex-belief") {
		t.Errorf("c2 held at %v (want once, after c1's release at 10s); mutex-belief holds: %v", c2, holds(rep, "mutex-belief"))
	}
}

// Curator's historical defect (CURATOR-486, CURATOR-678), told with a crash
// of the holder's server instead of a partition: the release's delete goes to
// a server that has just died. A release that forgets the node leaves it to
// c1's live session for ever; the guaranteed delete sends it again to the
// next server.
func TestAReleaseLostWithItsServer(t *testing.T) {
	for _, once := range []bool{true, false} {
		s := crashUnderTheHolder(zookeeper.ClientConfig{ReleaseOnce: once}, time.Second)
		tr, rep := s.run(20 * time.Second)
		got := len(beliefStarts(tr, s.procs["c2"])) > 0
		if got == once || holds(rep, "progress") == once {
			t.Errorf("once=%v: c2 acquired: %v; progress holds: %v", once, got, holds(rep, "progress"))
		}
	}
}

// Curator's LeaderLatch, told on one server: c1 leads and is cut off past its
// session; it stops leading at SUSPENDED, c2 leads, and c1, its session LOST,
// rejoins with a new node when the partition heals; it leads again when c2
// closes. Told again with c1 closing its latch while it waits to rejoin: it
// never takes part again.
func TestALeaderLatchRejoinsWithANewNode(t *testing.T) {
	for _, closeEarly := range []bool{false, true} {
		s := newStory(1, false)
		for _, name := range []string{"c1", "c2"} {
			s.client(name, 0, zookeeper.ClientConfig{StopOnSuspend: true, Rejoin: true})
		}
		s.cmd(100*time.Millisecond, "c1", zookeeper.CmdAcquire, "L")
		s.cmd(200*time.Millisecond, "c2", zookeeper.CmdAcquire, "L")
		s.cut(time.Second, "c1")
		if closeEarly { // after LOST (about 6 s), before the heal
			s.cmd(8*time.Second, "c1", zookeeper.CmdRelease, "L")
		}
		s.act(10*time.Second, sim.Action{Kind: sim.ActHeal})
		s.cmd(13*time.Second, "c2", zookeeper.CmdRelease, "L")
		tr, rep := s.run(16 * time.Second)
		var c1Nodes []string
		for _, o := range tr.Observations() {
			if o.Kind == sim.ObsBeliefStart && o.Client == s.procs["c1"] {
				c1Nodes = append(c1Nodes, o.Grant)
			}
		}
		switch {
		case !closeEarly && (len(c1Nodes) != 2 || c1Nodes[0] == c1Nodes[1]):
			t.Errorf("c1 led as %v, want twice, with two nodes (it rejoined with a new one)", c1Nodes)
		case closeEarly && len(c1Nodes) != 1:
			t.Errorf("c1 closed its latch while it waited to rejoin, yet led as %v", c1Nodes)
		}
		if !holds(rep, "mutex-belief") || !holds(rep, "grant-exclusive") {
			t.Errorf("closeEarly=%v: mutex-belief holds: %v, grant-exclusive holds: %v", closeEarly, holds(rep, "mutex-belief"), holds(rep, "grant-exclusive"))
		}
	}
}
