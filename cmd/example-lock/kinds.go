package main

import (
	"github.com/locksim/locksim/cmd/example-lock/sessionlock"
	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
)

// tutorial:begin kinds
// Kinds is what the scenario language knows of sessionlock: a server kind and
// a client kind, their arguments (read by Build, from the protocol's defaults)
// and the client's verbs.
//
//	node NAME session-server [session=DUR] [renew-token=on|off]
//	client NAME session-lock server=NODE [validity-timer=on|off] [margin=DUR] [retry=DUR]
func Kinds() []scenarios.Kind {
	return []scenarios.Kind{
		{Name: "session-server", Decl: scenarios.DeclNode, Role: "session-server", Protocol: "sessionlock",
			Background: "answers its clients' heartbeats (ALIVE)",
			Build: func(a *scenarios.Args) func(sim.Env) sim.Process {
				cfg := sessionlock.DefaultServerConfig()
				cfg.Session = a.Positive("session", cfg.Session, "a session lasts some time: session=2s")
				cfg.RenewToken = a.OnOff("renew-token", cfg.RenewToken)
				return sessionlock.NewServer(cfg)
			}},
		{Name: "session-lock", Decl: scenarios.DeclClient, Role: scenarios.RoleClient, Protocol: "sessionlock",
			Background: "a heartbeat (KEEPALIVE) every third of its session",
			Build: func(a *scenarios.Args) func(sim.Env) sim.Process {
				cfg := sessionlock.DefaultClientConfig()
				cfg.Server = a.Ref("server", "session-server")
				cfg.ValidityTimer = a.OnOff("validity-timer", cfg.ValidityTimer)
				cfg.Margin = a.Positive("margin", cfg.Margin, "leave room for drift and travel: margin=100ms")
				if d := a.Dur("retry", 0); d > 0 {
					cfg.Retry = lockkit.Retry{Backoff: lockkit.Fixed, Delay: d}
				}
				return sessionlock.NewClient(cfg)
			},
			Verbs: []scenarios.Verb{
				{Name: lockkit.CmdAcquire, Usage: "LOCK", Parse: func(a *scenarios.Args) sim.Message {
					a.Words(1, 1)
					return sim.Message{Op: lockkit.CmdAcquire, Key: a.Word(0, "lock")}
				}},
				{Name: lockkit.CmdRelease, Usage: "[LOCK]", Parse: func(a *scenarios.Args) sim.Message {
					m := sim.Message{Op: lockkit.CmdRelease}
					if len(a.Words(0, 1)) == 1 {
						m.Key = a.Word(0, "lock")
					}
					return m
				}},
				{Name: lockkit.CmdRead, Usage: "RESOURCE", Parse: func(a *scenarios.Args) sim.Message {
					a.Words(1, 1)
					return sim.Message{Op: lockkit.CmdRead, Key: a.Resource(0)}
				}},
				{Name: lockkit.CmdWrite, Usage: "RESOURCE", Parse: func(a *scenarios.Args) sim.Message {
					a.Words(1, 1)
					return sim.Message{Op: lockkit.CmdWrite, Key: a.Resource(0)}
				}},
			}},
	}
}

// tutorial:end kinds
