package scenarios

import (
	"strings"
	"time"

	"github.com/locksim/locksim/protocols/etcd"
	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/protocols/redis"
	"github.com/locksim/locksim/protocols/redlock"
	"github.com/locksim/locksim/protocols/resource"
	"github.com/locksim/locksim/protocols/zookeeper"
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
	build    func(a *args, ref refFunc) func(sim.Env) sim.Process
}

var kinds = []kind{
	{decl: "node", name: "redis", role: "redis", protocol: "redis", build: buildRedisNode},
	{decl: "client", name: "redis-lock", role: "client", protocol: "redis", build: buildRedisClient},
	{decl: "client", name: "redlock", role: "client", protocol: "redlock", build: buildRedlockClient},
	{decl: "node", name: "zookeeper", role: "zookeeper", protocol: "zookeeper", build: buildZKServer},
	{decl: "client", name: "zk-lock", role: "client", protocol: "zookeeper", build: buildZKClient},
	{decl: "node", name: "etcd", role: "etcd", protocol: "etcd", build: buildEtcdMember},
	{decl: "client", name: "etcd-lock", role: "client", protocol: "etcd", build: buildEtcdClient},
	{decl: "node", name: "db", role: "db", protocol: "db", build: buildDBNode},
	{decl: "client", name: "db-lock", role: "client", protocol: "db", build: buildDBClient},
	{decl: "client", name: "zset-lock", role: "client", protocol: "zset", build: buildZsetClient},
	{decl: "client", name: "2pc-coordinator", role: "coordinator", protocol: "2pc", build: build2PCCoordinator},
	{decl: "node", name: "2pc-participant", role: sim.RoleParticipant, protocol: "2pc", build: build2PCParticipant},
	{decl: "client", name: "3pc-coordinator", role: "coordinator", protocol: "3pc", build: build3PCCoordinator},
	{decl: "node", name: "3pc-participant", role: sim.RoleParticipant, protocol: "3pc", build: build3PCParticipant},
	{decl: "node", name: "paxos-acceptor", role: sim.RoleAcceptor, protocol: "paxos", build: buildPaxosAcceptor},
	{decl: "client", name: "paxos-proposer", role: "proposer", protocol: "paxos", build: buildPaxosProposer},
	{decl: "resource", name: "resource", role: "resource", build: buildResource},
}

// refFunc reads argument key as the names of declared processes of a kind: one
// name, or with many a comma-separated list.
type refFunc func(key, kind string, many bool) []sim.ProcID

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

func buildRedisNode(a *args, ref refFunc) func(sim.Env) sim.Process {
	p, _ := redis.ParsePersistence(a.oneOf("persistence", "none", redis.PersistenceNames()...))
	cfg := redis.NodeConfig{Persistence: p, Service: a.name("service", "", "service"), ReplLag: a.dur("repl-lag", 0)}
	if _, ok := a.kv["replica-of"]; ok {
		cfg.Replica, cfg.Master = true, ref("replica-of", "redis", false)[0]
	} else {
		a.allowed = append(a.allowed, "replica-of")
	}
	if t, ok := a.take("preload"); ok {
		cfg.Preload = map[string]string{}
		for _, kv := range strings.Split(t.text, ",") {
			k, v, ok := strings.Cut(kv, "=")
			if !ok || !isWord(k) || !isWord(v) {
				a.fail(t.col, "preload="+short(t.text)+" is not a list of KEY=VALUE", "write preload=token:L=32; "+wordHint)
				break
			}
			cfg.Preload[k] = v
		}
	}
	return redis.NewNode(cfg)
}

