package sessionlock_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/cmd/example-lock/sessionlock"
	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/protocols/resource"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
)

// The stories of a session lock (Burrows, "The Chubby lock service", 2006, on
// sessions and lease timeouts; Kleppmann, "How to do distributed locking",
// 2016, on pauses and fencing), each told as a small world: server s, clients
// c1 and c2, resource db.

type story struct {
	validity, fencing bool
	cmds              []cmd
	faults            []injected
}

type cmd struct {
	at     time.Duration
	client string
	op     string
	key    string
}

type injected struct {
	at  time.Duration
	a   sim.Action
	who string
}

func (s story) run(t *testing.T) (*sim.Trace, check.Report) {
	t.Helper()
	w := sim.NewWorld(sim.Config{Seed: 1})
	srv := w.AddProcess("s", "lock-server", sim.Clock{}, sessionlock.NewServer(sessionlock.ServerConfig{}))
	ids := map[string]sim.ProcID{}
	for _, name := range []string{"c1", "c2"} {
		ids[name] = w.AddProcess(name, "client", sim.Clock{}, sessionlock.NewClient(sessionlock.ClientConfig{Server: srv,
			ValidityTimer: s.validity, Retry: lockkit.Retry{Backoff: lockkit.Fixed, Delay: 200 * time.Millisecond}}))
	}
	w.AddProcess("db", "resource", sim.Clock{}, resource.New(resource.Config{Fencing: s.fencing}))
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	for _, c := range s.cmds {
		w.Schedule(sim.Time(c.at), sim.Action{Kind: sim.ActCommand, Proc: ids[c.client], Msg: sim.Message{Op: c.op, Key: c.key}})
	}
	for _, f := range s.faults {
		f.a.Proc = ids[f.who]
		w.Schedule(sim.Time(f.at), f.a)
	}
	tr := w.Run()
	return tr, check.Check(tr, check.Options{})
}

// c1 holds L and works, pauses for pause, then writes (its write waits out
// the pause); c2 takes L meanwhile when c1's session has expired, and works.
func pausedHolder(validity, fencing bool, pause time.Duration) story {
	return story{validity: validity, fencing: fencing,
		cmds: []cmd{
			{100 * time.Millisecond, "c1", "acquire", "L"},
			{200 * time.Millisecond, "c1", "read", "db"},
			{300 * time.Millisecond, "c2", "acquire", "L"},
			{600 * time.Millisecond, "c1", "write", "db"},
			{2500 * time.Millisecond, "c2", "write", "db"},
			{5 * time.Second, "c2", "release", "L"},
		},
		faults: []injected{{500 * time.Millisecond, sim.Action{Kind: sim.ActPause, Dur: pause}, "c1"}},
	}
}

func result(t *testing.T, rep check.Report, name string) check.Result {
	t.Helper()
	r, ok := rep.Result(name)
	if !ok {
		t.Fatalf("no invariant %s", name)
	}
	return r
}

func texts(tr *sim.Trace) string {
	var b strings.Builder
	for _, o := range tr.Observations() {
		fmt.Fprintf(&b, "%s %s\n", o.At, tr.ObsText(&o))
	}
	return b.String()
}

func TestHappyPathGrantsInTurnWithRisingTokens(t *testing.T) {
	tr, rep := story{validity: true, fencing: true, cmds: []cmd{
		{100 * time.Millisecond, "c1", "acquire", "L"},
		{150 * time.Millisecond, "c2", "acquire", "L"},
		{500 * time.Millisecond, "c1", "write", "db"},
		{3 * time.Second, "c1", "release", "L"}, // c1 holds past a 2 s session: its heartbeats keep it
		{4 * time.Second, "c2", "write", "db"},
		{4500 * time.Millisecond, "c2", "release", "L"},
	}}.run(t)
	if rep.Verdict != check.SAFE {
		t.Fatalf("verdict %s, want SAFE\n%s", rep.Verdict, texts(tr))
	}
	var tokens []int64
	var accepted int
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsBeliefStart {
			tokens = append(tokens, o.Token)
		}
		if o.Kind == sim.ObsResource && o.Accepted {
			accepted++
		}
	}
	if fmt.Sprint(tokens) != "[1 2]" || accepted != 2 {
		t.Errorf("tokens %v and %d accepted writes, want [1 2] and 2\n%s", tokens, accepted, texts(tr))
	}
	if r := result(t, rep, "mutex-belief"); !r.Holds() {
		t.Errorf("mutex-belief: %v", r.Violations)
	}
}

