package sim_test

import (
	"fmt"
	"time"

	"github.com/locksim/locksim/sim"
)

// leaseServer grants a lock for a lease of 1 s to whoever asks while it is
// free, and reports each grant and its expiry: the observations the checker
// reads.
type leaseServer struct {
	env    sim.Env
	holder sim.ProcID
}

const timerLease sim.TimerID = 1

func (s *leaseServer) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch {
	case in.Kind == sim.InMessage && in.Msg.Op == "LOCK" && s.holder == sim.NoProc:
		s.holder = in.From
		out.Observe(sim.Observation{Kind: sim.ObsGrant, Client: in.From, By: sim.NoProc, Lock: in.Msg.Key,
			Service: s.env.Name, Grant: "g1", Window: time.Second})
		out.SetTimer(timerLease, time.Second) // on the server's own monotonic clock
		out.Send(in.From, sim.Message{Op: "GRANTED", Key: in.Msg.Key})
	case in.Kind == sim.InTimer && in.Timer == timerLease:
		out.Observe(sim.Observation{Kind: sim.ObsGrantEnd, Client: s.holder, By: s.env.ID, Lock: "L",
			Service: s.env.Name, Grant: "g1", Reason: sim.ReasonExpired})
		s.holder = sim.NoProc
	}
}

func (s *leaseServer) Describe() string { return "" }

// client asks for the lock when commanded and believes it holds it once granted.
type client struct {
	env    sim.Env
	server sim.ProcID
	belief sim.Belief
}

func (c *client) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch {
	case in.Kind == sim.InCommand && in.Msg.Op == "acquire":
		out.Observe(sim.Observation{Kind: sim.ObsAttempt, Client: c.env.ID, By: sim.NoProc, Lock: in.Msg.Key})
		out.Send(c.server, sim.Message{Op: "LOCK", Key: in.Msg.Key})
	case in.Kind == sim.InMessage && in.Msg.Op == "GRANTED":
		c.belief.Start(out, c.env.ID, in.Msg.Key, "g1", 0, 0, false)
	}
}

func (c *client) Describe() string { return "" }

// A world with a server and a client on a 5 ms network: the client asks at
// 100 ms, the server grants at 105 ms, the client believes at 110 ms, and the
// lease runs out a second after the grant, by the server's clock. The trace
// holds what happened in true time; a process only ever saw its own clock.
func Example() {
	w := sim.NewWorld(sim.Config{Seed: 1})
	srv := w.AddProcess("s", "server", sim.Clock{}, func(env sim.Env) sim.Process {
		return &leaseServer{env: env, holder: sim.NoProc}
	})
	c1 := w.AddProcess("c1", "client", sim.Clock{Offset: time.Hour}, func(env sim.Env) sim.Process {
		return &client{env: env, server: srv}
	})
	w.Network().SetDefault(sim.Link{Delay: 5 * time.Millisecond})
	w.Schedule(sim.Time(100*time.Millisecond), sim.Action{Kind: sim.ActCommand, Proc: c1, Msg: sim.Message{Op: "acquire", Key: "L"}})
	tr := w.Run()
	for _, o := range tr.Observations() {
		fmt.Println(o.At, tr.ObsText(&o))
	}
	fmt.Println("ended:", tr.EndReason)
	// Output:
	// 0.100s c1 tries to acquire L
	// 0.105s s grants L to c1 as g1 for 1.000s
	// 0.110s c1 believes it holds L as g1
	// 1.105s s withdraws c1's grant of L (expired)
	// ended: quiescent
}

// A clock's readings: the wall clock starts at its offset and jumps; the
// monotonic clock only drifts (here 1000 ppm fast: 1 ms a second).
func ExampleClock() {
	c := sim.Clock{Offset: 10 * time.Second, DriftPPM: 1000}
	fmt.Println(c.Read(sim.Time(2 * time.Second)))
	// Output:
	// wall 12.002s mono 2.002s
}

// A message's text form, with the numbers a protocol names (sim.Arg).
func ExampleMessage() {
	const argTTL = sim.ArgTTL
	m := sim.Message{Op: "SET", Key: "L", Value: "c1#1", Opts: "NX PX"}.With(argTTL, 10000)
	fmt.Println(m)
	fmt.Println(m.Num(argTTL), m.Has(argTTL))
	// Output:
	// SET L c1#1 NX PX 10000
	// 10000 true
}
