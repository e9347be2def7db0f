package explore_test

import (
	"testing"
	"time"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/scenarios/explore"
	"github.com/locksim/locksim/sim/fault"
	"github.com/locksim/locksim/sim/simtest"
)

// A schedule has one meaning in both its forms (issue 18): the scenario text
// the explorer writes (fault.Schedule.Text) and the kernel's actions a property
// test applies (fault.Schedule.Apply) make the same run, trace for trace. So a
// found file replays what was run, and a property test's failure printed as a
// scenario is the failure.

// replicated has what the presets lack: a replica to fail over, a declared
// link (a link fault starts from it and restores it), jitter and a resource.
const replicated = `protocol redis
network delay=1ms jitter=2ms dist=uniform
node r1 redis
node r2 redis replica-of=r1
client c1 redis-lock server=r1 ttl=2s retry=200ms
client c2 redis-lock server=r1 ttl=2s retry=200ms
resource db
link c1 r1 delay=3ms
at 100ms c1 acquire L
at 400ms c2 acquire L
at 800ms c1 write db
at 1500ms c1 release L
run until=4s
`

func TestTheScheduleTextAndTheKernelActionsMakeTheSameRun(t *testing.T) {
	t.Parallel()
	seeds := uint64(simtest.Cases(1) / 2) // 5 seeds a template; 50 under -tags long
	replica, err := explore.FromSource("replicated.scn", replicated)
	if err != nil {
		t.Fatal(err)
	}
	tpls := map[string]*explore.Template{"replicated": replica}
	for _, name := range explore.Presets() {
		tpls[name] = template(t, name)
	}
	for _, name := range append(explore.Presets(), "replicated") {
		tpl := tpls[name]
		for _, live := range []bool{false, true} {
			c := &explore.Config{Template: tpl, Liveness: live, Space: fault.Space{Menu: fault.Kinds, MaxFaults: 6, Swarm: true}}
			c.Space.Menu = c.Usable()
			for seed := uint64(1); seed <= seeds; seed++ {
				sameRun(t, c, seed, c.Draw(seed))
			}
		}
	}
	// What the explorer never draws: faults that last for ever, a partition of
	// a pair and of two groups.
	c := &explore.Config{Template: replica}
	sameRun(t, c, 1, fault.Schedule{
		{Kind: fault.Pause, Proc: "c2", At: 200 * time.Millisecond, Dur: fault.Forever},
		{Kind: fault.Partition, Proc: "c1", Peer: "r2", At: 300 * time.Millisecond, Dur: time.Second},
		{Kind: fault.Crash, Proc: "r2", At: 2 * time.Second, Dur: fault.Forever},
		{Kind: fault.Partition, Proc: "c1,r1", Peer: "c2", At: 2500 * time.Millisecond, Dur: fault.Forever},
		{Kind: fault.Loss, Proc: "c1", Peer: "r1", At: 3 * time.Second, Mag: 500, Dur: fault.Forever},
	})
}

// sameRun runs schedule s both ways and compares the traces: the scenario text
// with the faults written in (Source), parsed and run, and Try, which applies the
// faults to the parsed template's world as kernel actions.
func sameRun(t *testing.T, c *explore.Config, seed uint64, s fault.Schedule) {
	t.Helper()
	c.Hash = true
	defer func() { c.Hash = false }()
	actions, err := c.Try(seed, s)
	if err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Parse(c.Template.Name, c.Source(seed, s, false))
	if err != nil {
		t.Fatal(err)
	}
	if got := scenarios.Run(sc, scenarios.RunOptions{}).Trace.Hash(); got != actions.Hash {
		t.Fatalf("%s seed %d: the schedule applied as actions ran differently from its text:\n%s",
			c.Template.Name, seed, c.Source(seed, s, true))
	}
}
