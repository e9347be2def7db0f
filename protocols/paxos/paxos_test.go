package paxos_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/protocols/paxos"
	"github.com/locksim/locksim/scenarios/proptest"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
	"github.com/locksim/locksim/sim/fault"
	"github.com/locksim/locksim/sim/simtest"
)

// Tests of single-decree Paxos. Source: Leslie Lamport, "Paxos Made Simple"
// (2001): only a value that has been proposed may be chosen, only a single value
// is chosen, whatever messages are lost, duplicated, reordered or delayed and
// whatever processes crash and restart, provided acceptors keep their state in
// stable storage; progress needs more (section 2.4).

// world: acceptors a1..a3 (ProcIDs 0-2), proposers p1..pN (3..) with values A,
// B, C, ...
func world(seed uint64, persist bool, proposers int, link sim.Link, cfg paxos.ProposerConfig) (*sim.World, []sim.ProcID) {
	return worldWith(seed, paxos.AcceptorConfig{Persist: persist}, proposers, link, cfg)
}

// worldWith is world with the acceptors' configuration given.
func worldWith(seed uint64, acfg paxos.AcceptorConfig, proposers int, link sim.Link, cfg paxos.ProposerConfig) (*sim.World, []sim.ProcID) {
	w := sim.NewWorld(sim.Config{Seed: seed, Limits: sim.Limits{MaxEvents: 300_000, MaxTime: 20 * time.Second, MaxQueue: 20_000}})
	acc := []sim.ProcID{0, 1, 2}
	for i := range acc {
		w.AddProcess(fmt.Sprintf("a%d", i+1), sim.RoleAcceptor, sim.Clock{}, paxos.NewAcceptor(acfg))
	}
	var ps []sim.ProcID
	for i := range proposers {
		c := cfg
		c.Acceptors, c.Value = acc, string(rune('A'+i))
		ps = append(ps, w.AddProcess(fmt.Sprintf("p%d", i+1), "proposer", sim.Clock{}, paxos.NewProposer(c)))
	}
	w.Network().SetDefault(link)
	return w, ps
}

func propose(w *sim.World, at time.Duration, p sim.ProcID) {
	w.Schedule(sim.Time(at), sim.Action{Kind: sim.ActCommand, Proc: p, Msg: sim.Message{Op: paxos.CmdPropose}})
}

// randomBackoff is the scenario language's backoff=b retry=random: a wait
// uniform in [0, 2b).
func randomBackoff(b time.Duration) lockkit.Retry {
	return lockkit.Retry{Backoff: lockkit.Uniform, Max: 2*b - 1}
}

func result(tr *sim.Trace, name string) check.Result {
	rep := check.Check(tr, check.Options{Bound: 10 * time.Second})
	r, _ := rep.Result(name)
	return r
}

