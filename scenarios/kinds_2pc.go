package scenarios

import (
	"github.com/locksim/locksim/protocols/twopc"
	"github.com/locksim/locksim/sim"
)

// Two-phase commit: a coordinator (a client: scenarios tell it to begin) and
// participants (nodes, role "participant", which the checker judges).
func twopcKinds() []Kind {
	return []Kind{
		{Name: "2pc-coordinator", Decl: DeclClient, Role: "coordinator", Protocol: "2pc", Build: build2PCCoordinator,
			Verbs: []Verb{beginVerb(twopc.CmdBegin)}},
		// Cooperative termination asks the fellow participants.
		{Name: "2pc-participant", Decl: DeclNode, Role: sim.RoleParticipant, Protocol: "2pc", Build: build2PCParticipant,
			TalksTo: []string{"2pc-participant"}},
	}
}

// beginVerb is `COORDINATOR begin TXN`, for 2PC's and 3PC's coordinators.
func beginVerb(op string) Verb {
	return Verb{Name: op, Usage: "TXN", Who: "a coordinator",
		Only: "only 2pc and 3pc coordinators begin a transaction; only paxos proposers propose",
		Parse: func(a *Args) sim.Message {
			a.Words(1, 1)
			return sim.Message{Op: op, Key: a.Word(0, "transaction")}
		}}
}

func build2PCCoordinator(a *Args) func(sim.Env) sim.Process {
	cfg := twopc.DefaultCoordinatorConfig()
	cfg.Participants = a.Refs("participants", "2pc-participant")
	cfg.Timeout = a.Positive("timeout", cfg.Timeout, "")
	cfg.LogDelay = a.Positive("log-delay", cfg.LogDelay, "")
	cfg.Resend = a.Positive("resend", cfg.Resend, "")
	cfg.Work = a.Dur("work", cfg.Work)
	return twopc.NewCoordinator(cfg)
}

func build2PCParticipant(a *Args) func(sim.Env) sim.Process {
	cfg := twopc.DefaultParticipantConfig()
	cfg.Coordinator = a.Ref("coordinator", "2pc-coordinator")
	cfg.Vote = !a.Switch("vote", !cfg.Vote, "yes", "no")
	cfg.Timeout = a.Positive("timeout", cfg.Timeout, "")
	cfg.Cooperative = a.Switch("termination", cfg.Cooperative, "wait", "cooperative")
	// uncertain=abort: the mistake, a yes voter that aborts on its own at its timeout
	cfg.AbortWhenUncertain = a.Switch("uncertain", cfg.AbortWhenUncertain, "wait", "abort")
	cfg.VoteTimeout = a.Dur("vote-timeout", cfg.VoteTimeout)
	peers, ok := a.OptPeers("peers", "2pc-participant")
	cfg.Peers = peers
	if !ok && a.Given("termination") && cfg.Cooperative && !a.Failed() {
		a.Fail("termination", "termination=cooperative needs peers=", "name the other participants it may ask: peers=p2,p3")
	}
	return twopc.NewParticipant(cfg)
}
