package zookeeper

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// Tests of elections on their own (ZooKeeper's fast leader election, as the
// internals guide and Junqueira et al. 2011 describe it): the voter with the
// highest zxid, then the highest id, leads, in an epoch above every epoch its
// voters have seen; a leader that loses its quorum stops leading; one leader
// per epoch.

func zx(epoch, counter int64) int64 { return epoch<<32 | counter }

func TestElectionWinnerHasTheHighestZxidThenTheHighestID(t *testing.T) {
	servers := []sim.ProcID{0, 1, 2}
	for _, c := range []struct {
		name  string
		self  sim.ProcID
		votes map[sim.ProcID]int64
		want  sim.ProcID
	}{
		{"the highest zxid", 0, map[sim.ProcID]int64{0: zx(1, 5), 1: zx(1, 7), 2: zx(1, 6)}, 1},
		{"a later epoch beats a higher counter", 2, map[sim.ProcID]int64{0: zx(1, 9), 1: zx(2, 1), 2: zx(1, 8)}, 1},
		{"a tie goes to the highest id", 0, map[sim.ProcID]int64{0: zx(1, 3), 1: zx(1, 3)}, 1},
		{"the voter itself, by id", 2, map[sim.ProcID]int64{0: zx(1, 3), 2: zx(1, 3)}, 2},
		{"only voters count", 0, map[sim.ProcID]int64{0: zx(1, 3), 2: zx(1, 1)}, 0},
	} {
		if got := winner(servers, c.votes, c.self); got != c.want {
			t.Errorf("%s: winner z%d, want z%d", c.name, got+1, c.want+1)
		}
	}
	if got := newEpoch(2, map[sim.ProcID]int64{0: zx(1, 4), 1: zx(3, 1)}); got != 4 {
		t.Errorf("new epoch %d, want 4: above the highest epoch a voter has seen", got)
	}
	if got := newEpoch(5, map[sim.ProcID]int64{0: zx(1, 4)}); got != 6 {
		t.Errorf("new epoch %d, want 6: above the server's own", got)
	}
}

// When the leader crashes, the server with the most history leads even over
// a higher id: z3, cut off while a write committed, has less than z2, so z2
// leads epoch 2 and syncs z3 with the write it missed. With equal histories
// the highest id leads.
func TestElectionAfterTheLeadersCrashPicksTheMostHistory(t *testing.T) {
	for _, c := range []struct {
		name   string
		cutZ3  bool
		leader string
	}{{"z3 behind", true, "z2"}, {"equal histories", false, "z3"}} {
		t.Run(c.name, func(t *testing.T) {
			e := newEnsemble(3, ServerConfig{Tick: 100 * time.Millisecond})
			d := e.driver(0, 10*time.Second, time.Second)
			if c.cutZ3 {
				e.act(100*time.Millisecond, sim.Action{Kind: sim.ActPartition, A: e.servers[2:], B: e.servers[:2]})
				e.act(250*time.Millisecond, sim.Action{Kind: sim.ActHeal})
			}
			e.at(150*time.Millisecond, d, sim.Message{Op: OpCreate, Key: "/a"})
			e.act(time.Second, sim.Action{Kind: sim.ActCrash, Proc: e.servers[0]})
			tr := e.w.Run()
			led := notes(tr, "leads the ensemble (epoch 2")
			if len(led) != 1 || !strings.Contains(led[0], " "+c.leader+" leads") {
				t.Fatalf("epoch 2's leader: %q, want %s", led, c.leader)
			}
			if len(notes(tr, "leads the ensemble (epoch 3")) != 0 {
				t.Error("a second election after the first one settled")
			}
			sameData(t, tr, "z2", "z3")
			if !strings.Contains(data(tr, "z3"), "/a(czxid 0x100000002)") {
				t.Errorf("z3 lacks the committed /a: %s", lastState(tr, "z3"))
			}
		})
	}
}

