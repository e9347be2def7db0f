package scenarios

import (
	"time"

	"github.com/locksim/locksim/protocols/zookeeper"
	"github.com/locksim/locksim/sim"
)

// ZooKeeper: an ensemble's servers and Curator's lock recipe.
func zookeeperKinds() []Kind {
	return []Kind{
		{Name: "zookeeper", Decl: DeclNode, Role: "zookeeper", Protocol: "zookeeper", Build: buildZKServer,
			Background: "the leader's LEADERPING and the followers' PINGACK, session touches forwarded to the leader, PONG to a client's PING"},
		zkClientKind("zk-lock", buildZKClient),
		zkClientKind("zk-leader-latch", buildZKLatch),
	}
}

// zkClientKind is a kind of ZooKeeper client: a lock recipe's, or a latch's.
func zkClientKind(name string, build func(a *Args) func(sim.Env) sim.Process) Kind {
	return Kind{Name: name, Decl: DeclClient, Role: RoleClient, Protocol: "zookeeper", Build: build,
		Background: "the session's PING every third of its timeout",
		Verbs:      lockVerbs(acquireVerb("set the session where the client is declared: session-timeout=4s"))}
}

// zkSession reads what every ZooKeeper client is declared with: its servers,
// its session timeout and how long it holds by itself.
func zkSession(a *Args) zookeeper.ClientConfig {
	cfg := zookeeper.DefaultClientConfig()
	cfg.Servers = a.Refs("servers", "zookeeper")
	cfg.SessionTimeout = a.Dur("session-timeout", cfg.SessionTimeout)
	cfg.Hold = a.Dur("hold", cfg.Hold)
	return cfg
}

// buildZKLatch is Curator's LeaderLatch: the lock recipe (the lowest node
// leads, each waiter watches its predecessor) with the latch's connection
// handling (leadership ends at SUSPENDED; after LOST or an expiry it rejoins
// with a new node). acquire is the latch's start, release its close.
func buildZKLatch(a *Args) func(sim.Env) sim.Process {
	cfg := zkSession(a)
	cfg.Fencing = a.Switch("fencing", cfg.Fencing, "off", "czxid")
	cfg.StopOnSuspend, cfg.Rejoin = true, true
	// reconnect=keep-old-path: Curator's historical defect CURATOR-696 (docs/protocols/zookeeper.md)
	cfg.KeepOldPath = a.Switch("reconnect", cfg.KeepOldPath, "reset", "keep-old-path")
	return zookeeper.NewClient(cfg)
}

func buildZKServer(a *Args) func(sim.Env) sim.Process {
	cfg := zookeeper.DefaultServerConfig()
	cfg.Servers = a.Members("ensemble", "zookeeper")
	cfg.Tick = a.Dur("tick", cfg.Tick)
	cfg.LeaderTimeout = a.Dur("leader-timeout", cfg.LeaderTimeout) // 0: five ticks, ZooKeeper's syncLimit
	cfg.ElectionTime = a.Dur("election-time", cfg.ElectionTime)
	// lock-nodes=container: Curator's container lock parents (docs/protocols/zookeeper.md, "Common mistakes")
	cfg.Containers = a.Switch("lock-nodes", cfg.Containers, "persistent", "container")
	cfg.ContainerCheck = a.Positive("container-check", zookeeper.DefaultContainerCheck,
		"ZooKeeper's znode.container.checkIntervalMs is 60 s: write container-check=1s")
	if a.Given("tick") && cfg.Tick%time.Millisecond != 0 && !a.Failed() {
		a.Fail("tick", "tick="+a.Text("tick")+" is not a whole number of milliseconds", "ZooKeeper's tickTime is in milliseconds: write tick=200ms")
	}
	return zookeeper.NewServer(cfg)
}

func buildZKClient(a *Args) func(sim.Env) sim.Process {
	cfg := zkSession(a)
	cfg.WatchParent = a.Switch("watch", cfg.WatchParent, "predecessor", "parent")
	fencing := a.OneOf("fencing", "off", "off", "czxid", "sequence")
	cfg.Fencing, cfg.SequenceToken = fencing == "czxid", fencing == "sequence"
	// protected=guid: Curator's historical defect CURATOR-604 (docs/protocols/zookeeper.md)
	protected := a.OneOf("protected", "off", "off", "on", "guid")
	cfg.Protected, cfg.ProtectedGUID = protected != "off", protected == "guid"
	cfg.CheckAfter = a.Dur("check-after", cfg.CheckAfter)
	// The published mistakes (docs/protocols/zookeeper.md, "Common mistakes").
	cfg.TrustWatch = a.Switch("after-watch", cfg.TrustWatch, "getchildren", "hold")
	cfg.StaleDelete = a.Switch("stale-release", cfg.StaleDelete, "forget", "delete")
	cfg.StopOnSuspend = a.Switch("suspended", cfg.StopOnSuspend, "hold", "stop")
	cfg.ReleaseOnce = a.Switch("release", cfg.ReleaseOnce, "guaranteed", "once")
	return zookeeper.NewClient(cfg)
}
