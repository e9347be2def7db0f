package scenarios

import (
	"github.com/locksim/locksim/protocols/resource"
	"github.com/locksim/locksim/sim"
)

// The protected resource: storage the clients read and write under the lock,
// which may check fencing tokens. Every protocol shares it.
func resourceKinds() []Kind {
	return []Kind{{Name: DeclResource, Decl: DeclResource, Role: sim.RoleResource, Build: buildResource}}
}

func buildResource(a *Args) func(sim.Env) sim.Process {
	cfg := resource.DefaultConfig()
	// in=DB: a table of that database, in the lock's transaction; read here
	// only for the argument list (such a line never builds a process: intxn.go).
	a.Value("in", "NODE")
	// fencing=on checks every operation's token; writes-only checks writes'
	// only; lock-value is antirez's check-and-set against the lock's value.
	switch a.OneOf("fencing", map[bool]string{false: "off", true: "on"}[cfg.Fencing], "off", "on", "writes-only", "lock-value") {
	case "off":
		cfg.Fencing = false
	case "on":
		cfg.Fencing = true
	case "writes-only":
		cfg.Fencing, cfg.WritesOnly = true, true
	case "lock-value":
		cfg.Fencing, cfg.LockValue = false, true
	}
	return resource.New(cfg)
}
