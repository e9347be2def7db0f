package scenarios

import (
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/protocols/paxos"
	"github.com/locksim/locksim/protocols/threepc"
	"github.com/locksim/locksim/protocols/twopc"
	"github.com/locksim/locksim/sim"
)

// Atomic commit and consensus: 2PC and 3PC coordinators (clients: scenarios tell
// them to begin) and participants (nodes: role "participant", which the checker
// judges), Paxos proposers (clients: told to propose) and acceptors (nodes: role
// "acceptor", a majority of which chooses).

func build2PCCoordinator(a *args, ref refFunc) func(sim.Env) sim.Process {
	return twopc.NewCoordinator(twopc.CoordinatorConfig{
		Participants: ref("participants", "2pc-participant", true),
		Timeout:      a.positive("timeout", time.Second, ""),
		LogDelay:     a.positive("log-delay", 10*time.Millisecond, ""),
		Resend:       a.positive("resend", time.Second, ""),
		Work:         a.dur("work", 0),
	})
}

func build2PCParticipant(a *args, ref refFunc) func(sim.Env) sim.Process {
	cfg := twopc.ParticipantConfig{
		Coordinator: ref("coordinator", "2pc-coordinator", false)[0],
		Vote:        a.oneOf("vote", "yes", "yes", "no") == "yes",
		Timeout:     a.positive("timeout", time.Second, ""),
		Cooperative: a.oneOf("termination", "wait", "wait", "cooperative") == "cooperative",
		// uncertain=abort: the mistake, a yes voter that aborts on its own at its timeout
		AbortWhenUncertain: a.oneOf("uncertain", "wait", "wait", "abort") == "abort",
		VoteTimeout:        a.dur("vote-timeout", 0),
	}
	if _, ok := a.kv["peers"]; ok {
		cfg.Peers = ref("peers", "2pc-participant", true)
	} else {
		a.allowed = append(a.allowed, "peers")
		if t, ok := a.kv["termination"]; ok && cfg.Cooperative && a.first == nil {
			a.fail(t.col, "termination=cooperative needs peers=", "name the other participants it may ask: peers=p2,p3")
		}
	}
	return twopc.NewParticipant(cfg)
}

func build3PCCoordinator(a *args, ref refFunc) func(sim.Env) sim.Process {
	return threepc.NewCoordinator(threepc.CoordinatorConfig{
		Participants: ref("participants", "3pc-participant", true),
		Timeout:      a.positive("timeout", time.Second, ""),
		SendGap:      a.dur("send-gap", 0),
	})
}

func build3PCParticipant(a *args, ref refFunc) func(sim.Env) sim.Process {
	return threepc.NewParticipant(threepc.ParticipantConfig{
		Coordinator: ref("coordinator", "3pc-coordinator", false)[0],
		Peers:       ref("peers", "3pc-participant", true),
		Vote:        a.oneOf("vote", "yes", "yes", "no") == "yes",
		Timeout:     a.positive("timeout", 2*time.Second, ""),
		StateWait:   a.positive("state-wait", 200*time.Millisecond, ""),
	})
}

func buildPaxosAcceptor(a *args, _ refFunc) func(sim.Env) sim.Process {
	persist := a.oneOf("persistence", "always", "always", "none", "after-reply")
	cfg := paxos.AcceptorConfig{
		Persist:         persist != "none",
		WriteAfterReply: persist == "after-reply",
		Nack:            a.onOff("nack", false),
	}
	if t, ok := a.kv["write-delay"]; ok && persist != "after-reply" && a.first == nil {
		a.fail(t.col, "write-delay= is for persistence=after-reply", "remove write-delay=, or write persistence=after-reply")
	}
	cfg.WriteDelay = a.positive("write-delay", 5*time.Millisecond, "")
	return paxos.NewAcceptor(cfg)
}

func buildPaxosProposer(a *args, ref refFunc) func(sim.Env) sim.Process {
	cfg := paxos.ProposerConfig{
		Acceptors: ref("acceptors", "paxos-acceptor", true),
		Timeout:   a.positive("timeout", 100*time.Millisecond, ""),
	}
	// backoff=B waits uniformly in [0, 2B) (retry=fixed: exactly B), for ever.
	backoff := a.positive("backoff", 50*time.Millisecond, "")
	cfg.Retry = lockkit.Retry{Backoff: lockkit.Uniform, Max: 2*backoff - 1}
	if a.oneOf("retry", "random", "random", "fixed") == "fixed" {
		cfg.Retry = lockkit.Retry{Backoff: lockkit.Fixed, Delay: backoff}
	}
	if _, ok := a.required("value", "the value it proposes"); ok {
		cfg.Value = a.name("value", "", "value")
	}
	return paxos.NewProposer(cfg)
}
