package redis_test

import (
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/redis"
	"github.com/locksim/locksim/sim"
)

// GETSET, as the old SETNX page's lock uses it (https://redis.io/docs/latest/commands/getset/):
// it sets the value and returns the old one in one step, and clears the TTL.
func TestGetSetReturnsTheOldValueAndClearsTheTTL(t *testing.T) {
	got := replies(t, redis.NodeConfig{},
		send(0, sim.Message{Op: redis.OpGetSet, Key: "L", Value: "a"}),
		send(1, setNXPX("b", 10)),
		send(2, sim.Message{Op: redis.OpGetSet, Key: "L", Value: "c"}),
		send(time.Second, sim.Message{Op: redis.OpGet, Key: "L"}))
	eq(t, got, []string{"(nil)", "(nil)", "(bulk) a", "(bulk) c"})
}

// Key expiry by the wall clock (Redis as it is) against a monotonic one
// (antirez, "Is Redlock safe?", 2016): a wall-clock jump expires the key at once,
// or not at all.
func TestAWallClockJumpExpiresKeysOnlyByTheWallClock(t *testing.T) {
	for _, c := range []struct {
		mono bool
		want []string
	}{
		{false, []string{"+OK", "(nil)", "(integer) -2"}},
		{true, []string{"+OK", "(bulk) a", "(integer) 8000"}},
	} {
		got := replies(t, redis.NodeConfig{MonotonicExpiry: c.mono},
			send(0, setNXPX("a", 10_000)),
			at{time.Second, sim.Action{Kind: sim.ActJump, Proc: 0, Dur: time.Hour}},
			send(2*time.Second, sim.Message{Op: redis.OpGet, Key: "L"}),
			send(2*time.Second, sim.Message{Op: redis.OpPTTL, Key: "L"}))
		eq(t, got, c.want)
	}
}

// With monotonic expiry a key still expires after its TTL, and its expiry goes
// to the disk as an absolute wall time, read back at a restart.
func TestMonotonicExpiryStillExpiresAndSurvivesARestart(t *testing.T) {
	got := replies(t, redis.NodeConfig{MonotonicExpiry: true, Persistence: redis.PersistAlways},
		send(0, setNXPX("a", 3000)),
		faultAt(time.Second, sim.ActCrash, 0),
		faultAt(1500*time.Millisecond, sim.ActRestart, 0),
		send(2*time.Second, sim.Message{Op: redis.OpGet, Key: "L"}),
		send(3100*time.Millisecond, sim.Message{Op: redis.OpGet, Key: "L"}))
	eq(t, got, []string{"+OK", "(bulk) a", "(nil)"})
}
