package scenarios

import (
	"strings"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/protocols/zset"
	"github.com/locksim/locksim/sim"
)

// Sorted sets: lostinsoba's locks on a Redis node (node NAME redis).
func zsetKinds() []Kind {
	return []Kind{
		{Name: "zset-lock", Decl: DeclClient, Role: RoleClient, Protocol: "zset", Build: buildZsetClient,
			Verbs: lockVerbs(acquireVerb("a sorted-set lock has no TTL: it is held until released (or, mode=state, reaped: reap-after=)"))},
	}
}

// buildZsetClient reads `client NAME zset-lock server=NODE mode=mutex|bucket|state
// [key=K] [retry=DUR] [attempts=N] [period=DUR] [hold=DUR] [reap-after=DUR]
// [release=done|new] [timeout=DUR]`. An argument that belongs to another mode is an error, not
// silently ignored.
func buildZsetClient(a *Args) func(sim.Env) sim.Process {
	cfg := zset.DefaultConfig()
	cfg.Server = a.Ref("server", "redis")
	cfg.Mode = zset.ModeMutex
	if text, ok := a.Required("mode", "the lock: "+strings.Join(zset.ModeNames(), ", ")); ok {
		m, known := zset.ParseMode(text)
		if !known {
			a.Fail("mode", "mode="+a.Text("mode")+" is not a choice", "mode is one of: "+strings.Join(zset.ModeNames(), ", "))
		}
		cfg.Mode = m
	}
	only := map[string]zset.Mode{"period": zset.ModeBucket, "reap-after": zset.ModeState, "release": zset.ModeState}
	for _, key := range []string{"period", "reap-after", "release", "retry", "attempts"} {
		if !a.Given(key) || cfg.Mode == 0 {
			continue
		}
		if want, ok := only[key]; ok && cfg.Mode != want {
			a.Fail(key, key+"= is only for mode="+want.String(), "a "+cfg.Mode.String()+" client takes no "+key+"=")
		}
		if (key == "retry" || key == "attempts") && cfg.Mode == zset.ModeBucket {
			a.Fail(key, "a time-bucket worker never retries", "its bucket is taken once ZADD GT CH replies 0: drop "+key+"=")
		}
	}
	cfg.Key = a.Name("key", cfg.Key, "sorted set")
	if wait := a.Dur("retry", cfg.Retry.Delay); wait > 0 { // retry=0 gives up at the first failure
		cfg.Retry = lockkit.Retry{Backoff: lockkit.Fixed, Delay: wait}
	}
	cfg.Retry.Attempts = retryAttempts(a, cfg.Retry.Attempts)
	cfg.Period = a.Positive("period", cfg.Period, "write period=1h, say")
	cfg.Hold = a.Dur("hold", cfg.Hold)
	cfg.ReapAfter = a.Dur("reap-after", cfg.ReapAfter)
	// release=new: the mistake, a job released back to a state a claim takes again
	cfg.ReleaseToNew = a.Switch("release", cfg.ReleaseToNew, "done", "new")
	cfg.Timeout = a.Positive("timeout", cfg.Timeout, "a request unanswered this long has failed: write timeout=1s")
	if !a.Given("period") && cfg.Mode == zset.ModeBucket {
		a.Fail("period", "a bucket client needs period=", "period= is the bucket's length: write period=1h")
	}
	if a.Failed() {
		return nil // never built: the parser reports the error
	}
	return zset.New(cfg)
}
