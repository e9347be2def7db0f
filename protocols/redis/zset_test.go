package redis_test

import (
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/redis"
	"github.com/locksim/locksim/sim"
)

// Tests of ZADD's flags against the statements of the Redis command reference,
// https://redis.io/docs/latest/commands/zadd/ (quoted before each case), and of
// the mutex grants the node reports for lostinsoba's sorted-set lock
// ("Distributed locks: NoSQL", https://lostinsoba.com/).

func zadd(opts string) sim.Message { return sim.Message{Op: redis.OpZAdd, Key: "z", Opts: opts} }
func zscore(member string) sim.Message {
	return sim.Message{Op: redis.OpZScore, Key: "z", Opts: member}
}

func TestZAddFlags(t *testing.T) {
	for _, tc := range []struct {
		doc   string
		steps []sim.Message
		want  []string
	}{
		{"the reply is the number of new elements added to the sorted set",
			[]sim.Message{zadd("1 a 2 b"), zadd("3 a 4 c"), zscore("a")},
			[]string{"(integer) 2", "(integer) 1", "(bulk) 3"}},
		{"XX: only update elements that already exist; don't add new elements",
			[]sim.Message{zadd("XX 1 a"), zscore("a"), zadd("1 a"), zadd("XX CH 5 a"), zscore("a")},
			[]string{"(integer) 0", "(nil)", "(integer) 1", "(integer) 1", "(bulk) 5"}},
		{"NX: only add new elements; don't update already existing elements",
			[]sim.Message{zadd("NX 1 a"), zadd("NX CH 9 a"), zscore("a")},
			[]string{"(integer) 1", "(integer) 0", "(bulk) 1"}},
		{"GT: only update existing elements if the new score is greater than the current score",
			[]sim.Message{zadd("5 a"), zadd("GT CH 4 a"), zadd("GT CH 5 a"), zadd("GT CH 6 a"), zscore("a")},
			[]string{"(integer) 1", "(integer) 0", "(integer) 0", "(integer) 1", "(bulk) 6"}},
		{"LT: only update existing elements if the new score is less than the current score",
			[]sim.Message{zadd("5 a"), zadd("LT CH 6 a"), zadd("LT CH 4 a"), zscore("a")},
			[]string{"(integer) 1", "(integer) 0", "(integer) 1", "(bulk) 4"}},
		{"GT and LT don't prevent adding new elements",
			[]sim.Message{zadd("GT 1 a"), zadd("LT 1 b")},
			[]string{"(integer) 1", "(integer) 1"}},
		{"XX with GT updates only existing elements, and only upwards",
			[]sim.Message{zadd("XX GT CH 1 a"), zadd("1 a"), zadd("XX GT CH 0 a"), zadd("XX GT CH 2 a")},
			[]string{"(integer) 0", "(integer) 1", "(integer) 0", "(integer) 1"}},
		{"CH: changed elements are new elements added and elements already existing for which the score was updated; " +
			"elements with the same score as they had in the past are not counted",
			[]sim.Message{zadd("1 a"), zadd("CH 1 a 2 b"), zadd("CH 3 a 2 b"), zadd("3 a 9 b")},
			[]string{"(integer) 1", "(integer) 1", "(integer) 1", "(integer) 0"}},
		{"the GT, LT and NX options are mutually exclusive; XX and NX too",
			[]sim.Message{zadd("NX XX 1 a"), zadd("GT LT 1 a"), zadd("NX GT 1 a"), zadd("NX LT 1 a"), zscore("a")},
			[]string{"(error) ERR XX and NX options at the same time are not compatible",
				"(error) ERR GT, LT, and/or NX options at the same time are not compatible",
				"(error) ERR GT, LT, and/or NX options at the same time are not compatible",
				"(error) ERR GT, LT, and/or NX options at the same time are not compatible", "(nil)"}},
		{"scores are double precision floats, +inf and -inf included",
			[]sim.Message{zadd("1.5 a -inf b"), zscore("a"), zscore("b"), zadd("x a"), zadd("nan a"), zadd("1 a 2")},
			[]string{"(integer) 2", "(bulk) 1.5", "(bulk) -inf", "(error) ERR value is not a valid float",
				"(error) ERR value is not a valid float", "(error) ERR syntax error"}},
		{"a sorted set is a key of its own type: string commands on it fail, DEL removes it",
			[]sim.Message{zadd("1 a"), {Op: redis.OpGet, Key: "z"}, {Op: redis.OpDel, Key: "z"}, zscore("a"),
				{Op: redis.OpSetNX, Key: "z", Value: "v"}, zadd("1 a")},
			[]string{"(integer) 1", "(error) " + redis.ErrWrongType, "(integer) 1", "(nil)", "(integer) 1",
				"(error) " + redis.ErrWrongType}},
	} {
		t.Run(tc.doc, func(t *testing.T) {
			var steps []at
			for i, m := range tc.steps {
				steps = append(steps, send(time.Duration(i)*time.Millisecond, m))
			}
			eq(t, replies(t, redis.NodeConfig{}, steps...), tc.want)
		})
	}
}