// A later proposer adopts the value already accepted: the first value stays chosen.
func TestALaterProposerProposesTheChosenValue(t *testing.T) {
	w, ps := world(1, true, 2, sim.Link{Delay: time.Millisecond}, paxos.ProposerConfig{Retry: randomBackoff(50 * time.Millisecond)})
	propose(w, 100*time.Millisecond, ps[0])
	propose(w, time.Second, ps[1])
	w.Schedule(sim.Time(3*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	tr := w.Run()
	var values []string
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsAccepted {
			values = append(values, o.Grant)
		}
	}
	if len(values) != 6 {
		t.Fatalf("accepted %v, want six acceptances (three per proposer)", values)
	}
	for _, v := range values {
		if v != "A" {
			t.Fatalf("accepted %v: p2 must propose A, already chosen, not its own B", values)
		}
	}
}

// A proposer's numbers never repeat, even across its own crash: the round is on
// disk before its number is used.
func TestProposalNumbersSurviveAProposerCrash(t *testing.T) {
	w, ps := world(1, true, 1, sim.Link{Delay: time.Millisecond}, paxos.ProposerConfig{Retry: randomBackoff(50 * time.Millisecond)})
	// The acceptors never answer: the proposer keeps starting rounds.
	for a := range sim.ProcID(3) {
		w.Network().SetLink(a, ps[0], sim.Link{Delay: time.Millisecond, Loss: 1})
	}
	propose(w, 100*time.Millisecond, ps[0])
	w.Schedule(sim.Time(400*time.Millisecond), sim.Action{Kind: sim.ActCrash, Proc: ps[0]})
	w.Schedule(sim.Time(500*time.Millisecond), sim.Action{Kind: sim.ActRestart, Proc: ps[0]})
	propose(w, 600*time.Millisecond, ps[0])
	w.Schedule(sim.Time(time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	tr := w.Run()
	seen := map[int64]bool{}
	for i := range tr.Len() {
		e := tr.Event(i)
		if m := tr.Msg(e); e.Kind == sim.EvSend && m.Op == paxos.OpPrepare && e.Proc == ps[0] {
			n := m.Num(paxos.ArgProposal)
			if seen[n] && e.Peer == 0 {
				t.Fatalf("proposal number %d used twice", n)
			}
			seen[n] = true
		}
	}
	if len(seen) < 4 {
		t.Fatalf("only %d proposal numbers: the test did not exercise the restart", len(seen))
	}
}

// A proposer whose retry policy allows two attempts gives up after its second
// round fails, instead of starting rounds for ever (lockkit.Retry's attempt
// limit means the same for a proposer as for a lock client).
func TestAProposerGivesUpWhenItsPolicySays(t *testing.T) {
	w, ps := world(1, true, 1, sim.Link{Delay: time.Millisecond},
		paxos.ProposerConfig{Timeout: 50 * time.Millisecond, Retry: lockkit.Retry{Backoff: lockkit.Fixed, Delay: 10 * time.Millisecond, Attempts: 2}})
	for a := range sim.ProcID(3) { // the acceptors never answer
		w.Network().SetLink(a, ps[0], sim.Link{Delay: time.Millisecond, Loss: 1})
	}
	propose(w, 0, ps[0])
	w.Schedule(sim.Time(time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	tr := w.Run()
	prepares, gaveUp := 0, ""
	for i := range tr.Len() {
		if e := tr.Event(i); e.Kind == sim.EvSend && tr.Msg(e).Op == paxos.OpPrepare && e.Peer == 0 {
			prepares++
		}
	}
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsNote && strings.Contains(o.Text, "gives up") {
			gaveUp = o.Text
		}
	}
	if prepares != 2 || !strings.HasSuffix(gaveUp, "gives up after 2 rounds") {
		t.Fatalf("%d rounds, last note %q; want 2 rounds, then it gives up", prepares, gaveUp)
	}
}

// With NACKs a pre-empted proposer gives up its round at once, not at its
// timeout.
func TestNackEndsARoundEarly(t *testing.T) {
	took := func(nack bool) sim.Time {
		w := sim.NewWorld(sim.Config{Seed: 1})
		acc := []sim.ProcID{0, 1, 2}
		for i := range acc {
			w.AddProcess(fmt.Sprintf("a%d", i+1), sim.RoleAcceptor, sim.Clock{}, paxos.NewAcceptor(paxos.AcceptorConfig{Persist: true, Nack: nack}))
		}
		cfg := paxos.ProposerConfig{Acceptors: acc, Timeout: time.Second,
			Retry: lockkit.Retry{Backoff: lockkit.Fixed, Delay: time.Millisecond}}
		cfg.Value = "A"
		p1 := w.AddProcess("p1", "proposer", sim.Clock{}, paxos.NewProposer(cfg))
		cfg.Value = "B"
		p2 := w.AddProcess("p2", "proposer", sim.Clock{}, paxos.NewProposer(cfg))
		w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
		propose(w, 100*time.Millisecond, p2) // p2 has the higher number: p1's round loses
		propose(w, 100*time.Millisecond, p1)
		w.Schedule(sim.Time(5*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
		tr := w.Run()
		for _, o := range tr.Observations() {
			if o.Kind == sim.ObsNote && o.Client == p1 && len(o.Text) > 0 && o.Text[:3] == "p1 " {
				return o.At
			}
		}
		return sim.Never
	}
	if with, without := took(true), took(false); !(with < sim.Time(200*time.Millisecond) && without >= sim.Time(time.Second)) {
		t.Fatalf("p1 gave up its round at %s with NACKs and %s without; want within ms with, at the 1 s timeout without", with, without)
	}
}

// Persistent acceptors: one value chosen under random loss, duplication,
// reordering, delay, crashes and restarts of anyone, with three proposers.
// 100 fixed schedules by default, 1,000 under -tags long.
func TestPropertyOneValueChosenWithPersistentAcceptors(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		seed := rapid.Uint64().Draw(t, "seed")
		pct := func(name string, hi int) float64 { return float64(rapid.IntRange(0, hi).Draw(t, name)) / 100 }
		link := sim.Link{Delay: time.Millisecond, Jitter: time.Duration(rapid.IntRange(0, 20).Draw(t, "jitter_ms")) * time.Millisecond,
			Dist: sim.DelayUniform, Loss: pct("loss_pct", 30), Dup: pct("dup_pct", 20), Reorder: pct("reorder_pct", 20)}
		w, ps := world(seed, true, 3, link, paxos.ProposerConfig{Timeout: 50 * time.Millisecond, Retry: randomBackoff(20 * time.Millisecond)})
		desc := fmt.Sprintf("seed %d, %+v", seed, link)
		for _, p := range ps {
			at := time.Duration(rapid.IntRange(0, 300).Draw(t, "propose_ms")) * time.Millisecond
			propose(w, at, p)
			desc += fmt.Sprintf("; proposer %d proposes at %s", p, at)
		}
		var crashes fault.Schedule
		for range rapid.IntRange(0, 4).Draw(t, "crashes") {
			crashes = append(crashes, fault.Fault{Kind: fault.Crash, Proc: w.Names()[rapid.IntRange(0, 5).Draw(t, "proc")],
				At:  time.Duration(rapid.IntRange(0, 1000).Draw(t, "crash_ms")) * time.Millisecond,
				Dur: time.Duration(rapid.IntRange(1, 500).Draw(t, "down_ms")) * time.Millisecond})
		}
		crashes.Apply(w, nil)
		for _, f := range crashes { // a restarted proposer proposes again (an acceptor ignores it)
			propose(w, f.At+f.Dur+time.Millisecond, sim.ProcID(slices.Index(w.Names(), f.Proc)))
		}
		desc += "; " + crashes.String()
		w.Schedule(sim.Time(3*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
		if r := result(w.Run(), "one-value-chosen"); len(r.Violations) > 0 {
			t.Fatalf("one-value-chosen violated at %s: %s\n%s", r.Violations[0].At, r.Violations[0].Detail, desc)
		}
	})
}

// Acceptors that forget (persistence none): a crash and restart of an acceptor
// that accepted the chosen value finds two values chosen, among every crash
// over the template, in a fixed order.
func TestPropertyAmnesiaFindsTwoValues(t *testing.T) {
	forgetfulFindsTwoValues(t, "amnesia.scn")
}

// Acceptors that answer before they write (persistence=after-reply, the write
// 5 ms after the reply): a crash that falls between a reply and its write
// finds two values chosen (Paxos Made Simple, end of section 2.3; Paxos Made
// Live, section 4). The same schedules with the write before the reply choose
// one value (paxos-acceptor-writes-before-reply).
func TestPropertyWriteAfterReplyFindsTwoValues(t *testing.T) {
	forgetfulFindsTwoValues(t, "write-after-reply.scn")
}

// forgetfulFindsTwoValues runs every crash of the template's processes, at
// every gap between their steps: one of them must break one-value-chosen.
func forgetfulFindsTwoValues(t *testing.T, template string) {
	t.Helper()
	f := proptest.Find(t, proptest.Config{Template: "testdata/properties/" + template,
		Faults: []fault.Kind{fault.Crash}, Invariants: []string{"one-value-chosen"}, CheckFaults: 1, Dir: t.TempDir()})
	if len(f.Schedule) != 1 || !strings.HasPrefix(f.Schedule[0].Proc, "a") {
		t.Errorf("found with %v, want one acceptor's restart", f.Schedule)
	}
}

// The story of paxos-acceptor-writes-after-reply told another way: a1 is the
// acceptor both proposers reach, its write is 10 ms behind its replies, and it
// crashes 2 ms after its ACCEPTED and comes back 300 ms later (not a restart
// on the spot). With the write after the reply, two values are chosen; with
// the write first, a1 reports A to p2, and A alone is chosen.
func TestCrashBetweenReplyAndWriteForgetsAnAcceptance(t *testing.T) {
	for _, tc := range []struct {
		after bool
		want  string
	}{{true, "violated"}, {false, "holds"}} {
		w, ps := worldWith(1, paxos.AcceptorConfig{Persist: true, WriteAfterReply: tc.after, WriteDelay: 10 * time.Millisecond}, 2,
			sim.Link{Delay: time.Millisecond}, paxos.ProposerConfig{Retry: randomBackoff(50 * time.Millisecond)})
		cut := func(a, b sim.ProcID) {
			w.Network().SetLink(a, b, sim.Link{Loss: 1})
			w.Network().SetLink(b, a, sim.Link{Loss: 1})
		}
		cut(ps[0], 2) // p1 reaches a1 and a2
		cut(ps[1], 1) // p2 reaches a1 and a3
		propose(w, 50*time.Millisecond, ps[0])
		w.Schedule(sim.Time(55*time.Millisecond), sim.Action{Kind: sim.ActCrash, Proc: 0}) // ACCEPTED at 53 ms
		w.Schedule(sim.Time(355*time.Millisecond), sim.Action{Kind: sim.ActRestart, Proc: 0})
		propose(w, 600*time.Millisecond, ps[1])
		w.Schedule(sim.Time(2*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
		if r := result(w.Run(), "one-value-chosen"); r.Status() != tc.want {
			t.Errorf("write after reply=%v: one-value-chosen %s, want %s (%v)", tc.after, r.Status(), tc.want, r.Violations)
		}
	}
}

// An acceptor must remember its PROMISE across a restart, not only what it
// accepted (Lamport, "Paxos Made Simple", end of section 2.3: "An acceptor
// must remember this information even if it fails and then restarts"; the
// information is the highest proposal it accepted and the highest prepare it
// answered). The story: a2 is 40 ms away from both proposers, p1 cannot reach
// a3 nor p2 a1. p1 prepares at 0 (a2 promises at 40 ms); p2 prepares with a
// higher number at 20 ms (a3 promises at once, a2 at 60 ms); a2 restarts at
// 65-70 ms, before anything is accepted; p1's ACCEPT reaches a2 at 120 ms,
// p2's at 140 ms. An a2 that remembers its promise refuses p1's, and only B
// is chosen (by a2 and a3); one that forgot it accepts, and A is chosen by a1
// and a2 before B is. The acceptances alone on disk would not save it: a2 had
// accepted nothing when it restarted. (Issue 32's mutation check: with the
// promise's write removed, this test fails; the random property does not
// find that in 1,000 schedules.)
func TestAForgottenPromiseChoosesTwoValues(t *testing.T) {
	for _, tc := range []struct {
		persist bool
		want    string
	}{{true, "holds"}, {false, "violated"}} {
		w, ps := world(1, tc.persist, 2, sim.Link{Delay: time.Millisecond}, paxos.ProposerConfig{Retry: randomBackoff(50 * time.Millisecond)})
		cut := func(a, b sim.ProcID) {
			w.Network().SetLink(a, b, sim.Link{Loss: 1})
			w.Network().SetLink(b, a, sim.Link{Loss: 1})
		}
		cut(ps[0], 2)          // p1 reaches a1 and a2
		cut(ps[1], 0)          // p2 reaches a2 and a3
		for _, p := range ps { // a2 is 40 ms from each proposer, both ways
			w.Network().SetLink(p, 1, sim.Link{Delay: 40 * time.Millisecond})
			w.Network().SetLink(1, p, sim.Link{Delay: 40 * time.Millisecond})
		}
		propose(w, 0, ps[0])
		propose(w, 20*time.Millisecond, ps[1])
		w.Schedule(sim.Time(65*time.Millisecond), sim.Action{Kind: sim.ActCrash, Proc: 1})
		w.Schedule(sim.Time(70*time.Millisecond), sim.Action{Kind: sim.ActRestart, Proc: 1})
		w.Schedule(sim.Time(2*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
		if r := result(w.Run(), "one-value-chosen"); r.Status() != tc.want {
			t.Errorf("persist=%v: one-value-chosen %s, want %s (%v)", tc.persist, r.Status(), tc.want, r.Violations)
		}
	}
}
