package scenarios

import (
	"time"

	"github.com/locksim/locksim/protocols/etcd"
	"github.com/locksim/locksim/sim"
)

// etcd: a cluster's members and the concurrency package's lock.
func etcdKinds() []Kind {
	return []Kind{
		{Name: "etcd", Decl: DeclNode, Role: "etcd", Protocol: "etcd", Build: buildEtcdMember,
			Background: "Raft heartbeats (an empty MsgApp) and their answers, lease keepalives forwarded to the leader and their answers"},
		{Name: "etcd-lock", Decl: DeclClient, Role: RoleClient, Protocol: "etcd", Build: buildEtcdClient,
			Background: "LeaseKeepAlive every third of its TTL",
			Verbs:      lockVerbs(acquireVerb("set the lease where the client is declared: ttl=5s"))},
	}
}

func buildEtcdMember(a *Args) func(sim.Env) sim.Process {
	cfg := etcd.DefaultMemberConfig()
	cfg.Members = a.Members("cluster", "etcd")
	cfg.Heartbeat = a.Dur("heartbeat", cfg.Heartbeat)
	cfg.ElectionTimeout = a.Dur("election-timeout", cfg.ElectionTimeout)
	if err := etcd.CheckTimeouts(cfg.Heartbeat, cfg.ElectionTimeout); err != nil {
		for _, key := range []string{"heartbeat", "election-timeout"} {
			if a.Given(key) && !a.Failed() {
				a.Fail(key, "etcd refuses to start with "+err.Error(),
					"etcd recommends an election timeout of about 10 heartbeats (its defaults: heartbeat=100ms election-timeout=1s)")
			}
		}
		return nil // the scenario is refused: no member is ever built
	}
	return etcd.NewMember(cfg)
}

func buildEtcdClient(a *Args) func(sim.Env) sim.Process {
	cfg := etcd.DefaultClientConfig()
	cfg.Members = a.Refs("members", "etcd")
	cfg.TTL = a.Dur("ttl", cfg.TTL)
	cfg.Fencing = a.Switch("fencing", cfg.Fencing, "off", "revision")
	cfg.Hold = a.Dur("hold", cfg.Hold)
	cfg.Timeout = a.Positive("timeout", cfg.Timeout, "a request unanswered this long goes to the next member: write timeout=1s")
	// wait-check=none: the Mutex before etcd#11456's fix (docs/protocols/etcd.md, "Common mistakes")
	cfg.NoWaitCheck = a.Switch("wait-check", cfg.NoWaitCheck, "key", "none")
	cfg.DeadlineLoop = a.Switch("lease-deadline", cfg.DeadlineLoop, "timer", "loop")
	// session-done=ignore: an application that never looks at Session.Done()
	// (docs/protocols/etcd.md, "Common mistakes")
	cfg.IgnoreSessionDone = a.Switch("session-done", cfg.IgnoreSessionDone, "stop", "ignore")
	if a.Given("ttl") && (cfg.TTL < time.Second || cfg.TTL%time.Second != 0) && !a.Failed() {
		a.Fail("ttl", "ttl="+a.Text("ttl")+" is not a whole number of seconds", "etcd grants leases in whole seconds: write ttl=5s")
	}
	return etcd.NewClient(cfg)
}