// grants runs ZADDs from the driver and returns the grant reports, as text.
func grants(t *testing.T, cfg redis.NodeConfig, steps ...at) []string {
	t.Helper()
	w := sim.NewWorld(sim.Config{})
	w.AddProcess("r1", "redis", sim.Clock{}, redis.NewNode(cfg))
	w.AddProcess("d", "client", sim.Clock{}, func(sim.Env) sim.Process { return driver{} })
	for _, s := range steps {
		w.Schedule(sim.Time(s.t), s.act)
	}
	tr := w.Run()
	var out []string
	for _, ob := range tr.Observations() {
		if o := &ob; o.Kind == sim.ObsGrant || o.Kind == sim.ObsGrantEnd || o.Kind == sim.ObsStored {
			out = append(out, tr.ObsText(o))
		}
	}
	return out
}

// lostinsoba's mutex: "zadd task nx 0 task_id" creates it released, and
// "zadd task xx ch 1 task_id" acquires it: "only one of the clients will receive
// this" 1. The node reports the flip from 0 to 1 as a grant, the flip back as its
// end, and nothing for other sorted-set writes.
func TestZAddMutexFlipIsAGrant(t *testing.T) {
	got := grants(t, redis.NodeConfig{},
		send(0, zadd("NX 0 L")),
		send(1, zadd("XX CH 1 L")),
		send(2, zadd("XX CH 1 L")),
		send(3, zadd("XX CH 0 L")),
		send(4, zadd("GT CH 7 J")))
	eq(t, got, []string{"r1 grants L to d as score 1 in z with no expiry", "r1 withdraws d's grant of L (released)"})
}

// A granted member survives a restart when the AOF kept it: the node reports it
// recovered, so the checker does not take the grant for lost.
func TestZSetsPersist(t *testing.T) {
	got := grants(t, redis.NodeConfig{Persistence: redis.PersistAlways},
		send(0, zadd("NX 0 L")),
		send(1, zadd("XX CH 1 L")),
		faultAt(time.Second, sim.ActPowerLoss, 0),
		faultAt(2*time.Second, sim.ActRestart, 0))
	eq(t, got, []string{"r1 grants L to d as score 1 in z with no expiry", "r1 stores L = score 1 in z"})
	lost := replies(t, redis.NodeConfig{},
		send(0, zadd("1 a")),
		faultAt(time.Second, sim.ActCrash, 0),
		faultAt(2*time.Second, sim.ActRestart, 0),
		send(3*time.Second, zscore("a")))
	eq(t, lost, []string{"(integer) 1", "(nil)"})
}

// SET replaces a key of any type (the SET page: "If key already holds a value,
// it is overwritten, regardless of its type"), and so does the AOF that a
// restart replays: the sorted set does not come back beside the string.
func TestSetReplacesASortedSetOnDiskToo(t *testing.T) {
	got := replies(t, redis.NodeConfig{Persistence: redis.PersistAlways},
		send(0, zadd("1 a")),
		send(1, sim.Message{Op: redis.OpSet, Key: "z", Value: "v"}),
		faultAt(time.Second, sim.ActPowerLoss, 0),
		faultAt(2*time.Second, sim.ActRestart, 0),
		send(3*time.Second, sim.Message{Op: redis.OpGet, Key: "z"}),
		send(3*time.Second+1, zscore("a")))
	eq(t, got, []string{"(integer) 1", "+OK", "(bulk) v", "(error) " + redis.ErrWrongType})
}
