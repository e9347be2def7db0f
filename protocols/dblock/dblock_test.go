package dblock_test

import (
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/dblock"
	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/check"
)

// Tests of the database model, grouped by what they prove. Sources: PostgreSQL
// documentation, "Explicit Locking" (row locks queue and are released at the
// transaction's end), "lock_timeout"; MySQL documentation,
// "innodb_lock_wait_timeout"; lostinsoba, "Distributed locks: SQL".

func cmd(w *sim.World, at time.Duration, c sim.ProcID, op string) {
	w.Schedule(sim.Time(at), sim.Action{Kind: sim.ActCommand, Proc: c, Msg: sim.Message{Op: op, Key: "L"}})
}

func beliefStarts(tr *sim.Trace) []string {
	var out []string
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsBeliefStart {
			out = append(out, tr.Names[o.Client])
		}
	}
	return out
}

func fixed(d time.Duration) lockkit.Retry { return lockkit.Retry{Backoff: lockkit.Fixed, Delay: d} }

// Blocked FOR UPDATE statements get the row in the order they asked, each at
// the previous holder's COMMIT.
func TestForUpdateQueuesInArrivalOrder(t *testing.T) {
	w, cs := newWorld(1, 0, make([]sim.Clock, 3), func(int) dblock.ClientConfig {
		return dblock.ClientConfig{Server: server, Mode: dblock.ModeForUpdate, Hold: time.Second}
	})
	cmd(w, 100*time.Millisecond, cs[0], dblock.CmdAcquire)
	cmd(w, 300*time.Millisecond, cs[2], dblock.CmdAcquire) // c3 before c2
	cmd(w, 500*time.Millisecond, cs[1], dblock.CmdAcquire)
	tr := w.Run()
	if got := beliefStarts(tr); len(got) != 3 || got[0] != "c1" || got[1] != "c3" || got[2] != "c2" {
		t.Fatalf("holders in order %v, want [c1 c3 c2]", got)
	}
}

