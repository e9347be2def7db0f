package simtest

import "github.com/locksim/locksim/sim"

// Decisions is each process's decision in a commit protocol's run, by name. A
// process that decides twice, differently, shows as "commit+abort", so a test
// that wants one decision sees the flip.
func Decisions(tr *sim.Trace) map[string]string {
	out := map[string]string{}
	for _, o := range tr.Observations() {
		if o.Kind != sim.ObsDecide {
			continue
		}
		name := tr.Names[o.Proc]
		if d := out[name]; d != "" && d != o.Name {
			out[name] = d + "+" + o.Name
			continue
		}
		out[name] = o.Name
	}
	return out
}
