package redis_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/redis"
	"github.com/locksim/locksim/sim"
)

// Tests of the node's commands against the Redis command reference (SET, SETNX,
// EXPIRE, DEL, INCR; https://redis.io/docs/latest/commands/) and of its persistence
// policies against the persistence page
// (https://redis.io/docs/latest/operate/oss_and_stack/management/persistence/).

// driver forwards each command to the node (process 0) and notes every reply.
type driver struct{}

func (driver) Step(_ sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InCommand:
		out.Send(0, in.Msg)
	case sim.InMessage:
		out.Observe(sim.Observation{Kind: sim.ObsNote, Client: sim.NoProc, By: sim.NoProc, Text: in.Msg.String()})
	}
}
func (driver) Describe() string { return "" }

type at struct {
	t   time.Duration
	act sim.Action
}

func send(t time.Duration, m sim.Message) at {
	return at{t, sim.Action{Kind: sim.ActCommand, Proc: 1, Msg: m}}
}
func faultAt(t time.Duration, k sim.ActionKind, d time.Duration) at {
	return at{t, sim.Action{Kind: k, Proc: 0, Dur: d}}
}

func replies(t *testing.T, cfg redis.NodeConfig, steps ...at) []string {
	t.Helper()
	w := sim.NewWorld(sim.Config{})
	w.AddProcess("r1", "redis", sim.Clock{}, redis.NewNode(cfg))
	w.AddProcess("d", "client", sim.Clock{}, func(sim.Env) sim.Process { return driver{} })
	w.Network().SetDefault(sim.Link{})
	for _, s := range steps {
		w.Schedule(sim.Time(s.t), s.act)
	}
	tr := w.Run()
	var out []string
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsNote && o.Proc == 1 {
			out = append(out, o.Text)
		}
	}
	return out
}

func setNXPX(v string, ms int64) sim.Message {
	return sim.Message{Op: redis.OpSet, Key: "L", Value: v, Opts: "NX PX"}.With(redis.ArgTime, ms)
}

func eq(t *testing.T, got, want []string) {
	t.Helper()
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("replies\n got %q\nwant %q", got, want)
	}
}

func TestSetNXPXGrantsOnceUntilExpiry(t *testing.T) {
	got := replies(t, redis.NodeConfig{},
		send(0, setNXPX("a", 1000)),
		send(500*time.Millisecond, setNXPX("b", 1000)),
		send(time.Second, setNXPX("c", 1000)),
		send(1100*time.Millisecond, sim.Message{Op: redis.OpGet, Key: "L"}))
	eq(t, got, []string{"+OK", "(nil)", "+OK", "(bulk) c"})
}

func TestCompareAndDeleteOnlyDeletesTheOwnersValue(t *testing.T) {
	got := replies(t, redis.NodeConfig{},
		send(0, setNXPX("a", 10000)),
		send(1, sim.Message{Op: redis.OpCAD, Key: "L", Value: "b"}),
		send(2, sim.Message{Op: redis.OpCAD, Key: "L", Value: "a"}),
		send(3, sim.Message{Op: redis.OpDel, Key: "L"}))
	eq(t, got, []string{"+OK", "(integer) 0", "(integer) 1", "(integer) 0"})
}

func TestSetNXThenExpireAndIncr(t *testing.T) {
	got := replies(t, redis.NodeConfig{},
		send(0, sim.Message{Op: redis.OpSetNX, Key: "L", Value: "a"}),
		send(1, sim.Message{Op: redis.OpSetNX, Key: "L", Value: "b"}),
		send(2, sim.Message{Op: redis.OpExpire, Key: "L"}.With(redis.ArgTime, 1)),
		send(time.Second+3, sim.Message{Op: redis.OpGet, Key: "L"}),
		send(time.Second+4, sim.Message{Op: redis.OpIncr, Key: "T"}),
		send(time.Second+5, sim.Message{Op: redis.OpIncr, Key: "T"}),
		send(time.Second+6, sim.Message{Op: redis.OpIncr, Key: "L2"}),
		send(time.Second+7, sim.Message{Op: redis.OpCAX, Key: "L", Value: "a"}.With(redis.ArgTime, 5)))
	eq(t, got, []string{"(integer) 1", "(integer) 0", "(integer) 1", "(nil)", "(integer) 1", "(integer) 2", "(integer) 1", "(integer) 0"})
}

