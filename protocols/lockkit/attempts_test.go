package lockkit_test

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/sim"
)

// Tests of the attempt reporter: what a client's timeline says about its
// attempts, and when its retry timer fires.

const timerRetry sim.TimerID = 1

// refused is a lock client whose every attempt is refused at once: "acquire"
// begins an acquisition, each try fails, the retry timer tries again;
// "release" gives up; "done" fails for good.
type refused struct{ tries lockkit.Attempts }

func (c *refused) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch {
	case in.Kind == sim.InCommand && in.Msg.Op == "acquire":
		c.tries.Begin(out, in.Msg.Key, in.Msg.Value)
		c.tries.Fail(out, "refused")
	case in.Kind == sim.InCommand && in.Msg.Op == "release":
		c.tries.GiveUp(out)
	case in.Kind == sim.InCommand && in.Msg.Op == "done":
		c.tries.FailFinally(out, "the job is done")
	case in.Kind == sim.InTimer && in.Timer == timerRetry:
		c.tries.Fail(out, "refused")
	}
}

func (c *refused) Describe() string { return "" }

type command struct {
	at time.Duration
	op string
}

// runRefused runs one refused client with attempts a (Client, Rand and Timer
// are filled in) and the commands, each at its time, and returns the lines of
// its timeline: "time text" for each observation.
func runRefused(a lockkit.Attempts, until time.Duration, cmds ...command) []string {
	w := sim.NewWorld(sim.Config{Seed: 1})
	c := w.AddProcess("c1", "client", sim.Clock{}, func(env sim.Env) sim.Process {
		a.Client, a.Rand, a.Timer = env.ID, env.Rand, timerRetry
		return &refused{tries: a}
	})
	for _, cmd := range cmds {
		w.Schedule(sim.Time(cmd.at), sim.Action{Kind: sim.ActCommand, Proc: c, Msg: sim.Message{Op: cmd.op, Key: "L", Value: "c1#1"}})
	}
	w.Schedule(sim.Time(until), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	tr := w.Run()
	var lines []string
	for _, o := range tr.Observations() {
		lines = append(lines, o.At.String()+" "+tr.ObsText(&o))
	}
	return lines
}

func wantLines(t *testing.T, got []string, want ...string) {
	t.Helper()
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("timeline:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Each failure says whether the client retries; the last one is followed by
// the give-up; the retry timer fires at the policy's waits.
func TestAttemptsReportEachFailureAndTheGiveUp(t *testing.T) {
	got := runRefused(lockkit.Attempts{Retry: lockkit.Retry{Backoff: lockkit.Exponential, Delay: 100 * time.Millisecond, Attempts: 3}},
		time.Second, command{0, "acquire"})
	wantLines(t, got,
		"0.000s c1 tries to acquire L",
		"0.000s c1 failed to acquire L (refused, retry)",
		"0.100s c1 failed to acquire L (refused, retry)",
		"0.300s c1 failed to acquire L (refused, no-retry)",
		"0.300s c1 gives up on L")
}

// The zero policy gives up at the first failure.
func TestTheZeroPolicyGivesUpAtOnce(t *testing.T) {
	got := runRefused(lockkit.Attempts{}, time.Second, command{0, "acquire"})
	wantLines(t, got,
		"0.000s c1 tries to acquire L",
		"0.000s c1 failed to acquire L (refused, no-retry)",
		"0.000s c1 gives up on L")
}

// A client that gives up while it waits to retry stops: its retry timer is
// disarmed. A new acquisition counts its attempts afresh.
func TestGivingUpDisarmsTheRetryAndANewAcquisitionCountsAfresh(t *testing.T) {
	got := runRefused(lockkit.Attempts{Retry: lockkit.Retry{Backoff: lockkit.Fixed, Delay: 100 * time.Millisecond, Attempts: 2}},
		time.Second, command{0, "acquire"}, command{50 * time.Millisecond, "release"}, command{500 * time.Millisecond, "acquire"})
	wantLines(t, got,
		"0.000s c1 tries to acquire L",
		"0.000s c1 failed to acquire L (refused, retry)",
		"0.050s c1 gives up on L",
		"0.500s c1 tries to acquire L",
		"0.500s c1 failed to acquire L (refused, retry)",
		"0.600s c1 failed to acquire L (refused, no-retry)",
		"0.600s c1 gives up on L")
}

// A failure with nothing to retry ends the acquisition whatever the policy.
func TestAFinalFailureGivesUpWhateverThePolicy(t *testing.T) {
	got := runRefused(lockkit.Attempts{Retry: lockkit.Retry{Backoff: lockkit.Fixed, Delay: 100 * time.Millisecond}},
		time.Second, command{0, "acquire"}, command{50 * time.Millisecond, "done"})
	wantLines(t, got,
		"0.000s c1 tries to acquire L",
		"0.000s c1 failed to acquire L (refused, retry)",
		"0.050s c1 failed to acquire L (the job is done, no-retry)",
		"0.050s c1 gives up on L")
}

// The attempt carries what the checker needs of the lock: the acquisition's
// name, Redlock's node count (its grants are votes), a time bucket's period.
func TestTheAttemptSaysWhatKindOfLockItIs(t *testing.T) {
	w := sim.NewWorld(sim.Config{Seed: 1})
	c := w.AddProcess("c1", "client", sim.Clock{}, func(env sim.Env) sim.Process {
		return &refused{tries: lockkit.Attempts{Client: env.ID, Nodes: 5, Period: time.Hour}}
	})
	w.Schedule(0, sim.Action{Kind: sim.ActCommand, Proc: c, Msg: sim.Message{Op: "acquire", Key: "L", Value: "c1#1"}})
	tr := w.Run()
	a := tr.Observation(0)
	if a.Kind != sim.ObsAttempt || a.Client != c || a.By != sim.NoProc || a.Lock != "L" || a.Grant != "c1#1" || a.Value != 5 || a.Window != time.Hour {
		t.Fatalf("attempt %+v, want c1's attempt on L as c1#1 over 5 nodes, period 1h", a)
	}
}
