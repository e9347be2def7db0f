package check_test

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
)

// Tests of the rules that judge the literature's stories as their sources tell
// them (shared/design/invariants.md): resource-safe's recency clause, tokens-ordered,
// no-starvation, every-period and all-or-nothing, each on hand-made histories
// (the checker is tested apart from any protocol). Grant values: grant(at, c1, ...)
// grants "g1", grant(at, c2, ...) grants "g2".

func metric(t *testing.T, tr *sim.Trace, name string) float64 {
	t.Helper()
	rep := check.Check(tr, check.Options{})
	v, ok := rep.Metric(name)
	if !ok {
		t.Fatalf("no metric %s", name)
	}
	return v
}

// Kleppmann, "How to do distributed locking" (2016): c1 takes the lock, stops
// past its lease without having touched the storage; c2 takes the lock and
// writes; c1 wakes and sends its one write, which the storage accepts.
func TestRecencyTheLoneStaleWrite(t *testing.T) {
	story := []step{grant(0, c1, 10), believe(0, c1), withdraw(10, c1, svc, sim.ReasonExpired),
		grant(11, c2, 10), believe(11, c2), op(12, c2, "g2", "write", 0, true), op(16, c1, "g1", "write", 0, true)}
	t.Run("the stale holder's first and only write is the lost update", func(t *testing.T) {
		tr := history(true, s(20), story...)
		r := judge(t, tr, 0, "resource-safe")
		wantStatus(t, r, "violated", s(16))
		if d := r.Violations[0].Detail; !strings.Contains(d, "g1") || !strings.Contains(d, "later grant g2") || !strings.Contains(d, "since 12.000s") {
			t.Errorf("the sentence should name the stale grant, the newer one and when the resource first saw it: %s", d)
		}
		if v := metric(t, tr, "stale_accepted"); v != 1 {
			t.Errorf("stale_accepted = %v, want 1", v)
		}
		if v := check.Check(tr, check.Options{}).Verdict; v != check.UNSAFE {
			t.Errorf("verdict %s, want UNSAFE", v)
		}
	})
	t.Run("a refused operation under the newer grant still shows the resource it", func(t *testing.T) {
		tr := history(true, s(20), grant(0, c1, 10), believe(0, c1), grant(11, c2, 10), believe(11, c2),
			op(12, c2, "g2", "write", 1, false), op(16, c1, "g1", "write", 34, true))
		wantStatus(t, judge(t, tr, 0, "resource-safe"), "violated", s(16))
	})
	t.Run("a resource that has not seen the newer grant loses nothing by accepting", func(t *testing.T) {
		tr := history(true, s(20), grant(0, c1, 10), believe(0, c1), grant(11, c2, 10), believe(11, c2),
			op(16, c1, "g1", "write", 0, true), op(17, c2, "g2", "write", 0, true))
		wantStatus(t, judge(t, tr, 0, "resource-safe"), "holds")
		if v := metric(t, tr, "stale_accepted"); v != 0 {
			t.Errorf("stale_accepted = %v, want 0", v)
		}
	})
	t.Run("fenced, the stale write is refused and the run is safe", func(t *testing.T) {
		tr := history(true, s(20), grant(0, c1, 10), believe(0, c1), grant(11, c2, 10), believe(11, c2),
			op(12, c2, "g2", "write", 34, true), op(16, c1, "g1", "write", 33, false))
		wantStatus(t, judge(t, tr, 0, "resource-safe"), "holds")
	})
	t.Run("a stale read is told, not counted as a lost update", func(t *testing.T) {
		tr := history(true, s(20), grant(0, c1, 10), believe(0, c1), grant(11, c2, 10), believe(11, c2),
			op(12, c2, "g2", "write", 0, true), op(16, c1, "g1", "read", 0, true))
		r := judge(t, tr, 0, "resource-safe")
		wantStatus(t, r, "holds")
		if !strings.Contains(r.Note, "stale read") {
			t.Errorf("the note should tell the stale read: %q", r.Note)
		}
	})
	t.Run("a renewal is the same grant", func(t *testing.T) {
		tr := history(true, s(20), grant(0, c1, 10), believe(0, c1), op(1, c1, "g1", "write", 0, true), grant(8, c1, 10),
			op(9, c1, "g1", "write", 0, true))
		wantStatus(t, judge(t, tr, 0, "resource-safe"), "holds")
	})
	t.Run("the same client's next acquisition supersedes its earlier one", func(t *testing.T) {
		g := func(at float64, name string) step {
			return step{s(at), sim.Observation{Kind: sim.ObsGrant, Proc: svc, Service: "s", Client: c1, Lock: "L", Grant: name, Window: s(5)}}
		}
		b := func(at float64, name string) step {
			return step{s(at), sim.Observation{Kind: sim.ObsBeliefStart, Proc: c1, Client: c1, Lock: "L", Grant: name}}
		}
		tr := history(true, s(20), g(0, "a"), b(0, "a"), g(6, "b"), b(6, "b"), op(7, c1, "b", "write", 0, true), op(8, c1, "a", "write", 0, true))
		wantStatus(t, judge(t, tr, 0, "resource-safe"), "violated", s(8))
	})
	t.Run("a retry granted the same value again acts under its new grant", func(t *testing.T) {
		// c1's first grant lapses before its reply arrives (it never believes on
		// it); c2 holds and writes; c1's retry is granted the same value, and c1
		// writes under that newest grant (the Redis lock page lets a client keep
		// its value across retries).
		tr := history(true, s(20), grant(0, c1, 2), withdraw(2, c1, svc, sim.ReasonExpired), grant(2.1, c2, 2), believe(2.1, c2),
			op(2.5, c2, "g2", "write", 1, true), withdraw(2.8, c2, c2, sim.ReasonReleased), grant(3.5, c1, 2), believe(3.5, c1),
			op(4.5, c1, "g1", "write", 2, true))
		wantStatus(t, judge(t, tr, 0, "resource-safe"), "holds")
	})
	t.Run("grants of another service or lock do not supersede", func(t *testing.T) {
		other := step{s(11), sim.Observation{Kind: sim.ObsGrant, Proc: svc, Service: "other", Client: c2, Lock: "L", Grant: "h", Window: s(10)}}
		otherBelief := step{s(11), sim.Observation{Kind: sim.ObsBeliefStart, Proc: c2, Client: c2, Lock: "L", Grant: "h"}}
		tr := history(true, s(20), grant(0, c1, 10), believe(0, c1), op(1, c1, "g1", "write", 0, true), other, otherBelief,
			op(12, c2, "h", "write", 0, true), op(16, c1, "g1", "write", 0, true))
		r := judge(t, tr, 0, "resource-safe")
		// Only the serial clause speaks: c1's section comes back after c2's.
		wantStatus(t, r, "violated", s(16))
		if !strings.Contains(r.Violations[0].Detail, "interleave") {
			t.Errorf("want the serial clause's sentence, got %s", r.Violations[0].Detail)
		}
	})
	t.Run("a node's vote to a Redlock client is not a grant", func(t *testing.T) {
		// c2 tries by majority over 5 nodes and wins a node's vote, but not the
		// majority: its write is under no grant of the lock service.
		vote := step{s(11), sim.Observation{Kind: sim.ObsGrant, Proc: svc, Service: "s", Client: c2, Lock: "L", Grant: "g2", Window: s(10)}}
		try := step{s(11), sim.Observation{Kind: sim.ObsAttempt, Proc: c2, Client: c2, Lock: "L", Value: 5}}
		tr := history(true, s(20), grant(0, c1, 10), believe(0, c1), op(1, c1, "g1", "write", 0, true), try, vote, believe(11, c2),
			op(12, c2, "g2", "write", 0, true), op(14, c1, "g1", "write", 0, true))
		r := judge(t, tr, 0, "resource-safe")
		if len(r.Violations) != 1 || !strings.Contains(r.Violations[0].Detail, "interleave") {
			t.Errorf("want only the serial clause's violation, got %v", r.Violations)
		}
	})
}