// Redis expires keys by the node's wall clock: a forward jump expires them early.
func TestAWallClockJumpExpiresKeysEarly(t *testing.T) {
	got := replies(t, redis.NodeConfig{},
		send(0, setNXPX("a", 10000)),
		at{time.Second, sim.Action{Kind: sim.ActJump, Proc: 0, Dur: 15 * time.Second}},
		send(time.Second+1, sim.Message{Op: redis.OpGet, Key: "L"}))
	eq(t, got, []string{"+OK", "(nil)"})
}

func TestPersistencePolicies(t *testing.T) {
	get := sim.Message{Op: redis.OpGet, Key: "L"}
	for _, tc := range []struct {
		name   string
		policy redis.Persistence
		fault  sim.ActionKind
		want   string
	}{
		{"none loses everything on a crash", redis.PersistNone, sim.ActCrash, "(nil)"},
		{"everysec keeps what the OS has when the process crashes", redis.PersistEverySec, sim.ActCrash, "(bulk) a"},
		{"everysec loses the unsynced second on a power loss", redis.PersistEverySec, sim.ActPowerLoss, "(nil)"},
		{"always keeps every acknowledged write through a power loss", redis.PersistAlways, sim.ActPowerLoss, "(bulk) a"},
		{"no fsync loses recent writes on a power loss", redis.PersistNoFsync, sim.ActPowerLoss, "(nil)"},
		{"with AOF a clean shutdown keeps every key", redis.PersistEverySec, sim.ActShutdown, "(bulk) a"},
		{"with persistence off a clean shutdown keeps nothing", redis.PersistNone, sim.ActShutdown, "(nil)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := replies(t, redis.NodeConfig{Persistence: tc.policy},
				send(0, setNXPX("a", 60000)),
				faultAt(500*time.Millisecond, tc.fault, 0),
				faultAt(600*time.Millisecond, sim.ActRestart, 0),
				send(700*time.Millisecond, get))
			eq(t, got, []string{"+OK", tc.want})
		})
	}
	t.Run("everysec keeps the write once the second's fsync ran", func(t *testing.T) {
		got := replies(t, redis.NodeConfig{Persistence: redis.PersistEverySec},
			send(0, setNXPX("a", 60000)),
			faultAt(1500*time.Millisecond, sim.ActPowerLoss, 0),
			faultAt(1600*time.Millisecond, sim.ActRestart, 0),
			send(1700*time.Millisecond, get))
		eq(t, got, []string{"+OK", "(bulk) a"})
	})
	t.Run("a key's absolute expiry keeps counting while the node is down", func(t *testing.T) {
		got := replies(t, redis.NodeConfig{Persistence: redis.PersistEverySec},
			send(0, setNXPX("a", 2000)),
			faultAt(time.Second, sim.ActShutdown, 0),
			faultAt(3*time.Second, sim.ActRestart, 0),
			send(3*time.Second+1, get))
		eq(t, got, []string{"+OK", "(nil)"})
	})
}

func TestTTLEdgeCases(t *testing.T) {
	got := replies(t, redis.NodeConfig{},
		send(0, setNXPX("a", 0)),
		send(1, setNXPX("a", 1000)),
		send(2, sim.Message{Op: redis.OpPExpire, Key: "L"}.With(redis.ArgTime, 0)),
		send(3, sim.Message{Op: redis.OpGet, Key: "L"}))
	eq(t, got, []string{"(error) ERR invalid expire time in 'set' command", "+OK", "(integer) 1", "(nil)"})
}

// A node whose wall clock reads negative (an offset behind true time) still
// expires keys: expiry is a flag, not a zero deadline.
func TestExpiryWithANegativeWallClock(t *testing.T) {
	w := sim.NewWorld(sim.Config{})
	w.AddProcess("r1", "redis", sim.Clock{Offset: -10 * time.Second}, redis.NewNode(redis.NodeConfig{}))
	w.AddProcess("d", "client", sim.Clock{}, func(sim.Env) sim.Process { return driver{} })
	w.Schedule(0, sim.Action{Kind: sim.ActCommand, Proc: 1, Msg: setNXPX("a", 10000)})
	w.Schedule(sim.Time(11*time.Second), sim.Action{Kind: sim.ActCommand, Proc: 1, Msg: sim.Message{Op: redis.OpGet, Key: "L"}})
	var got []string
	for _, o := range w.Run().Observations() {
		if o.Kind == sim.ObsNote && o.Proc == 1 {
			got = append(got, o.Text)
		}
	}
	eq(t, got, []string{"+OK", "(nil)"})
}
