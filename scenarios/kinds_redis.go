package scenarios

import (
	"strings"
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/protocols/redis"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/fault"
)

// Redis: a node (master or replica, docs/protocols/redis.md) and the
// single-instance lock client.
func redisKinds() []Kind {
	return []Kind{
		{Name: "redis", Decl: DeclNode, Role: "redis", Protocol: "redis", Build: buildRedisNode,
			Verbs: []Verb{failoverVerb}, Background: "a replica's once-a-second REPLCONF ACK"},
		{Name: "redis-lock", Decl: DeclClient, Role: RoleClient, Protocol: "redis", Build: buildRedisClient,
			Verbs: lockVerbs(ttlAcquireVerb)},
	}
}

// failoverVerb promotes a replica: it is told REPLICAOF NO ONE.
var failoverVerb = Verb{Name: fault.VerbFailover, Fault: true, Usage: "REPLICA", Who: "a redis node",
	Only: "failover promotes a replica: declare it with node NAME redis replica-of=MASTER", Needs: "replica-of",
	Parse: func(*Args) sim.Message { return sim.Message{Op: redis.CmdFailover} }}

// ttlAcquireVerb is `CLIENT acquire LOCK [ttl=DUR]`: a Redis lock client may
// give each acquisition its own TTL, which SET sends in milliseconds (PX).
var ttlAcquireVerb = Verb{Name: redis.CmdAcquire, Usage: "LOCK [ttl=DUR]", Parse: func(a *Args) sim.Message {
	a.Words(1, 1)
	m := sim.Message{Op: redis.CmdAcquire, Key: a.Word(0, "lock")}
	given := a.Given("ttl")
	d := a.Dur("ttl", 0)
	if given {
		atLeastMs(a, "ttl", d, "Redis TTLs are whole milliseconds")
		m.Opts = "PX" // the TTL in milliseconds, as SET writes it
		m = m.With(sim.ArgTTL, int64(d/time.Millisecond))
	}
	return m
}}

func buildRedisNode(a *Args) func(sim.Env) sim.Process {
	cfg := redis.DefaultNodeConfig()
	p, _ := redis.ParsePersistence(a.OneOf("persistence", cfg.Persistence.String(), redis.PersistenceNames()...))
	cfg.Persistence = p
	cfg.Service = a.Name("service", cfg.Service, "service")
	cfg.ReplLag = a.Dur("repl-lag", cfg.ReplLag)
	cfg.MonotonicExpiry = a.Switch("expiry", cfg.MonotonicExpiry, "wall", "monotonic")
	if master, ok := a.OptRef("replica-of", "redis"); ok {
		cfg.Replica, cfg.Master = true, master
		if a.Text("replica-of") == a.Self() {
			a.BadRef("replica-of", a.Self()+" cannot replicate itself", "name its master: replica-of=MASTER")
		}
	}
	if text, ok := a.Value("preload", "KEY=VALUE,..."); ok {
		cfg.Preload = map[string]string{}
		for _, kv := range strings.Split(text, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || !isWord(k) || !isWord(v) {
				a.Fail("preload", "preload="+a.Text("preload")+" is not a list of KEY=VALUE", "write preload=token:L=32; "+wordHint)
				break
			}
			cfg.Preload[k] = v
		}
	}
	return redis.NewNode(cfg)
}

func buildRedisClient(a *Args) func(sim.Env) sim.Process {
	cfg := redis.DefaultClientConfig()
	cfg.Server = a.Ref("server", "redis")
	// acquire=: SET NX PX (the default), SETNX then EXPIRE, or the old SETNX
	// page's stamp lock, taken over with DEL+SETNX or with GETSET.
	switch a.OneOf("acquire", "set-nx-px", "set-nx-px", "setnx-expire", "setnx-stamp-del", "setnx-stamp-getset") {
	case "setnx-expire":
		cfg.SetNXExpire = true
	case "setnx-stamp-del":
		cfg.Stamp = redis.StampDel
	case "setnx-stamp-getset":
		cfg.Stamp = redis.StampGetSet
	}
	cfg.PlainDel = a.Switch("release", cfg.PlainDel, "compare-and-delete", "del")
	cfg.ValidityTimer = a.OnOff("validity-timer", cfg.ValidityTimer)
	cfg.TTL = a.Dur("ttl", cfg.TTL)
	cfg.Retry = redisRetry(a.Dur("retry", cfg.Retry.Delay), a.Dur("jitter", cfg.Retry.Max-cfg.Retry.Delay), retryAttempts(a, cfg.Retry.Attempts))
	cfg.Timeout = a.Dur("timeout", cfg.Timeout)
	cfg.FencingINCR = a.Switch("fencing", cfg.FencingINCR, "off", "incr")
	cfg.WaitReplicas = int(a.Int("wait", int64(cfg.WaitReplicas), 0, 100))
	cfg.WaitTimeout = a.Dur("wait-timeout", cfg.WaitTimeout)
	cfg.Hold = a.Dur("hold", cfg.Hold)
	atLeastMs(a, "ttl", cfg.TTL, "Redis TTLs are whole milliseconds, at least 1")
	return redis.NewClient(cfg)
}

// redisRetry reads redis-lock's retry=R jitter=J attempts=N: R plus a draw in
// [0, J] after each failure; retry=0 gives up at the first.
func redisRetry(retry, jitter time.Duration, attempts int) lockkit.Retry {
	if retry == 0 {
		return lockkit.Retry{}
	}
	return lockkit.Retry{Backoff: lockkit.Uniform, Delay: retry, Max: retry + jitter, Attempts: attempts}
}