// A SAFE run in which the rightful holder could not work says so.
func TestSafeButTheHolderCouldNotWork(t *testing.T) {
	tr := history(true, s(20), grant(0, c1, 10), believe(0, c1), op(1, c1, "g1", "read", 34, true), withdraw(2, c1, svc, sim.ReasonExpired),
		grant(3, c2, 10), believe(3, c2), op(4, c2, "g2", "write", 1, false), op(5, c2, "g2", "write", 1, false))
	rep := check.Check(tr, check.Options{})
	if rep.Verdict != check.SAFE || len(rep.Notes) != 1 || !strings.Contains(rep.Notes[0], "c2 could not work") {
		t.Fatalf("verdict %s, notes %q: want SAFE with a note that c2 could not work", rep.Verdict, rep.Notes)
	}
}

// tokens-ordered: the token source never goes backwards or repeats (Kleppmann
// 2016: "a number that increases every time a client acquires the lock").
func TestTokensOrdered(t *testing.T) {
	tok := func(st step, n int64) step { st.obs.Token, st.obs.HasToken = n, true; return st }
	t.Run("increasing tokens hold", func(t *testing.T) {
		b1, b2 := tok(believe(0, c1), 33), tok(believe(6, c2), 34)
		b1.obs.Grant, b2.obs.Grant = "g1", "g2"
		tr := history(false, s(20), grant(0, c1, 5), b1, grant(6, c2, 5), b2)
		wantStatus(t, judge(t, tr, 0, "tokens-ordered"), "holds")
	})
	t.Run("a counter that restarts empty goes backwards", func(t *testing.T) {
		b1, b2 := tok(believe(0, c1), 34), tok(believe(6, c2), 1)
		b1.obs.Grant, b2.obs.Grant = "g1", "g2"
		tr := history(false, s(20), grant(0, c1, 5), b1, grant(6, c2, 5), b2)
		r := judge(t, tr, 0, "tokens-ordered")
		wantStatus(t, r, "violated", s(6))
		if !strings.Contains(r.Violations[0].Detail, "went backwards") {
			t.Errorf("detail: %s", r.Violations[0].Detail)
		}
	})
	t.Run("a retry granted the same value again is a new grant, judged", func(t *testing.T) {
		tr := history(false, s(20), grant(0, c1, 2), withdraw(2, c1, svc, sim.ReasonExpired), grant(2.1, c2, 2), tok(believe(2.1, c2), 1),
			withdraw(2.8, c2, c2, sim.ReasonReleased), grant(3.5, c1, 2), tok(believe(3.5, c1), 2))
		wantStatus(t, judge(t, tr, 0, "tokens-ordered"), "holds")
		back := history(false, s(20), grant(0, c1, 2), tok(believe(0.1, c1), 5), withdraw(2, c1, svc, sim.ReasonExpired),
			grant(2.1, c2, 2), tok(believe(2.1, c2), 6), withdraw(2.8, c2, c2, sim.ReasonReleased), grant(3.5, c1, 2), tok(believe(3.5, c1), 3))
		wantStatus(t, judge(t, back, 0, "tokens-ordered"), "violated", s(3.5))
	})
	t.Run("a repeated token violates it", func(t *testing.T) {
		tr := history(false, s(20), tok(grant(0, c1, 5), 7), tok(grant(6, c2, 5), 7), tok(believe(6, c2), 7))
		r := judge(t, tr, 0, "tokens-ordered")
		wantStatus(t, r, "violated", s(6))
		if !strings.Contains(r.Violations[0].Detail, "repeated") {
			t.Errorf("detail: %s", r.Violations[0].Detail)
		}
	})
	t.Run("a renewal or a new leader's replay is judged once", func(t *testing.T) {
		seq := func(st step, n int64) step { st.obs.Seq = n; return st }
		tr := history(false, s(20), seq(tok(grant(0, c1, 0), 5), 1), seq(tok(grant(3, c1, 0), 5), 1), tok(believe(0, c1), 5),
			tok(grant(4, c1, 10), 5))
		wantStatus(t, judge(t, tr, 0, "tokens-ordered"), "holds")
	})
	t.Run("without tokens it is not applicable", func(t *testing.T) {
		tr := history(false, s(20), grant(0, c1, 5), believe(0, c1))
		wantStatus(t, judge(t, tr, 0, "tokens-ordered"), "n/a")
	})
	t.Run("a lock-level fact: with a resource it does not decide the verdict", func(t *testing.T) {
		tr := history(true, s(20), tok(grant(0, c1, 5), 9), tok(believe(0, c1), 9), tok(grant(6, c2, 5), 2), tok(believe(6, c2), 2),
			op(7, c2, "g2", "write", 2, true))
		rep := check.Check(tr, check.Options{})
		if r, _ := rep.Result("tokens-ordered"); r.Status() != "violated" || rep.Verdict != check.SAFE {
			t.Errorf("tokens-ordered %s, verdict %s: want violated and SAFE", r.Status(), rep.Verdict)
		}
	})
}

