package scenarios

import (
	"time"

	"github.com/locksim/locksim/protocols/redis"
	"github.com/locksim/locksim/protocols/resource"
	"github.com/locksim/locksim/sim"
)

// kind is a process type a scenario can declare: `node NAME KIND ...`,
// `client NAME KIND ...` or `resource NAME ...`. Each kind reads its own arguments
// strictly and returns the constructor the world calls at start and after a crash.
type kind struct {
	decl     string // the declaring command: node, client or resource
	name     string
	role     string // shown in displays; "resource" makes the run protect a resource
	protocol string
	build    func(a *args, ref func(key, kind string) sim.ProcID) func(sim.Env) sim.Process
}

var kinds = []kind{
	{decl: "node", name: "redis", role: "redis", protocol: "redis", build: buildRedisNode},
	{decl: "client", name: "redis-lock", role: "client", protocol: "redis", build: buildRedisClient},
	{decl: "resource", name: "resource", role: "resource", build: buildResource},
}

func findKind(decl, name string) (kind, bool) {
	for _, k := range kinds {
		if k.decl == decl && k.name == name {
			return k, true
		}
	}
	return kind{}, false
}

func kindNames(decl string) []string {
	var ns []string
	for _, k := range kinds {
		if k.decl == decl {
			ns = append(ns, k.name)
		}
	}
	return ns
}

// protocols lists the protocol names a `protocol` line may give.
func protocols() []string {
	var ps []string
	for _, k := range kinds {
		if k.protocol != "" && (len(ps) == 0 || ps[len(ps)-1] != k.protocol) {
			ps = append(ps, k.protocol)
		}
	}
	return ps
}

func buildRedisNode(a *args, _ func(string, string) sim.ProcID) func(sim.Env) sim.Process {
	p, _ := redis.ParsePersistence(a.oneOf("persistence", "none", redis.PersistenceNames()...))
	return redis.NewNode(redis.NodeConfig{Persistence: p, Service: a.str("service", "")})
}

func buildRedisClient(a *args, ref func(string, string) sim.ProcID) func(sim.Env) sim.Process {
	cfg := redis.ClientConfig{
		Server:        ref("server", "redis"),
		SetNXExpire:   a.oneOf("acquire", "set-nx-px", "set-nx-px", "setnx-expire") == "setnx-expire",
		PlainDel:      a.oneOf("release", "compare-and-delete", "compare-and-delete", "del") == "del",
		ValidityTimer: a.onOff("validity-timer", false),
		TTL:           a.dur("ttl", 10*time.Second),
		Retry:         a.dur("retry", 0),
		RetryJitter:   a.dur("jitter", 0),
		MaxAttempts:   int(a.int("attempts", 0, 0, 1_000_000)),
		Timeout:       a.dur("timeout", time.Second),
	}
	if t, ok := a.kv["ttl"]; ok && cfg.TTL < time.Millisecond && a.first == nil {
		a.fail(t.col, "ttl="+t.text+" is less than 1ms", "Redis TTLs are whole milliseconds, at least 1")
	}
	return redis.NewClient(cfg)
}

func buildResource(a *args, _ func(string, string) sim.ProcID) func(sim.Env) sim.Process {
	return resource.New(resource.Config{Fencing: a.onOff("fencing", false)})
}
