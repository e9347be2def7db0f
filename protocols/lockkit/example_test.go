package lockkit_test

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/sim"
)

// grantor is a lock service that refuses the first two requests, then grants.
type grantor struct{ asked int }

func (g *grantor) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	if in.Kind == sim.InMessage {
		g.asked++
		reply := sim.Message{Op: "REFUSED", Key: in.Msg.Key}
		if g.asked > 2 {
			reply.Op = "GRANTED"
		}
		out.Send(in.From, reply)
	}
}

func (g *grantor) Describe() string { return fmt.Sprintf("asked %d times", g.asked) }

// myClient is a lock client of one's own, built on the kit: the policy and the
// reports are lockkit's, the messages are its own.
type myClient struct {
	env    sim.Env
	tries  lockkit.Attempts
	belief sim.Belief
	lock   string
}

const timerTryAgain sim.TimerID = 1

func (c *myClient) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InCommand: // acquire
		c.lock = in.Msg.Key
		c.tries.Begin(out, c.lock, "")
		out.Send(0, sim.Message{Op: "LOCK", Key: c.lock})
	case sim.InTimer: // the retry timer Attempts armed
		out.Send(0, sim.Message{Op: "LOCK", Key: c.lock})
	case sim.InMessage:
		if in.Msg.Op == "GRANTED" {
			c.belief.Start(out, c.env.ID, c.lock, c.env.Name, 0, 0, false)
			return
		}
		c.tries.Fail(out, "refused") // arms timerTryAgain, or gives up
	}
}

func (c *myClient) Describe() string { return "" }

// A client of one's own retries with exponential backoff and 10% jitter, and its
// timeline reads like every locksim client's.
func Example() {
	w := sim.NewWorld(sim.Config{Seed: 1})
	w.AddProcess("server", "server", sim.Clock{}, func(sim.Env) sim.Process { return &grantor{} })
	c1 := w.AddProcess("c1", "client", sim.Clock{}, func(env sim.Env) sim.Process {
		return &myClient{env: env, tries: lockkit.Attempts{Client: env.ID, Rand: env.Rand, Timer: timerTryAgain,
			Retry: lockkit.Retry{Backoff: lockkit.Exponential, Delay: 100 * time.Millisecond, Max: time.Second, JitterPercent: 10, Attempts: 5}}}
	})
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	w.Schedule(0, sim.Action{Kind: sim.ActCommand, Proc: c1, Msg: sim.Message{Op: "acquire", Key: "L"}})
	tr := w.Run()
	for _, o := range tr.Observations() {
		fmt.Println(o.At, tr.ObsText(&o))
	}
	// Output:
	// 0.000s c1 tries to acquire L
	// 0.002s c1 failed to acquire L (refused, retry)
	// 0.113332226s c1 failed to acquire L (refused, retry)
	// 0.330007212s c1 believes it holds L as c1
}

// The waits of a policy after each failure: exponential backoff from 100 ms,
// capped at 1 s, each with up to 10% of jitter drawn from the client's stream.
func ExampleRetry() {
	r := lockkit.Retry{Backoff: lockkit.Exponential, Delay: 100 * time.Millisecond, Max: time.Second, JitterPercent: 10, Attempts: 6}
	rnd := rand.New(rand.NewPCG(1, 2))
	for failed := 1; r.Again(failed); failed++ {
		fmt.Println(failed, sim.FormatDuration(r.Wait(failed, rnd).Truncate(time.Millisecond)))
	}
	fmt.Println("gives up after", r.Attempts, "attempts")
	// Output:
	// 1 0.107s
	// 2 0.212s
	// 3 0.431s
	// 4 0.863s
	// 5 1.023s
	// gives up after 6 attempts
}

// Redlock's round over five nodes: three yes make a majority.
func ExampleTally() {
	nodes := []sim.ProcID{1, 2, 3, 4, 5}
	round := lockkit.NewTally(nodes)
	round.Vote(1, true)
	round.Vote(2, false)
	round.Vote(3, true)
	fmt.Println(round.Yes(), "of", len(nodes), "majority:", round.Majority())
	round.Vote(5, true)
	round.Close() // node 4 timed out
	fmt.Println(round.Yes(), "of", len(nodes), "majority:", round.Majority(), "done:", round.Done())
	// Output:
	// 2 of 5 majority: false
	// 3 of 5 majority: true done: true
}