// no-starvation: a holder that renews the same grant for ever keeps a waiter out
// (a lock watchdog renewing while its holder lives); contention and long holds
// with nothing to renew are not starvation.
func TestNoStarvation(t *testing.T) {
	renewals := func(c sim.ProcID, from, to, every float64) []step {
		var out []step
		for at := from; at <= to; at += every {
			out = append(out, grant(at, c, 10))
		}
		return out
	}
	t.Run("renewing for ever while another waits a whole bound violates it", func(t *testing.T) {
		steps := append([]step{attempt(0, c1), believe(0, c1)}, renewals(c1, 0, 60, 5)...)
		steps = append(steps, attempt(1, c2))
		r := judge(t, history(false, s(100), steps...), s(30), "no-starvation")
		wantStatus(t, r, "violated", s(40)) // from the first grant's end (10 s) on, a 30 s bound
	})
	t.Run("a waiter that gets the lock within the bound holds", func(t *testing.T) {
		steps := append([]step{attempt(0, c1), believe(0, c1)}, renewals(c1, 0, 20, 5)...)
		steps = append(steps, attempt(1, c2), withdraw(25, c1, c1, sim.ReasonReleased), grant(25, c2, 10), believe(25, c2))
		wantStatus(t, judge(t, history(false, s(100), steps...), s(30), "no-starvation"), "holds")
	})
	t.Run("a long hold with nothing to renew is not starvation", func(t *testing.T) {
		tr := history(false, s(100), attempt(0, c1), grant(0, c1, 0), believe(0, c1), attempt(1, c2))
		wantStatus(t, judge(t, tr, s(30), "no-starvation"), "n/a")
	})
	t.Run("a holder that goes down leaves it to deadlock-free", func(t *testing.T) {
		steps := append([]step{attempt(0, c1), believe(0, c1)}, renewals(c1, 0, 5, 5)...)
		steps = append(steps, attempt(1, c2), crash(12, c1))
		wantStatus(t, judge(t, history(false, s(100), steps...), s(30), "no-starvation"), "holds")
	})
	t.Run("a run shorter than the bound is not judged", func(t *testing.T) {
		steps := append([]step{attempt(0, c1), believe(0, c1)}, renewals(c1, 0, 30, 5)...)
		steps = append(steps, attempt(1, c2))
		wantStatus(t, judge(t, history(false, s(35), steps...), s(30), "no-starvation"), "n/a")
	})
}

