package scenarios

import (
	"slices"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/protocols/redlock"
	"github.com/locksim/locksim/sim"
)

// Redlock: a client of N independent Redis masters (node NAME redis).
func redlockKinds() []Kind {
	return []Kind{
		{Name: "redlock", Decl: DeclClient, Role: RoleClient, Protocol: "redlock", Build: buildRedlockClient,
			Verbs: lockVerbs(ttlAcquireVerb, extendVerb)},
	}
}

var extendVerb = Verb{Name: redlock.CmdExtend, Who: "a redlock client", Only: "only redlock clients extend their lock",
	Parse: func(a *Args) sim.Message {
		a.Words(0, 0)
		return sim.Message{Op: redlock.CmdExtend}
	}}

func buildRedlockClient(a *Args) func(sim.Env) sim.Process {
	cfg := redlock.DefaultConfig()
	cfg.Nodes = a.Refs("nodes", "redis")
	cfg.TTL = a.Dur("ttl", cfg.TTL)
	cfg.Multiplex = a.Switch("mode", cfg.Multiplex, "sequential", "multiplex")
	cfg.NodeTimeout = a.Positive("node-timeout", cfg.NodeTimeout, "the distlock page suggests 5-50 ms for a 10 s TTL")
	cfg.DriftFactor = float64(a.Int("drift-factor-ppm", int64(cfg.DriftFactor*1e6+0.5), 0, 1_000_000)) / 1e6
	cfg.DriftConst = a.Dur("drift-const", cfg.DriftConst)
	cfg.WallClock = a.Switch("clock", cfg.WallClock, "mono", "wall")
	// retry=R waits a random time in [0, R] (retry-mode=fixed: exactly R);
	// retry=0 retries at once.
	wait := a.Dur("retry", cfg.Retry.Max)
	cfg.Retry = lockkit.Retry{Backoff: lockkit.Uniform, Max: wait}
	if a.OneOf("retry-mode", "random", "random", "fixed") == "fixed" {
		cfg.Retry = lockkit.Retry{Backoff: lockkit.Fixed, Delay: wait}
	}
	cfg.Retry.Attempts = retryAttempts(a, 0)
	// The published mistakes, each beside its fix (the default).
	cfg.FullTTLValidity = a.Switch("validity", cfg.FullTTLValidity, "elapsed", "full-ttl")
	cfg.UnlockGrantedOnly = a.Switch("unlock", cfg.UnlockGrantedOnly, "all", "granted-only")
	cfg.Extend = redlock.ExtendMode(slices.Index(redlock.ExtendModes(), a.OneOf("extend", cfg.Extend.String(), redlock.ExtendModes()...)))
	cfg.Fencing = redlock.Fencing(slices.Index(redlock.FencingNames(), a.OneOf("fencing", cfg.Fencing.String(), redlock.FencingNames()...)))
	if counter, ok := a.OptRef("counter", "redis"); ok {
		cfg.Counter = counter
	} else if cfg.Fencing == redlock.FencingCounter {
		a.Fail("fencing", "fencing=counter needs counter=NODE, the node that keeps the token counter",
			"declare a redis node for the counter, apart from the lock nodes, and write counter=T")
	}
	atLeastMs(a, "ttl", cfg.TTL, "Redis TTLs are whole milliseconds, at least 1")
	return redlock.New(cfg)
}