func buildRedisClient(a *args, ref refFunc) func(sim.Env) sim.Process {
	cfg := redis.ClientConfig{
		Server:        ref("server", "redis", false)[0],
		SetNXExpire:   a.oneOf("acquire", "set-nx-px", "set-nx-px", "setnx-expire") == "setnx-expire",
		PlainDel:      a.oneOf("release", "compare-and-delete", "compare-and-delete", "del") == "del",
		ValidityTimer: a.onOff("validity-timer", false),
		TTL:           a.dur("ttl", 10*time.Second),
		Retry:         redisRetry(a.dur("retry", 0), a.dur("jitter", 0), int(a.int("attempts", 0, 0, 1_000_000))),
		Timeout:       a.dur("timeout", time.Second),
		FencingINCR:   a.oneOf("fencing", "off", "off", "incr") == "incr",
		WaitReplicas:  int(a.int("wait", 0, 0, 100)),
		WaitTimeout:   a.dur("wait-timeout", 100*time.Millisecond),
		Hold:          a.dur("hold", 0),
	}
	if t, ok := a.kv["ttl"]; ok && cfg.TTL < time.Millisecond && a.first == nil {
		a.fail(t.col, "ttl="+short(t.text)+" is less than 1ms", "Redis TTLs are whole milliseconds, at least 1")
	}
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

func buildResource(a *args, _ refFunc) func(sim.Env) sim.Process {
	return resource.New(resource.Config{Fencing: a.onOff("fencing", false)})
}

func buildRedlockClient(a *args, ref refFunc) func(sim.Env) sim.Process {
	cfg := redlock.DefaultConfig()
	cfg.Nodes = ref("nodes", "redis", true)
	cfg.TTL = a.dur("ttl", cfg.TTL)
	cfg.Multiplex = a.oneOf("mode", "sequential", "sequential", "multiplex") == "multiplex"
	cfg.NodeTimeout = a.positive("node-timeout", cfg.NodeTimeout, "the distlock page suggests 5-50 ms for a 10 s TTL")
	cfg.DriftFactor = float64(a.int("drift-factor-ppm", 10_000, 0, 1_000_000)) / 1e6
	cfg.DriftConst = a.dur("drift-const", cfg.DriftConst)
	cfg.WallClock = a.oneOf("clock", "mono", "mono", "wall") == "wall"
	// retry=R waits a random time in [0, R] (retry-mode=fixed: exactly R);
	// retry=0 retries at once.
	wait := a.dur("retry", cfg.Retry.Max)
	cfg.Retry = lockkit.Retry{Backoff: lockkit.Uniform, Max: wait}
	if a.oneOf("retry-mode", "random", "random", "fixed") == "fixed" {
		cfg.Retry = lockkit.Retry{Backoff: lockkit.Fixed, Delay: wait}
	}
	cfg.Retry.Attempts = int(a.int("attempts", 0, 0, 1_000_000))
	if t, ok := a.kv["ttl"]; ok && cfg.TTL < time.Millisecond && a.first == nil {
		a.fail(t.col, "ttl="+short(t.text)+" is less than 1ms", "Redis TTLs are whole milliseconds, at least 1")
	}
	return redlock.New(cfg)
}

func buildZKServer(a *args, ref refFunc) func(sim.Env) sim.Process {
	cfg := zookeeper.ServerConfig{
		Servers:       ref("ensemble", "zookeeper", true),
		Tick:          a.dur("tick", zookeeper.DefaultTick),
		LeaderTimeout: a.dur("leader-timeout", 0), // 0: five ticks, ZooKeeper's syncLimit
		ElectionTime:  a.dur("election-time", 200*time.Millisecond),
		// lock-nodes=container: Curator's container lock parents (mistakes 9, 10)
		Containers:     a.oneOf("lock-nodes", "persistent", "persistent", "container") == "container",
		ContainerCheck: a.positive("container-check", zookeeper.DefaultContainerCheck, "ZooKeeper's znode.container.checkIntervalMs is 60 s: write container-check=1s"),
	}
	if t, ok := a.kv["tick"]; ok && cfg.Tick%time.Millisecond != 0 && a.first == nil {
		a.fail(t.col, "tick="+t.text+" is not a whole number of milliseconds", "ZooKeeper's tickTime is in milliseconds: write tick=200ms")
	}
	return zookeeper.NewServer(cfg)
}

func buildZKClient(a *args, ref refFunc) func(sim.Env) sim.Process {
	fencing := a.oneOf("fencing", "off", "off", "czxid", "sequence")
	return zookeeper.NewClient(zookeeper.ClientConfig{
		Servers:        ref("servers", "zookeeper", true),
		SessionTimeout: a.dur("session-timeout", 4*time.Second),
		WatchParent:    a.oneOf("watch", "predecessor", "predecessor", "parent") == "parent",
		Fencing:        fencing == "czxid",
		Protected:      a.onOff("protected", false),
		CheckAfter:     a.dur("check-after", 0),
		Hold:           a.dur("hold", 0),
		// The published mistakes (docs/protocols/zookeeper.md, "Common mistakes").
		TrustWatch:    a.oneOf("after-watch", "getchildren", "getchildren", "hold") == "hold",
		SequenceToken: fencing == "sequence",
		StaleDelete:   a.oneOf("stale-release", "forget", "forget", "delete") == "delete",
		StopOnSuspend: a.oneOf("suspended", "hold", "hold", "stop") == "stop",
		ReleaseOnce:   a.oneOf("release", "guaranteed", "guaranteed", "once") == "once",
	})
}

func buildEtcdMember(a *args, ref refFunc) func(sim.Env) sim.Process {
	cfg := etcd.MemberConfig{
		Members:         ref("cluster", "etcd", true),
		Heartbeat:       a.dur("heartbeat", 100*time.Millisecond),
		ElectionTimeout: a.dur("election-timeout", time.Second),
	}
	if err := etcd.CheckTimeouts(cfg.Heartbeat, cfg.ElectionTimeout); err != nil {
		for _, key := range []string{"heartbeat", "election-timeout"} {
			if t, ok := a.kv[key]; ok && a.first == nil {
				a.fail(t.col, "etcd refuses to start with "+err.Error(),
					"etcd recommends an election timeout of about 10 heartbeats (its defaults: heartbeat=100ms election-timeout=1s)")
			}
		}
		return nil // the scenario is refused: no member is ever built
	}
	return etcd.NewMember(cfg)
}

func buildEtcdClient(a *args, ref refFunc) func(sim.Env) sim.Process {
	cfg := etcd.ClientConfig{
		Members: ref("members", "etcd", true),
		TTL:     a.dur("ttl", 5*time.Second),
		Fencing: a.oneOf("fencing", "off", "off", "revision") == "revision",
		Hold:    a.dur("hold", 0),
		Timeout: a.positive("timeout", time.Second, "a request unanswered this long goes to the next member: write timeout=1s"),
		// wait-check=none: the Mutex before etcd#11456's fix (docs/protocols/etcd.md, "Common mistakes")
		NoWaitCheck:  a.oneOf("wait-check", "key", "key", "none") == "none",
		DeadlineLoop: a.oneOf("lease-deadline", "timer", "timer", "loop") == "loop",
	}
	if t, ok := a.kv["ttl"]; ok && (cfg.TTL < time.Second || cfg.TTL%time.Second != 0) && a.first == nil {
		a.fail(t.col, "ttl="+short(t.text)+" is not a whole number of seconds", "etcd grants leases in whole seconds: write ttl=5s")
	}
	return etcd.NewClient(cfg)
}