// every-period: each true-time bucket in which a live worker tried to claim the
// job sees a start (lostinsoba, "Distributed locks: NoSQL", the time bucket).
func TestEveryPeriod(t *testing.T) {
	hour := time.Hour
	claim := func(at time.Duration, c sim.ProcID) step {
		return step{at, sim.Observation{Kind: sim.ObsAttempt, Proc: c, Client: c, Lock: "job", Window: hour}}
	}
	start := func(at time.Duration, c sim.ProcID) step {
		return step{at, sim.Observation{Kind: sim.ObsJobStart, Proc: c, Client: c, Lock: "job", Window: hour}}
	}
	fail := func(at time.Duration, c sim.ProcID) step {
		return step{at, sim.Observation{Kind: sim.ObsAttemptFailed, Proc: c, Client: c, Lock: "job", Reason: "CH = 0"}}
	}
	t.Run("a bucket whose claims all failed is missed", func(t *testing.T) {
		tr := history(false, 4*hour, claim(5*time.Minute, c1), start(5*time.Minute, c1),
			claim(65*time.Minute, c1), fail(65*time.Minute, c1), claim(125*time.Minute, c1), start(125*time.Minute, c1))
		r := judge(t, tr, 0, "every-period")
		wantStatus(t, r, "violated", 2*hour)
		if v := metric(t, tr, "missed_buckets"); v != 1 {
			t.Errorf("missed_buckets = %v, want 1", v)
		}
	})
	t.Run("a start is dated by its claim", func(t *testing.T) {
		// Claimed at 0:59:59.999, answered after the hour: hour 0's run.
		tr := history(false, 3*hour, claim(hour-time.Millisecond, c1), start(hour+time.Millisecond, c1))
		wantStatus(t, judge(t, tr, 0, "every-period"), "holds")
	})
	t.Run("a worker that went down before it knew did not try", func(t *testing.T) {
		tr := history(false, 3*hour, claim(5*time.Minute, c1), crash(360, c1))
		wantStatus(t, judge(t, tr, 0, "every-period"), "holds")
	})
	t.Run("a bucket still open at the end is not judged", func(t *testing.T) {
		tr := history(false, 90*time.Minute, claim(65*time.Minute, c1), fail(65*time.Minute, c1))
		wantStatus(t, judge(t, tr, 0, "every-period"), "n/a")
	})
	t.Run("no periodic job: not applicable", func(t *testing.T) {
		wantStatus(t, judge(t, history(false, s(10), attempt(0, c1)), 0, "every-period"), "n/a")
	})
}

