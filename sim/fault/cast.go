package fault

import (
	"fmt"
	"slices"
	"strings"

	"github.com/locksim/locksim/sim"
)

// Cast is the processes a schedule's faults name.
type Cast struct {
	Names []string // every process, by sim.ProcID
	// Group is whom a partition with no Peer cuts its Proc off from: the rest of
	// Group (every process when nil). The explorer leaves out the protected
	// resources, storage both sides of a partition reach; a property test of a
	// replicated service cuts a server off from the other servers.
	Group []string
	// Empty lists the processes that come back from a crash with nothing: they
	// wrote nothing to disk (a Redis node without persistence, a client). Only
	// the narration reads it (Fault.Say).
	Empty []string
}

// others is the other side of a partition of side.
func (c Cast) others(side []string) []string {
	group := c.Group
	if group == nil {
		group = c.Names
	}
	var out []string
	for _, n := range group {
		if !slices.Contains(side, n) {
			out = append(out, n)
		}
	}
	return out
}

// sides are a partition's two sides, by name.
func (c Cast) sides(f Fault) (a, b []string) {
	a = strings.Split(f.Proc, ",")
	if f.Peer == "" {
		return a, c.others(a)
	}
	return a, strings.Split(f.Peer, ",")
}

func (c Cast) id(name string) sim.ProcID {
	if i := slices.Index(c.Names, name); i >= 0 {
		return sim.ProcID(i)
	}
	panic(fmt.Sprintf("fault: a fault names %q, which is not among the processes %v", name, c.Names))
}

func (c Cast) ids(names []string) []sim.ProcID {
	out := make([]sim.ProcID, len(names))
	for i, n := range names {
		out[i] = c.id(n)
	}
	return out
}
