package scenarios

import (
	"github.com/locksim/locksim/protocols/threepc"
	"github.com/locksim/locksim/sim"
)

// Three-phase commit: a coordinator and participants that run the termination
// protocol among themselves.
func threepcKinds() []Kind {
	return []Kind{
		{Name: "3pc-coordinator", Decl: DeclClient, Role: "coordinator", Protocol: "3pc", Build: build3PCCoordinator,
			Verbs: []Verb{beginVerb(threepc.CmdBegin)}},
		{Name: "3pc-participant", Decl: DeclNode, Role: sim.RoleParticipant, Protocol: "3pc", Build: build3PCParticipant,
			TalksTo: []string{"3pc-participant"}},
	}
}

func build3PCCoordinator(a *Args) func(sim.Env) sim.Process {
	cfg := threepc.DefaultCoordinatorConfig()
	cfg.Participants = a.Refs("participants", "3pc-participant")
	cfg.Timeout = a.Positive("timeout", cfg.Timeout, "")
	cfg.SendGap = a.Dur("send-gap", cfg.SendGap)
	// ack-timeout=abort: 3PC as textbooks and Wikipedia state it
	// (docs/protocols/2pc-3pc.md, "Common mistakes")
	cfg.AckTimeoutAbort = a.Switch("ack-timeout", cfg.AckTimeoutAbort, "commit", "abort")
	return threepc.NewCoordinator(cfg)
}

func build3PCParticipant(a *Args) func(sim.Env) sim.Process {
	cfg := threepc.DefaultParticipantConfig()
	cfg.Coordinator = a.Ref("coordinator", "3pc-coordinator")
	cfg.Peers = a.Peers("peers", "3pc-participant")
	cfg.Vote = !a.Switch("vote", !cfg.Vote, "yes", "no")
	cfg.Timeout = a.Positive("timeout", cfg.Timeout, "")
	cfg.StateWait = a.Positive("state-wait", cfg.StateWait, "")
	return threepc.NewParticipant(cfg)
}
