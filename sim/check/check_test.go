package check_test

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
)

// Tests of the checker against hand-made histories, one per rule of
// docs/invariants.md (after shared/design/invariants.md). A puppet process reports
// exactly the observations it is told to, so each history is the fact under test.

type puppet struct{ env sim.Env }

func (p *puppet) Step(_ sim.LocalTime, in sim.Input, out *sim.Outputs) {
	if in.Kind == sim.InCommand {
		out.Observe(in.Msg.Body.(sim.Observation))
	}
}
func (p *puppet) Describe() string { return "" }

// history builds and runs a world: processes c1, c2, c3 (clients), s (service) and,
// when withResource, res (role "resource"); each step is an observation emitted by
// its Proc at its time, or a crash of Proc when Kind is 0.
type step struct {
	at  time.Duration
	obs sim.Observation
}

const (
	c1 sim.ProcID = iota
	c2
	c3
	svc
	res
)

func history(withResource bool, end time.Duration, steps ...step) *sim.Trace {
	w := sim.NewWorld(sim.Config{Limits: sim.Limits{MaxEvents: 1_000_000, MaxTime: sim.MaxRunTime, MaxQueue: 100_000}})
	for _, n := range []string{"c1", "c2", "c3", "s"} {
		w.AddProcess(n, "test", sim.Clock{}, func(e sim.Env) sim.Process { return &puppet{e} })
	}
	if withResource {
		w.AddProcess("res", "resource", sim.Clock{}, func(e sim.Env) sim.Process { return &puppet{e} })
	}
	for _, s := range steps {
		if s.obs.Kind == 0 {
			w.Schedule(sim.Time(s.at), sim.Action{Kind: sim.ActCrash, Proc: s.obs.Proc})
			continue
		}
		o := s.obs
		if o.By == 0 && o.Kind != sim.ObsGrantEnd {
			o.By = sim.NoProc
		}
		w.Schedule(sim.Time(s.at), sim.Action{Kind: sim.ActCommand, Proc: o.Proc, Msg: sim.Message{Op: "obs", Body: o}})
	}
	w.Schedule(sim.Time(end), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	return w.Run()
}

func s(sec float64) time.Duration { return time.Duration(sec * float64(time.Second)) }

// believe: c comes to believe it holds L as the grant grant(.., c, ..) names.
func believe(at float64, c sim.ProcID) step {
	return step{s(at), sim.Observation{Kind: sim.ObsBeliefStart, Proc: c, Client: c, Lock: "L", Grant: "g" + string(rune('1'+c))}}
}
func stopBelieving(at float64, c sim.ProcID) step {
	return step{s(at), sim.Observation{Kind: sim.ObsBeliefEnd, Proc: c, Client: c, Lock: "L"}}
}
func grant(at float64, c sim.ProcID, window float64) step {
	return step{s(at), sim.Observation{Kind: sim.ObsGrant, Proc: svc, Service: "s", Client: c, Lock: "L", Grant: "g" + string(rune('1'+c)), Window: s(window)}}
}
func withdraw(at float64, c, by sim.ProcID, reason string) step {
	return step{s(at), sim.Observation{Kind: sim.ObsGrantEnd, Proc: svc, Service: "s", Client: c, By: by, Lock: "L", Grant: "g" + string(rune('1'+c)), Reason: reason}}
}
func attempt(at float64, c sim.ProcID) step {
	return step{s(at), sim.Observation{Kind: sim.ObsAttempt, Proc: c, Client: c, Lock: "L"}}
}
func crash(at float64, p sim.ProcID) step { return step{s(at), sim.Observation{Proc: p}} }

// op is an operation the resource res reports: by client c under grant (of lock L).
func op(at float64, c sim.ProcID, grant, what string, token int64, accepted bool) step {
	return step{s(at), sim.Observation{Kind: sim.ObsResource, Proc: res, Client: c, Lock: "L", Grant: grant, Op: what,
		Token: token, HasToken: token > 0, Accepted: accepted}}
}

func judge(t *testing.T, tr *sim.Trace, bound time.Duration, name string) check.Result {
	t.Helper()
	rep := check.Check(tr, check.Options{Bound: bound})
	r, ok := rep.Result(name)
	if !ok {
		t.Fatalf("no result for %s", name)
	}
	return r
}

func wantStatus(t *testing.T, r check.Result, status string, at ...time.Duration) {
	t.Helper()
	if r.Status() != status {
		t.Fatalf("%s: %s %v, want %s", r.Name, r.Status(), r.Violations, status)
	}
	for i, a := range at {
		if got := r.Violations[i].At; got != sim.Time(a) {
			t.Errorf("%s violation %d at %s, want %s", r.Name, i, got, sim.Time(a))
		}
	}
}

func TestMutexBelief(t *testing.T) {
	t.Run("overlapping beliefs violate it at the second start", func(t *testing.T) {
		tr := history(false, s(10), believe(1, c1), believe(2, c2), stopBelieving(3, c1))
		wantStatus(t, judge(t, tr, 0, "mutex-belief"), "violated", s(2))
	})
	t.Run("back-to-back beliefs hold", func(t *testing.T) {
		tr := history(false, s(10), believe(1, c1), stopBelieving(2, c1), believe(2, c2))
		wantStatus(t, judge(t, tr, 0, "mutex-belief"), "holds")
	})
	t.Run("a crash ends the crashed client's belief", func(t *testing.T) {
		tr := history(false, s(10), believe(1, c1), crash(2, c1), believe(3, c2))
		wantStatus(t, judge(t, tr, 0, "mutex-belief"), "holds")
	})
	t.Run("with no lock at all it is not applicable", func(t *testing.T) {
		tr := history(false, s(1))
		wantStatus(t, judge(t, tr, 0, "mutex-belief"), "n/a")
	})
}

func TestGrantExclusive(t *testing.T) {
	t.Run("a grant inside an earlier promise violates it", func(t *testing.T) {
		tr := history(false, s(20), grant(0, c1, 10), grant(5, c2, 10))
		wantStatus(t, judge(t, tr, 0, "grant-exclusive"), "violated", s(5))
	})
	t.Run("the owner's release closes the promise early", func(t *testing.T) {
		tr := history(false, s(20), grant(0, c1, 10), withdraw(3, c1, c1, sim.ReasonReleased), grant(5, c2, 10))
		wantStatus(t, judge(t, tr, 0, "grant-exclusive"), "holds")
	})
	t.Run("someone else's delete does not close it", func(t *testing.T) {
		tr := history(false, s(20), grant(0, c1, 10), withdraw(3, c1, c2, sim.ReasonDeleted), grant(5, c3, 10))
		r := judge(t, tr, 0, "grant-exclusive")
		wantStatus(t, r, "violated", s(5))
		if !strings.Contains(r.Violations[0].Detail, "deleted by c2") {
			t.Errorf("detail should say how the grant was withdrawn: %s", r.Violations[0].Detail)
		}
	})
	t.Run("a grant after the promise ran out holds", func(t *testing.T) {
		tr := history(false, s(20), grant(0, c1, 10), grant(10, c2, 10))
		wantStatus(t, judge(t, tr, 0, "grant-exclusive"), "holds")
	})
	t.Run("the same client's re-grant (an extension) holds", func(t *testing.T) {
		tr := history(false, s(20), grant(0, c1, 0), grant(1, c1, 10), grant(12, c2, 1))
		wantStatus(t, judge(t, tr, 0, "grant-exclusive"), "holds")
	})
	// A replicated service's grant reports carry their log position (Seq): a new
	// leader that re-applies entries its predecessor already reported repeats them.
	seq := func(st step, n int64) step { st.obs.Seq = n; return st }
	t.Run("a new leader's replay of an earlier log entry is not a grant", func(t *testing.T) {
		tr := history(false, s(20), seq(grant(0, c1, 0), 1), seq(withdraw(1, c1, c1, sim.ReasonReleased), 2),
			seq(grant(1, c2, 0), 3), seq(grant(5, c1, 0), 1), seq(grant(6, c3, 0), 4))
		// Only c3's grant, while c2 still holds, is a violation: c1's replay is not.
		wantStatus(t, judge(t, tr, 0, "grant-exclusive"), "violated", s(6))
	})
	t.Run("a renewal of the offending grant is not a second violation", func(t *testing.T) {
		// SETNX (no expiry), then PEXPIRE: one acquisition, one violation.
		tr := history(false, s(20), grant(0, c1, 10), grant(2, c2, 0), grant(2.001, c2, 10), grant(5, c2, 10))
		r := judge(t, tr, 0, "grant-exclusive")
		wantStatus(t, r, "violated", s(2))
		if len(r.Violations) != 1 {
			t.Errorf("%d violations, want 1: %v", len(r.Violations), r.Violations)
		}
	})
	t.Run("the same report without a log position is a second grant", func(t *testing.T) {
		tr := history(false, s(20), grant(0, c1, 0), withdraw(1, c1, c1, sim.ReasonReleased),
			grant(1, c2, 0), grant(5, c1, 0))
		wantStatus(t, judge(t, tr, 0, "grant-exclusive"), "violated", s(5))
	})
}

func TestResourceSafe(t *testing.T) {
	t.Run("a stale write after another section violates it", func(t *testing.T) {
		tr := history(true, s(20), op(1, c1, "c1#1", "read", 0, true), op(2, c2, "c2#1", "read", 0, true),
			op(3, c2, "c2#1", "write", 0, true), op(4, c1, "c1#1", "write", 0, true))
		wantStatus(t, judge(t, tr, 0, "resource-safe"), "violated", s(4))
		wantStatus(t, judge(t, tr, 0, "fencing-monotonic"), "n/a")
	})
	t.Run("a rejected stale write keeps it", func(t *testing.T) {
		tr := history(true, s(20), op(1, c1, "c1#1", "read", 33, true), op(2, c2, "c2#1", "write", 34, true),
			op(4, c1, "c1#1", "write", 33, false))
		wantStatus(t, judge(t, tr, 0, "resource-safe"), "holds")
		wantStatus(t, judge(t, tr, 0, "fencing-monotonic"), "holds")
	})
	t.Run("accepting a lower token violates fencing-monotonic", func(t *testing.T) {
		tr := history(true, s(20), op(1, c2, "c2#1", "write", 34, true), op(2, c1, "c1#1", "write", 33, true))
		wantStatus(t, judge(t, tr, 0, "fencing-monotonic"), "violated", s(2))
	})
}

func TestDeadlockFree(t *testing.T) {
	t.Run("a holder's crash with a grant that never ends violates it at the bound", func(t *testing.T) {
		tr := history(false, s(100), grant(0, c1, 0), crash(1, c1))
		wantStatus(t, judge(t, tr, s(30), "deadlock-free"), "violated", s(31))
	})
	t.Run("an expiry within the bound frees the lock", func(t *testing.T) {
		tr := history(false, s(100), grant(0, c1, 10), crash(1, c1), withdraw(10, c1, svc, sim.ReasonExpired))
		wantStatus(t, judge(t, tr, s(30), "deadlock-free"), "holds")
	})
	t.Run("a run shorter than the bound is not judged, never holds", func(t *testing.T) {
		tr := history(false, s(20), grant(0, c1, 0), crash(1, c1))
		r := judge(t, tr, s(30), "deadlock-free")
		wantStatus(t, r, "n/a")
		if !strings.Contains(r.Note, "before the 30.000s bound") {
			t.Errorf("note %q should say why", r.Note)
		}
	})
	t.Run("nobody crashed holding: not applicable", func(t *testing.T) {
		tr := history(false, s(20), grant(0, c1, 0), crash(1, c2))
		wantStatus(t, judge(t, tr, s(30), "deadlock-free"), "n/a")
	})
}

func TestProgress(t *testing.T) {
	t.Run("nobody acquiring within the bound after the last fault violates it", func(t *testing.T) {
		tr := history(false, s(100), attempt(0, c1), crash(5, c3), attempt(6, c2))
		wantStatus(t, judge(t, tr, s(10), "progress"), "violated", s(15))
	})
	t.Run("an acquisition within the bound holds", func(t *testing.T) {
		tr := history(false, s(100), attempt(0, c1), believe(9, c1))
		wantStatus(t, judge(t, tr, s(10), "progress"), "holds")
	})
	t.Run("a run shorter than the bound is not judged", func(t *testing.T) {
		tr := history(false, s(12), attempt(0, c1), crash(5, c3))
		wantStatus(t, judge(t, tr, s(10), "progress"), "n/a")
	})
	t.Run("a lock held when faults stop is progress", func(t *testing.T) {
		tr := history(false, s(100), attempt(0, c1), believe(1, c1), attempt(2, c2), crash(3, c3))
		wantStatus(t, judge(t, tr, s(10), "progress"), "holds")
	})
}

// The verdict rule: with a protected resource only resource invariants decide UNSAFE.
func TestVerdictRule(t *testing.T) {
	both := []step{believe(1, c1), believe(2, c2)}
	if v := check.Check(history(false, s(5), both...), check.Options{}).Verdict; v != check.UNSAFE {
		t.Errorf("no resource, mutex-belief violated: %s, want UNSAFE", v)
	}
	fenced := append(both, op(3, c2, "c2#1", "write", 2, true), op(4, c1, "c1#1", "write", 1, false))
	if v := check.Check(history(true, s(5), fenced...), check.Options{}).Verdict; v != check.SAFE {
		t.Errorf("resource safe, mutex-belief violated: %s, want SAFE", v)
	}
	lost := append(both, op(3, c1, "c1#1", "read", 0, true), op(3.5, c2, "c2#1", "write", 0, true), op(4, c1, "c1#1", "write", 0, true))
	if v := check.Check(history(true, s(5), lost...), check.Options{}).Verdict; v != check.UNSAFE {
		t.Errorf("lost update: %s, want UNSAFE", v)
	}
	stuck := history(false, s(100), grant(0, c1, 0), crash(1, c1))
	if v := check.Check(stuck, check.Options{Bound: s(10)}).Verdict; v != check.STUCK {
		t.Errorf("dead lock: %s, want STUCK", v)
	}
}

func TestUnavailabilityMetric(t *testing.T) {
	metric := func(tr *sim.Trace, name string) float64 {
		rep := check.Check(tr, check.Options{})
		v, _ := rep.Metric(name)
		return v
	}
	// c1 dies holding a grant that never ends; c2 wants the lock from 3 s to the end.
	dead := history(false, s(10), attempt(0, c1), grant(1, c1, 0), believe(1, c1), crash(2, c1), attempt(3, c2))
	if v := metric(dead, "unavailable_ms"); v != 7000 {
		t.Errorf("dead holder: unavailable_ms = %v, want 7000 (3 s to 10 s)", v)
	}
	if v := metric(dead, "acquisitions"); v != 1 {
		t.Errorf("acquisitions = %v, want 1", v)
	}
	// c2 waits while c1 holds (the lock is in use), then while the lock is free and
	// c2 waits out its retry delay: neither is unavailability.
	busy := history(false, s(10), attempt(0, c1), grant(0.5, c1, 10), believe(1, c1), attempt(4, c2),
		stopBelieving(5, c1), withdraw(5, c1, c1, sim.ReasonReleased), grant(6, c2, 10), believe(6, c2))
	if v := metric(busy, "unavailable_ms"); v != 0 {
		t.Errorf("busy then free: unavailable_ms = %v, want 0", v)
	}
	// A single client retrying (Redlock after a failed round): the only grant in
	// its way is its own earlier key, which is no unavailability (invariants.md).
	own := history(false, s(10), attempt(0, c1), grant(0.5, c1, 5),
		step{s(1), sim.Observation{Kind: sim.ObsAttemptFailed, Proc: c1, Client: c1, Lock: "L", Reason: "retry"}},
		withdraw(5.5, c1, svc, sim.ReasonExpired))
	if v := metric(own, "unavailable_ms"); v != 0 {
		t.Errorf("own earlier key: unavailable_ms = %v, want 0", v)
	}
	// ... while another client's key in the same stretch counts.
	other := history(false, s(10), attempt(0, c1), attempt(0.2, c2), grant(0.5, c2, 5), believe(0.5, c2), crash(1, c2),
		withdraw(5.5, c2, svc, sim.ReasonExpired), grant(6, c1, 5), believe(6, c1))
	if v := metric(other, "unavailable_ms"); v != 4500 {
		t.Errorf("a dead holder's key: unavailable_ms = %v, want 4500 (1 s to 5.5 s)", v)
	}
}

// Regressions from review: each history is a reviewer's counterexample, reduced.
func TestLivenessRegressions(t *testing.T) {
	t.Run("a grant to a client already down is an orphan", func(t *testing.T) {
		tr := history(false, s(100), crash(0.5, c1), grant(1, c1, 0))
		wantStatus(t, judge(t, tr, s(30), "deadlock-free"), "violated", s(31))
	})
	t.Run("a failed try-lock that gave up is not a stuck lock", func(t *testing.T) {
		tr := history(false, s(100), attempt(1, c2), step{s(1.1), sim.Observation{Kind: sim.ObsGiveUp, Proc: c2, Client: c2, Lock: "L"}})
		wantStatus(t, judge(t, tr, s(30), "progress"), "holds")
	})
	t.Run("progress is judged again after each acquisition", func(t *testing.T) {
		tr := history(false, s(200), attempt(0, c2), believe(0.5, c2), stopBelieving(1, c2), attempt(2, c1))
		wantStatus(t, judge(t, tr, s(30), "progress"), "violated", s(32))
	})
	t.Run("a bound that runs out exactly at the end is not judged", func(t *testing.T) {
		tr := history(false, s(10), attempt(0, c1))
		wantStatus(t, judge(t, tr, s(10), "progress"), "n/a")
	})
	t.Run("a holder's crash while the service is down is not the holder's deadlock", func(t *testing.T) {
		// The service never comes back: an outage, not a deadlock (progress judges it).
		tr := history(false, s(100), grant(0, c1, 5), crash(1, svc), crash(2, c1))
		wantStatus(t, judge(t, tr, s(10), "deadlock-free"), "holds")
	})
}
