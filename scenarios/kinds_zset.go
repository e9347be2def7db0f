package scenarios

import (
	"strings"
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/protocols/zset"
	"github.com/locksim/locksim/sim"
)

// buildZsetClient reads `client NAME zset-lock server=NODE mode=mutex|bucket|state
// [key=K] [retry=DUR] [attempts=N] [period=DUR] [hold=DUR] [reap-after=DUR]
// [release=done|new] [timeout=DUR]`: lostinsoba's sorted-set locks on a Redis node. An argument
// that belongs to another mode is an error, not silently ignored.
func buildZsetClient(a *args, ref refFunc) func(sim.Env) sim.Process {
	cfg := zset.Config{Server: ref("server", "redis", false)[0], Mode: zset.ModeMutex}
	if t, ok := a.required("mode", "the lock: "+strings.Join(zset.ModeNames(), ", ")); ok {
		m, known := zset.ParseMode(t.text)
		if !known {
			a.fail(t.col, "mode="+short(t.text)+" is not a choice", "mode is one of: "+strings.Join(zset.ModeNames(), ", "))
		}
		cfg.Mode = m
	}
	only := map[string]zset.Mode{"period": zset.ModeBucket, "reap-after": zset.ModeState, "release": zset.ModeState}
	for _, key := range []string{"period", "reap-after", "release", "retry", "attempts"} {
		t, ok := a.kv[key]
		if !ok || cfg.Mode == 0 {
			continue
		}
		if want, ok := only[key]; ok && cfg.Mode != want {
			a.fail(t.col, key+"= is only for mode="+want.String(), "a "+cfg.Mode.String()+" client takes no "+key+"=")
		}
		if (key == "retry" || key == "attempts") && cfg.Mode == zset.ModeBucket {
			a.fail(t.col, "a time-bucket worker never retries", "its bucket is taken once ZADD GT CH replies 0: drop "+key+"=")
		}
	}
	cfg.Key = a.name("key", "", "sorted set")
	if wait := a.dur("retry", 0); wait > 0 { // retry=0 gives up at the first failure
		cfg.Retry = lockkit.Retry{Backoff: lockkit.Fixed, Delay: wait}
	}
	cfg.Retry.Attempts = int(a.int("attempts", 0, 0, 1_000_000))
	cfg.Period = a.positive("period", 0, "write period=1h, say")
	cfg.Hold = a.dur("hold", 0)
	cfg.ReapAfter = a.dur("reap-after", 0)
	// release=new: the mistake, a job released back to a state a claim takes again
	cfg.ReleaseToNew = a.oneOf("release", "done", "done", "new") == "new"
	cfg.Timeout = a.positive("timeout", time.Second, "a request unanswered this long has failed: write timeout=1s")
	if _, ok := a.kv["period"]; !ok && cfg.Mode == zset.ModeBucket {
		a.fail(1, "a bucket client needs period=", "period= is the bucket's length: write period=1h")
	}
	if a.first != nil {
		return nil // never built: the parser reports the error
	}
	return zset.New(cfg)
}
