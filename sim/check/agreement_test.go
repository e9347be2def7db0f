package check_test

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/sim"
)

// commit-agreement, nonblocking, one-value-chosen and value-chosen against
// hand-made histories (docs/invariants.md). Sources: Bernstein, Hadzilacos and
// Goodman (1987), ch. 7 (AC1: all that decide decide alike; AC3: commit only if
// all voted yes; nonblocking); Lamport, "Paxos Made Simple" (2001) (a value is
// chosen when a majority of acceptors accept it under one proposal number).

// agreementWorld has a coordinator co and participants p1, p2, p3 (role
// "participant"), or with acceptors, proposer pr and acceptors a1, a2, a3 (role
// "acceptor"). Each step is an observation by its Proc, or a crash when Kind is 0.
func agreementWorld(acceptors bool, end time.Duration, steps ...step) *sim.Trace {
	w := sim.NewWorld(sim.Config{})
	names, role := []string{"co", "p1", "p2", "p3"}, sim.RoleParticipant
	if acceptors {
		names, role = []string{"pr", "a1", "a2", "a3"}, sim.RoleAcceptor
	}
	for i, n := range names {
		r := role
		if i == 0 {
			r = "coordinator"
		}
		w.AddProcess(n, r, sim.Clock{}, func(e sim.Env) sim.Process { return &puppet{e} })
	}
	for _, s := range steps {
		if s.obs.Kind == 0 {
			w.Schedule(sim.Time(s.at), sim.Action{Kind: sim.ActCrash, Proc: s.obs.Proc})
			continue
		}
		o := s.obs
		o.Client, o.By = sim.NoProc, sim.NoProc
		w.Schedule(sim.Time(s.at), sim.Action{Kind: sim.ActCommand, Proc: o.Proc, Msg: sim.Message{Op: "obs", Body: o}})
	}
	w.Schedule(sim.Time(end), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	return w.Run()
}

const (
	co sim.ProcID = iota
	p1
	p2
	p3
)

func begin(at float64) step {
	return step{s(at), sim.Observation{Kind: sim.ObsBegin, Proc: co, Lock: "T", Value: 3}}
}
func vote(at float64, p sim.ProcID, v string) step {
	return step{s(at), sim.Observation{Kind: sim.ObsVote, Proc: p, Lock: "T", Name: v}}
}
func decideAt(at float64, p sim.ProcID, d string) step {
	return step{s(at), sim.Observation{Kind: sim.ObsDecide, Proc: p, Lock: "T", Name: d}}
}
func allYes(at float64) []step {
	return []step{vote(at, p1, "yes"), vote(at, p2, "yes"), vote(at, p3, "yes")}
}

func TestCommitAgreement(t *testing.T) {
	t.Run("all deciding alike after all voted yes holds", func(t *testing.T) {
		steps := append([]step{begin(0)}, allYes(0.1)...)
		steps = append(steps, decideAt(0.2, co, "commit"), decideAt(0.3, p1, "commit"), decideAt(0.3, p2, "commit"))
		wantStatus(t, judge(t, agreementWorld(false, s(5), steps...), 0, "commit-agreement"), "holds")
	})
	t.Run("one side committing and the other aborting violates it", func(t *testing.T) {
		steps := append([]step{begin(0)}, allYes(0.1)...)
		steps = append(steps, decideAt(1, co, "commit"), decideAt(1.1, p1, "commit"), decideAt(2, p2, "abort"))
		r := judge(t, agreementWorld(false, s(5), steps...), 0, "commit-agreement")
		wantStatus(t, r, "violated", s(2))
		if d := r.Violations[0].Detail; !strings.Contains(d, "p2 decides ABORT T") || !strings.Contains(d, "co decided COMMIT") {
			t.Errorf("the detail should say who decided what: %s", d)
		}
	})
	t.Run("a commit without every yes violates it", func(t *testing.T) {
		tr := agreementWorld(false, s(5), begin(0), vote(0.1, p1, "yes"), vote(0.1, p2, "yes"), decideAt(0.2, co, "commit"))
		r := judge(t, tr, 0, "commit-agreement")
		wantStatus(t, r, "violated", s(0.2))
		if !strings.Contains(r.Violations[0].Detail, "p3 did not vote yes") {
			t.Errorf("detail: %s", r.Violations[0].Detail)
		}
	})
	t.Run("without votes or decisions it is not applicable", func(t *testing.T) {
		wantStatus(t, judge(t, agreementWorld(false, s(1)), 0, "commit-agreement"), "n/a")
	})
}

func TestNonblocking(t *testing.T) {
	t.Run("every participant deciding within the bound holds", func(t *testing.T) {
		steps := append([]step{begin(0)}, allYes(0.1)...)
		steps = append(steps, decideAt(1, p1, "commit"), decideAt(1, p2, "commit"), decideAt(1, p3, "commit"))
		wantStatus(t, judge(t, agreementWorld(false, s(20), steps...), s(10), "nonblocking"), "holds")
	})
	t.Run("an uncertain participant at the bound violates it", func(t *testing.T) {
		steps := append([]step{begin(0)}, allYes(0.1)...)
		steps = append(steps, decideAt(1, p1, "commit"), decideAt(1, p2, "commit"))
		r := judge(t, agreementWorld(false, s(20), steps...), s(10), "nonblocking")
		wantStatus(t, r, "violated", s(10))
		if !strings.Contains(r.Violations[0].Detail, "p3 (voted yes and is uncertain)") {
			t.Errorf("detail: %s", r.Violations[0].Detail)
		}
	})
	t.Run("a participant that is down at the bound is not judged", func(t *testing.T) {
		steps := append([]step{begin(0)}, allYes(0.1)...)
		steps = append(steps, decideAt(1, p1, "commit"), decideAt(1, p2, "commit"), crash(2, p3))
		wantStatus(t, judge(t, agreementWorld(false, s(20), steps...), s(10), "nonblocking"), "holds")
	})
	t.Run("a run that ends before the bound is not judged", func(t *testing.T) {
		steps := append([]step{begin(0)}, allYes(0.1)...)
		wantStatus(t, judge(t, agreementWorld(false, s(5), steps...), s(10), "nonblocking"), "n/a")
	})
}

func accept(at float64, a sim.ProcID, v string, n int64) step {
	return step{s(at), sim.Observation{Kind: sim.ObsAccepted, Proc: a, Lock: "decree", Grant: v, Token: n}}
}
func propose(at float64, v string) step {
	return step{s(at), sim.Observation{Kind: sim.ObsBegin, Proc: co, Lock: "decree", Grant: v}}
}

func TestOneValueChosen(t *testing.T) {
	t.Run("a majority for one value, then the same value again, holds", func(t *testing.T) {
		tr := agreementWorld(true, s(5), propose(0, "A"), accept(1, p1, "A", 1), accept(1, p2, "A", 1), accept(2, p2, "A", 2), accept(2, p3, "A", 2))
		wantStatus(t, judge(t, tr, 0, "one-value-chosen"), "holds")
	})
	t.Run("two values each accepted by a majority violates it", func(t *testing.T) {
		tr := agreementWorld(true, s(5), propose(0, "A"), accept(1, p1, "A", 1), accept(1, p2, "A", 1), accept(2, p2, "B", 2), accept(2.5, p3, "B", 2))
		r := judge(t, tr, 0, "one-value-chosen")
		wantStatus(t, r, "violated", s(2.5))
		if d := r.Violations[0].Detail; !strings.Contains(d, "B is chosen") || !strings.Contains(d, "but A was chosen") {
			t.Errorf("the detail should name both values: %s", d)
		}
	})
	t.Run("a minority for a second value is not a choice", func(t *testing.T) {
		tr := agreementWorld(true, s(5), propose(0, "A"), accept(1, p1, "A", 1), accept(1, p2, "A", 1), accept(2, p3, "B", 2))
		wantStatus(t, judge(t, tr, 0, "one-value-chosen"), "holds")
	})
	t.Run("accepts under different numbers do not add up", func(t *testing.T) {
		tr := agreementWorld(true, s(20), propose(0, "A"), accept(1, p1, "A", 1), accept(2, p2, "A", 2))
		wantStatus(t, judge(t, tr, s(10), "value-chosen"), "violated", s(10))
	})
}

func TestValueChosen(t *testing.T) {
	t.Run("a value chosen within the bound holds", func(t *testing.T) {
		tr := agreementWorld(true, s(20), propose(0, "A"), accept(1, p1, "A", 1), accept(1, p2, "A", 1))
		wantStatus(t, judge(t, tr, s(10), "value-chosen"), "holds")
	})
	t.Run("nothing chosen by the bound violates it", func(t *testing.T) {
		tr := agreementWorld(true, s(20), propose(0, "A"), accept(1, p1, "A", 1))
		wantStatus(t, judge(t, tr, s(10), "value-chosen"), "violated", s(10))
	})
	t.Run("without a proposal it is not applicable", func(t *testing.T) {
		wantStatus(t, judge(t, agreementWorld(true, s(20)), s(10), "value-chosen"), "n/a")
	})
}
