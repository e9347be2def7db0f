package check_test

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
)

// reporter reports, when commanded, the observations its Msg.Op names: a
// stand-in for a protocol, to show what the checker derives from what a lock
// reports. The checker never sees a protocol, only these observations.
type reporter struct{ env sim.Env }

func (r *reporter) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	if in.Kind != sim.InCommand {
		return
	}
	client := r.env.Lookup(in.Msg.Value)
	switch in.Msg.Op {
	case "grant": // the service grants L for a 1 s lease
		out.Observe(sim.Observation{Kind: sim.ObsGrant, Client: client, By: sim.NoProc, Lock: "L", Service: "s",
			Grant: in.Msg.Value + "#1", Window: time.Second})
	case "believe": // a client concludes it holds L
		out.Observe(sim.Observation{Kind: sim.ObsBeliefStart, Client: client, By: sim.NoProc, Lock: "L", Grant: in.Msg.Value + "#1"})
	}
}

func (r *reporter) Describe() string { return "" }

// Two grants of L whose leases overlap break grant-exclusive (the service's
// promise); two clients believing at once break mutex-belief (the clients'
// side). With no resource in the run, any broken safety invariant makes the
// verdict UNSAFE.
func Example() {
	w := sim.NewWorld(sim.Config{})
	s := w.AddProcess("s", "service", sim.Clock{}, func(env sim.Env) sim.Process { return &reporter{env} })
	w.AddProcess("c1", "client", sim.Clock{}, func(env sim.Env) sim.Process { return &reporter{env} })
	w.AddProcess("c2", "client", sim.Clock{}, func(env sim.Env) sim.Process { return &reporter{env} })
	at := func(ms int, op, client string) {
		w.Schedule(sim.Time(time.Duration(ms)*time.Millisecond), sim.Action{Kind: sim.ActCommand, Proc: s, Msg: sim.Message{Op: op, Value: client}})
	}
	at(100, "grant", "c1")
	at(101, "believe", "c1")
	at(600, "grant", "c2") // c1's lease runs to 1.1 s
	at(601, "believe", "c2")
	rep := check.Check(w.Run(), check.Options{})
	for _, name := range []string{"grant-exclusive", "mutex-belief", "resource-safe"} {
		r, _ := rep.Result(name)
		fmt.Println(name, r.Status())
		if len(r.Violations) > 0 {
			fmt.Println(" ", r.Violations[0].At, r.Violations[0].Detail)
		}
	}
	fmt.Println("verdict", rep.Verdict)
	// Output:
	// grant-exclusive violated
	//   0.600s s granted L to c2 while c1's grant was promised until 1.100s
	// mutex-belief violated
	//   0.601s c2 believes it holds L while c1 still believes it does (since 0.101s)
	// resource-safe n/a
	// verdict UNSAFE
}
