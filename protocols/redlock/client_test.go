package redlock_test

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/redis"
	"github.com/locksim/locksim/protocols/redlock"
	"github.com/locksim/locksim/sim"
)

// Tests of the client against the Redis "Distributed Locks with Redis" page:
// validity = TTL - (T2 - T1) - drift, the majority rule, unlocking all nodes,
// extensions, and which clock measures the elapsed time (antirez's reply to
// Kleppmann: the monotonic one).

type world struct {
	w       *sim.World
	nodes   []sim.ProcID
	clients []sim.ProcID
}

func newWorld(cfg redlock.Config, clientClock sim.Clock, nClients int) *world {
	w := &world{w: sim.NewWorld(sim.Config{})}
	for _, n := range []string{"A", "B", "C", "D", "E"} {
		w.nodes = append(w.nodes, w.w.AddProcess(n, "redis", sim.Clock{}, redis.NewNode(redis.NodeConfig{})))
	}
	cfg.Nodes = w.nodes
	for i := range nClients {
		w.clients = append(w.clients, w.w.AddProcess("c"+string(rune('1'+i)), "client", clientClock, redlock.New(cfg)))
	}
	w.w.Network().SetDefault(sim.Link{Delay: 500 * time.Microsecond})
	return w
}

func (w *world) cmd(at time.Duration, c int, op string) {
	w.w.Schedule(sim.Time(at), sim.Action{Kind: sim.ActCommand, Proc: w.clients[c], Msg: sim.Message{Op: op, Key: "L"}.With(sim.ArgTTL, 10000)})
}

func (w *world) run() *sim.Trace { return w.w.Run() }

func metrics(tr *sim.Trace, name string) []int64 {
	var v []int64
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsMetric && o.Name == name {
			v = append(v, o.Value)
		}
	}
	return v
}

func TestValidityIsTTLMinusElapsedMinusDrift(t *testing.T) {
	for _, tc := range []struct {
		multiplex bool
		want      int64
	}{
		{false, 10000 - 5 - 102}, // five sequential 1 ms round trips
		{true, 10000 - 1 - 102},  // one multiplexed round trip
	} {
		cfg := redlock.DefaultConfig()
		cfg.Multiplex = tc.multiplex
		w := newWorld(cfg, sim.Clock{}, 1)
		w.cmd(0, 0, redis.CmdAcquire)
		if got := metrics(w.run(), "validity_ms"); len(got) != 1 || got[0] != tc.want {
			t.Errorf("multiplex %v: validity %v, want %d", tc.multiplex, got, tc.want)
		}
	}
}

func TestAMinorityFailsAndUnlocksEveryNode(t *testing.T) {
	cfg := redlock.DefaultConfig()
	cfg.Retry.Attempts = 1
	w := newWorld(cfg, sim.Clock{}, 1)
	w.w.Schedule(0, sim.Action{Kind: sim.ActPartition, A: []sim.ProcID{w.clients[0]}, B: w.nodes[2:]})
	w.cmd(0, 0, redis.CmdAcquire)
	tr := w.run()
	cads := 0
	for i := range tr.Len() {
		if e := tr.Event(i); e.Kind == sim.EvSend && tr.Msg(e).Op == redis.OpCAD {
			cads++
		}
	}
	if cads != 5 {
		t.Errorf("after 2 of 5 the client sent %d unlocks, want 5 (one per node)", cads)
	}
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsBeliefStart {
			t.Fatal("the client believed it held the lock with 2 of 5 nodes")
		}
	}
}

func TestExtensionNeedsAMajority(t *testing.T) {
	cfg := redlock.DefaultConfig()
	w := newWorld(cfg, sim.Clock{}, 1)
	w.cmd(0, 0, redis.CmdAcquire)
	w.cmd(time.Second, 0, redlock.CmdExtend)
	w.w.Schedule(sim.Time(2*time.Second), sim.Action{Kind: sim.ActPartition, A: []sim.ProcID{w.clients[0]}, B: w.nodes[2:]})
	w.cmd(3*time.Second, 0, redlock.CmdExtend)
	tr := w.run()
	if got := metrics(tr, "validity_ms"); len(got) != 2 {
		t.Fatalf("validities %v: want the acquisition and one successful extension", got)
	}
	failed := false
	for _, o := range tr.Observations() {
		failed = failed || (o.Kind == sim.ObsNote && strings.Contains(o.Text, "extension of L failed: 2 of 5"))
	}
	if !failed {
		t.Error("the extension with 2 of 5 nodes did not fail")
	}
}

// A client whose wall clock jumps back measures a shorter elapsed time with
// clock=wall, and so a larger validity than it has: the monotonic clock does not.
func TestWallClockMeasurementIsFooledByAJump(t *testing.T) {
	for _, wall := range []bool{false, true} {
		cfg := redlock.DefaultConfig()
		cfg.WallClock = wall
		cfg.NodeTimeout = time.Second
		w := newWorld(cfg, sim.Clock{}, 1)
		w.w.Network().SetDefault(sim.Link{Delay: 100 * time.Millisecond})
		w.cmd(0, 0, redis.CmdAcquire)
		w.w.Schedule(sim.Time(300*time.Millisecond), sim.Action{Kind: sim.ActJump, Proc: w.clients[0], Dur: -time.Second})
		got := metrics(w.run(), "validity_ms")
		want := int64(10000 - 1000 - 102) // five 200 ms round trips
		if wall {
			want += 1000 // the jump hid a second of elapsed time
		}
		if len(got) != 1 || got[0] != want {
			t.Errorf("wall clock %v: validity %v, want %d", wall, got, want)
		}
	}
}