// all-or-nothing: fencing protects each resource, not an update across several
// (Jepsen's point that fencing is not atomicity).
func TestAllOrNothing(t *testing.T) {
	upd := func(st step, proc sim.ProcID, name string) step { st.obs.Proc, st.obs.Name = proc, name; return st }
	t.Run("one resource accepts, the other refuses", func(t *testing.T) {
		tr := historyWithTwoResources(s(20), upd(op(3, c1, "g1", "write", 33, true), res, "u1"),
			upd(op(9, c1, "g1", "write", 33, false), res+1, "u1"))
		r := judge(t, tr, 0, "all-or-nothing")
		wantStatus(t, r, "violated", s(9))
		if v := check.Check(tr, check.Options{}).Verdict; v != check.UNSAFE {
			t.Errorf("verdict %s, want UNSAFE: all-or-nothing is a resource invariant", v)
		}
	})
	t.Run("both accept", func(t *testing.T) {
		tr := historyWithTwoResources(s(20), upd(op(3, c1, "g1", "write", 33, true), res, "u1"),
			upd(op(9, c1, "g1", "write", 33, true), res+1, "u1"))
		wantStatus(t, judge(t, tr, 0, "all-or-nothing"), "holds")
	})
	t.Run("an update on one resource is not applicable", func(t *testing.T) {
		tr := historyWithTwoResources(s(20), upd(op(3, c1, "g1", "write", 33, true), res, "u1"),
			upd(op(9, c1, "g1", "write", 33, false), res, "u1"))
		wantStatus(t, judge(t, tr, 0, "all-or-nothing"), "n/a")
	})
}

// historyWithTwoResources is history with a second resource (res+1).
func historyWithTwoResources(end time.Duration, steps ...step) *sim.Trace {
	w := sim.NewWorld(sim.Config{})
	for _, n := range []string{"c1", "c2", "c3", "s", "x", "y"} {
		role := "test"
		if n == "x" || n == "y" {
			role = "resource"
		}
		w.AddProcess(n, role, sim.Clock{}, func(e sim.Env) sim.Process { return &puppet{e} })
	}
	for _, st := range steps {
		o := st.obs
		if o.By == 0 {
			o.By = sim.NoProc
		}
		w.Schedule(sim.Time(st.at), sim.Action{Kind: sim.ActCommand, Proc: o.Proc, Msg: sim.Message{Op: "obs", Body: o}})
	}
	w.Schedule(sim.Time(end), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	return w.Run()
}

// quorum-backed judges a Redlock extension as the same grant: a value that falls
// below the majority after an extension is one violation, naming the extended end.
func TestQuorumBackedExtensionIsTheSameWindow(t *testing.T) {
	major := func(at, window float64) step {
		return step{s(at), sim.Observation{Kind: sim.ObsGrant, Proc: c1, Service: "redlock", Client: c1, Lock: "L", Grant: "g1", Window: s(window), Value: 3}}
	}
	stored := func(at float64, node sim.ProcID) step {
		return step{s(at), sim.Observation{Kind: sim.ObsStored, Proc: node, Client: c1, Lock: "L", Grant: "g1"}}
	}
	removed := func(at float64, node sim.ProcID) step {
		return step{s(at), sim.Observation{Kind: sim.ObsRemoved, Proc: node, Client: c1, Lock: "L", Grant: "g1", Reason: sim.ReasonExpired}}
	}
	// Three "nodes" (c2, c3, s) store c1's value; c1 wins, extends at 2 s, and two
	// nodes lose the value at 2.5 s and 2.6 s.
	tr := history(false, s(10), stored(0, c2), stored(0, c3), stored(0, svc), major(0.1, 3.9), major(2, 3.9),
		removed(2.5, c2), removed(2.6, c3))
	r := judge(t, tr, 0, "quorum-backed")
	wantStatus(t, r, "violated", s(2.6)) // 1 of 3 from then on
	if len(r.Violations) != 1 || !strings.Contains(r.Violations[0].Detail, "until 5.900s") {
		t.Errorf("want one violation naming the extended end 5.900s: %v", r.Violations)
	}
}
