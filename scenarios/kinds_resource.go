package scenarios

import (
	"github.com/locksim/locksim/protocols/resource"
	"github.com/locksim/locksim/sim"
)

// The protected resource: storage the clients read and write under the lock,
// which may check fencing tokens. Every protocol shares it.
func resourceKinds() []Kind {
	return []Kind{{Name: DeclResource, Decl: DeclResource, Role: "resource", Build: buildResource}}
}

func buildResource(a *Args) func(sim.Env) sim.Process {
	cfg := resource.DefaultConfig()
	cfg.Fencing = a.OnOff("fencing", cfg.Fencing)
	return resource.New(cfg)
}