// A leader cut off from the others stops leading at its next whole tick past
// the leader timeout (ZooKeeper's syncLimit); the others elect a leader of a
// new epoch, which the old leader follows once the partition heals. Each epoch
// has one leader.
func TestElectionALeaderWithoutAQuorumStopsLeading(t *testing.T) {
	e := newEnsemble(3, ServerConfig{Tick: 100 * time.Millisecond})
	e.act(time.Second, sim.Action{Kind: sim.ActPartition, A: e.servers[:1], B: e.servers[1:]})
	e.act(3*time.Second, sim.Action{Kind: sim.ActHeal})
	tr := e.w.Run()
	stopped := notes(tr, "z1 hears from only 1 of 3 servers: it stops leading")
	if len(stopped) != 1 {
		t.Fatalf("z1 stopped leading %d times: %q", len(stopped), stopped)
	}
	// It last heard from both at 0.952s (the answers to its ping at 0.95s);
	// the leader timeout is 5 ticks (500 ms), checked on whole ticks (every
	// 100 ms): at 1.4s it has not yet passed, at 1.5s it has.
	if at := stopped[0][:strings.Index(stopped[0], " ")]; at != "1.500s" {
		t.Errorf("z1 stopped leading at %s, want 1.500s, the whole tick after 1.452s", at)
	}
	epochs := map[string]string{}
	for _, n := range notes(tr, "leads the ensemble (epoch") {
		f := strings.Fields(n)
		leader, epoch := f[1], strings.TrimSuffix(f[6], ",")
		if other, ok := epochs[epoch]; ok && other != leader {
			t.Errorf("epoch %s led by %s and %s", epoch, other, leader)
		}
		epochs[epoch] = leader
	}
	if epochs["2"] == "" || epochs["2"] == "z1" {
		t.Errorf("epoch 2 should be led by z2 or z3: %v", epochs)
	}
	if !strings.HasPrefix(lastState(tr, "z1"), "following (epoch 2, leader "+epochs["2"]) {
		t.Errorf("after the heal z1 should follow epoch 2's leader: %s", lastState(tr, "z1"))
	}
}

// Regression: a leader elected on a stale vote must not impose its history on
// a server that has since logged more. z2 and z3 restart while z1, the leader
// of epoch 1, is cut off. They vote; z2's round ends with z3 the winner, so z2
// votes again, this time reaching z1, which syncs it: z2 follows z1 and
// acknowledges a write, which commits, and d1 is told so. Then z3's round
// ends: on z2's stale vote it leads epoch 2 with a history that lacks the
// write. z1 and z2 used to take that history, and the committed write was lost
// once z1 crashed. Now they refuse it, as ZooKeeper's leader gives up on
// "Follower is ahead of the leader", and the write survives. The write is /a,
// made while z1 was cut off and forwarded to z2 with the sync; or /b, made
// just after the sync (which lost it before the forwarding existed).
//
// Meanwhile d2 writes /c through z3, which may not propose it before a quorum
// acknowledges its epoch: it used to, and its zxid of epoch 2 then ranked
// above every write of epoch 1, so z3 won the next election too and the
// committed write was lost all the same.
func TestElectionALeaderBehindItsFollowersIsRefused(t *testing.T) {
	for _, c := range []struct {
		path string
		at   time.Duration
	}{{"/a", 250 * time.Millisecond}, {"/b", 500500 * time.Microsecond}} {
		t.Run(c.path, func(t *testing.T) {
			e := newEnsemble(3, ServerConfig{Tick: 100 * time.Millisecond})
			d := e.driver(0, 10*time.Second, time.Second)
			d2 := e.driver(2, 10*time.Second, time.Second)
			e.at(540*time.Millisecond, d2, sim.Message{Op: OpConnect}.With(ArgTimeout, 10_000)) // again, to z3 restarted
			e.at(550*time.Millisecond, d2, sim.Message{Op: OpCreate, Key: "/c"})
			e.act(200*time.Millisecond, sim.Action{Kind: sim.ActCrash, Proc: e.servers[1]})
			e.act(201*time.Millisecond, sim.Action{Kind: sim.ActCrash, Proc: e.servers[2]})
			e.act(200*time.Millisecond, sim.Action{Kind: sim.ActPartition, A: e.servers[:1], B: e.servers[1:]})
			e.at(c.at, d, sim.Message{Op: OpCreate, Key: c.path})
			e.act(300*time.Millisecond, sim.Action{Kind: sim.ActRestart, Proc: e.servers[1]})
			e.act(303*time.Millisecond, sim.Action{Kind: sim.ActRestart, Proc: e.servers[2]})
			e.act(303*time.Millisecond, sim.Action{Kind: sim.ActHeal})
			e.act(600*time.Millisecond, sim.Action{Kind: sim.ActCrash, Proc: e.servers[0]})
			tr := e.w.Run()
			if got := replies(tr, d); !slices.Contains(got, "CREATED "+c.path) {
				t.Fatalf("d1 was never told %s was created (%q): the test shows nothing", c.path, got)
			}
			if len(notes(tr, "z3 leads the ensemble (epoch 2")) == 0 {
				t.Fatal("z3 never led on z2's stale vote: the test shows nothing")
			}
			if got := notes(tr, "z2 has logged up to"); len(got) == 0 {
				t.Error("z2 did not refuse z3's history")
			}
			if got := notes(tr, "z2 leads the ensemble"); len(got) != 1 {
				t.Errorf("z2, which has the write, should lead once z3 gives up: %q", notes(tr, "leads the ensemble"))
			}
			for _, z := range []string{"z2", "z3"} {
				if !strings.Contains(data(tr, z), c.path+"(") {
					t.Errorf("%s lost the committed %s: %s", z, c.path, lastState(tr, z))
				}
			}
		})
	}
}