// Without its validity timer, c1 wakes from a pause past its session still
// believing, and its write lands after c2's grant: the lost update.
func TestBrokenClientWritesAfterItsSessionExpired(t *testing.T) {
	tr, rep := pausedHolder(false, false, 3*time.Second).run(t)
	if r := result(t, rep, "resource-safe"); len(r.Violations) == 0 {
		t.Fatalf("resource-safe holds, want the stale write\n%s", texts(tr))
	}
	if rep.Verdict != check.UNSAFE {
		t.Errorf("verdict %s, want UNSAFE", rep.Verdict)
	}
}

// With its validity timer, c1 wakes, finds its session may have expired, and
// sends nothing: the resource stays safe without fencing.
func TestValidityTimerStopsTheWokenHolder(t *testing.T) {
	tr, rep := pausedHolder(true, false, 3*time.Second).run(t)
	if r := result(t, rep, "resource-safe"); !r.Holds() {
		t.Fatalf("resource-safe: %v\n%s", r.Violations, texts(tr))
	}
	if !strings.Contains(texts(tr), "c1 does not hold L: write not sent") {
		t.Errorf("c1's write went out\n%s", texts(tr))
	}
	// A paused client concludes nothing: it believed through its pause while c2
	// held L, which mutex-belief reports as the fact it is.
	if r := result(t, rep, "mutex-belief"); len(r.Violations) == 0 {
		t.Errorf("mutex-belief holds, want c1's belief through the pause")
	}
}

// With fencing, the broken client's stale write carries token 1 after db saw
// token 2: db refuses it.
func TestFencingRefusesTheBrokenClientsWrite(t *testing.T) {
	tr, rep := pausedHolder(false, true, 3*time.Second).run(t)
	if rep.Verdict != check.SAFE {
		t.Fatalf("verdict %s, want SAFE\n%s", rep.Verdict, texts(tr))
	}
	var refused bool
	for _, o := range tr.Observations() {
		refused = refused || (o.Kind == sim.ObsResource && !o.Accepted && o.Token == 1)
	}
	if !refused {
		t.Errorf("db did not refuse token 1\n%s", texts(tr))
	}
}

// A short pause, within the session: the heartbeat catches up and c1 keeps L;
// c2 waits.
func TestAShortPauseKeepsTheSession(t *testing.T) {
	tr, rep := pausedHolder(true, false, 500*time.Millisecond).run(t)
	if r := result(t, rep, "mutex-belief"); !r.Holds() {
		t.Fatalf("mutex-belief: %v\n%s", r.Violations, texts(tr))
	}
	if strings.Contains(texts(tr), "c2 believes it holds L") && !strings.Contains(texts(tr), "c1 no longer believes") {
		t.Errorf("c2 took L while c1 held it\n%s", texts(tr))
	}
}

// A restarted server keeps minting tokens where it left off, and grants nothing
// for a session, so the holder it forgot runs out first.
func TestARestartedServerNeitherReusesTokensNorRegrantsEarly(t *testing.T) {
	w := sim.NewWorld(sim.Config{Seed: 1})
	srv := w.AddProcess("s", "lock-server", sim.Clock{}, sessionlock.NewServer(sessionlock.ServerConfig{}))
	c1 := w.AddProcess("c1", "client", sim.Clock{}, sessionlock.NewClient(sessionlock.ClientConfig{Server: srv, ValidityTimer: true}))
	c2 := w.AddProcess("c2", "client", sim.Clock{}, sessionlock.NewClient(sessionlock.ClientConfig{Server: srv, ValidityTimer: true,
		Retry: lockkit.Retry{Backoff: lockkit.Fixed, Delay: 100 * time.Millisecond}}))
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	acq := sim.Message{Op: "acquire", Key: "L"}
	w.Schedule(sim.Time(100*time.Millisecond), sim.Action{Kind: sim.ActCommand, Proc: c1, Msg: acq})
	w.Schedule(sim.Time(time.Second), sim.Action{Kind: sim.ActCrash, Proc: srv})
	w.Schedule(sim.Time(1100*time.Millisecond), sim.Action{Kind: sim.ActRestart, Proc: srv})
	w.Schedule(sim.Time(1200*time.Millisecond), sim.Action{Kind: sim.ActCommand, Proc: c2, Msg: acq})
	tr := w.Run()
	rep := check.Check(tr, check.Options{})
	var c2at sim.Time
	var c2token int64
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsBeliefStart && o.Client == c2 {
			c2at, c2token = o.At, o.Token
		}
	}
	if c2token != 2 || c2at < sim.Time(3100*time.Millisecond) {
		t.Errorf("c2 got token %d at %s, want token 2 after the grace period (from 3.1s)\n%s", c2token, c2at, texts(tr))
	}
	for _, inv := range []string{"mutex-belief", "grant-exclusive", "tokens-ordered"} {
		if r := result(t, rep, inv); len(r.Violations) > 0 {
			t.Errorf("%s: %v\n%s", inv, r.Violations, texts(tr))
		}
	}
}