// A restart keeps every committed row (the unique-key lock survives it) and
// drops every row lock (the open transactions are rolled back).
func TestRestartKeepsCommittedRowsAndDropsRowLocks(t *testing.T) {
	for _, tc := range []struct {
		mode      dblock.Mode
		c2Acquire bool // c2 gets the lock after the restart
	}{{dblock.ModeInsert, false}, {dblock.ModeForUpdate, true}} {
		t.Run(tc.mode.String(), func(t *testing.T) {
			w, cs := newWorld(1, 0, make([]sim.Clock, 2), func(int) dblock.ClientConfig {
				return dblock.ClientConfig{Server: server, Mode: tc.mode, Retry: fixed(500 * time.Millisecond)}
			})
			cmd(w, 100*time.Millisecond, cs[0], dblock.CmdAcquire)
			w.Schedule(sim.Time(time.Second), sim.Action{Kind: sim.ActCrash, Proc: server})
			w.Schedule(sim.Time(1500*time.Millisecond), sim.Action{Kind: sim.ActRestart, Proc: server})
			cmd(w, 2*time.Second, cs[1], dblock.CmdAcquire)
			w.Schedule(sim.Time(5*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
			tr := w.Run()
			got := beliefStarts(tr)
			if c2 := len(got) == 2 && got[1] == "c2"; c2 != tc.c2Acquire {
				t.Fatalf("holders %v; c2 acquiring after the restart: %v, want %v", got, c2, tc.c2Acquire)
			}
			if v := violations(check.Check(tr, check.Options{}), "grant-exclusive"); len(v) > 0 {
				t.Fatalf("grant-exclusive: %s", v[0].Detail)
			}
		})
	}
}

// The lock wait timeout interrupts a waiter, which retries by its policy; the
// holder keeps the row.
func TestLockWaitTimeoutInterruptsTheWaiterOnly(t *testing.T) {
	w, cs := newWorld(1, time.Second, make([]sim.Clock, 2), func(i int) dblock.ClientConfig {
		return dblock.ClientConfig{Server: server, Mode: dblock.ModeForUpdate, Hold: 3 * time.Second, Retry: fixed(100 * time.Millisecond)}
	})
	cmd(w, 100*time.Millisecond, cs[0], dblock.CmdAcquire)
	cmd(w, 200*time.Millisecond, cs[1], dblock.CmdAcquire)
	tr := w.Run()
	rep := check.Check(tr, check.Options{})
	if n, _ := rep.Metric("lock_wait_timeouts"); n != 2 {
		t.Errorf("lock_wait_timeouts %v, want 2 (c2 waits 1 s twice, then gets the row at c1's commit)", n)
	}
	if got := beliefStarts(tr); len(got) != 2 || got[1] != "c2" {
		t.Fatalf("holders %v, want c1 then c2", got)
	}
}

// Exponential backoff doubles from the first delay up to its cap.
func TestExponentialBackoffDoublesUpToItsCap(t *testing.T) {
	w, cs := newWorld(1, 0, make([]sim.Clock, 2), func(i int) dblock.ClientConfig {
		return dblock.ClientConfig{Server: server, Mode: dblock.ModeInsert,
			Retry: lockkit.Retry{Backoff: lockkit.Exponential, Delay: 100 * time.Millisecond, Max: 800 * time.Millisecond, JitterPercent: 10, Attempts: 7}}
	})
	cmd(w, 0, cs[0], dblock.CmdAcquire)
	cmd(w, 100*time.Millisecond, cs[1], dblock.CmdAcquire)
	tr := w.Run()
	var at []sim.Time
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsAttemptFailed && o.Client == cs[1] {
			at = append(at, o.At)
		}
	}
	if len(at) != 7 {
		t.Fatalf("%d failed attempts, want 7", len(at))
	}
	for i, want := range []time.Duration{100, 200, 400, 800, 800, 800} {
		gap := time.Duration(at[i+1] - at[i])
		lo := want * time.Millisecond
		if gap < lo || gap > lo+lo/10+10*time.Millisecond { // up to 10% jitter, plus the round trip
			t.Errorf("wait %d was %s, want %s (+10%% jitter and a round trip)", i+1, gap, lo)
		}
	}
}

// A client's ping counts as lost when it has gone unanswered for two keepalive
// periods, whichever statement the client awaits (docs/protocols/database.md,
// Connections). An optimistic update is a second statement after the read:
// before lockkit.Keepalive the client judged its silence from the read's start,
// and called the connection lost one period after its first unanswered ping.
func TestAPingCountsAsLostAfterTwoUnansweredPeriods(t *testing.T) {
	w := sim.NewWorld(sim.Config{Seed: 1, Limits: sim.DefaultLimits()})
	db := w.AddProcess("sql", "db", sim.Clock{}, dblock.NewNode(dblock.NodeConfig{Rows: []string{"L"}}))
	c1 := w.AddProcess("c1", "client", sim.Clock{}, dblock.NewClient(dblock.ClientConfig{Server: db, Mode: dblock.ModeCAS,
		Compare: true, Keepalive: time.Second}))
	w.Network().SetDefault(sim.Link{Delay: time.Millisecond})
	cmd(w, 100*time.Millisecond, c1, dblock.CmdUpdate)
	// The read is answered at 0.102 s; nothing the database sends after it arrives.
	w.Schedule(sim.Time(102500*time.Microsecond), sim.Action{Kind: sim.ActPartition, A: []sim.ProcID{db}, B: []sim.ProcID{c1}, OneWay: true})
	w.Schedule(sim.Time(5*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	tr := w.Run()
	firstPing, lost := sim.Never, sim.Never
	for i := range tr.Len() {
		if e := tr.Event(i); e.Kind == sim.EvSend && e.Proc == c1 && tr.Msg(e).Op == dblock.OpPing && firstPing == sim.Never {
			firstPing = e.At
		}
	}
	for _, o := range tr.Observations() {
		if o.Kind == sim.ObsNote && strings.Contains(o.Text, "connection lost") && lost == sim.Never {
			lost = o.At
		}
	}
	if firstPing == sim.Never || lost == sim.Never || time.Duration(lost-firstPing) < 2*time.Second {
		t.Fatalf("first unanswered ping at %s, connection lost at %s; want two keepalive periods (2s) between", firstPing, lost)
	}
}

// ShedLock's lockAtMostFor shorter than the task, told with other timings than
// the catalogue's db-lease-task-outlives-lease: a 3 s lease, a 5 s task, and
// c2 polling every 250 ms from 500 ms. Without a validity timer, c2 takes the
// lapsed lease at about 3 s while c1 works on until 5 s; with it, c1 stops at
// its lease's end and the beliefs never overlap. Source: ShedLock's README,
// lockAtMostFor ("more than one process will effectively hold the lock").
func TestLeaseOutlivedByItsTaskHasTwoHolders(t *testing.T) {
	for _, tc := range []struct {
		noValidity bool
		want       string
	}{{true, "violated"}, {false, "holds"}} {
		w, cs := newWorld(1, 0, make([]sim.Clock, 2), func(i int) dblock.ClientConfig {
			return dblock.ClientConfig{Server: server, Mode: dblock.ModeLease, TTL: 3 * time.Second, NoValidity: tc.noValidity,
				Hold: 5 * time.Second, Retry: fixed(250 * time.Millisecond)}
		})
		cmd(w, 0, cs[0], dblock.CmdAcquire)
		cmd(w, 500*time.Millisecond, cs[1], dblock.CmdAcquire)
		rep := check.Check(w.Run(), check.Options{})
		for inv, want := range map[string]string{"mutex-belief": tc.want, "grant-exclusive": "holds"} {
			if r, _ := rep.Result(inv); r.Status() != want {
				t.Errorf("validity timer off=%v: %s %s, want %s (%v)", tc.noValidity, inv, r.Status(), want, r.Violations)
			}
		}
	}
}
