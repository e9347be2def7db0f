package dblock_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/locksim/locksim/protocols/dblock"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

// Tests of the database's transactions, grouped by what they prove: the four
// differences with PostgreSQL 15 that issue 31 filed, each as PostgreSQL's
// documentation and source describe it (13.2.1 "Read Committed Isolation
// Level", 13.3.2 "Row-Level Locks", 13.3.4 "Deadlocks", deadlock_timeout;
// src/backend/storage/lmgr/README, "Deadlock Detection"). Package fidelity
// holds the same behaviour to the real server, reply for reply; these tests
// hold it to its timing and to its rules under random schedules.

// A statement a session sends at a time, on the session's connection.
type stmtAt struct {
	at time.Duration
	s  *dblock.Stmt
}

// An answer a session got: when, to which statement, and what.
type answer struct {
	at   sim.Time
	kind dblock.StmtKind
	text string // "SELECT 1", "ERROR 40P01", ...
}

// session sends its statements at their times; then, whenever then says so,
// one more on each answer.
type session struct {
	env     sim.Env
	db      sim.ProcID
	script  []stmtAt
	sent    map[uint64]*dblock.Stmt
	next    uint64
	answers *[]answer
	then    func(a answer) *dblock.Stmt // a statement to send on an answer (nil: none)
}

func (s *session) Describe() string { return "" }

func (s *session) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch in.Kind {
	case sim.InRestart:
		for i, st := range s.script {
			out.SetTimer(sim.TimerID(i+1), st.at)
		}
	case sim.InTimer:
		s.send(s.script[in.Timer-1].s, out)
	case sim.InMessage:
		st := s.sent[in.Msg.ID]
		if st == nil || in.Msg.Op == dblock.OpPong {
			return
		}
		text := strings.TrimSpace(in.Msg.Op + " " + in.Msg.Value)
		if in.Msg.Op == dblock.RepError {
			text = "ERROR " + in.Msg.Key
		}
		a := answer{at: sim.Time(now.Mono), kind: st.Kind, text: text}
		*s.answers = append(*s.answers, a)
		if s.then != nil {
			if next := s.then(a); next != nil {
				s.send(next, out)
			}
		}
	}
}

func (s *session) send(st *dblock.Stmt, out *sim.Outputs) {
	s.next++
	s.sent[s.next] = st
	m := st.Message()
	m.ID = s.next
	out.Send(s.db, m)
}

// txnWorld is a database with rows L, M, N, ... and one session per script;
// links are instant, so answers come at the times the database decides.
func txnWorld(rows []string, scripts [][]stmtAt, then func(i int, a answer) *dblock.Stmt) (*sim.World, [][]answer) {
	w := sim.NewWorld(sim.Config{Seed: 1, Limits: sim.Limits{MaxEvents: 100_000, MaxTime: 30 * time.Second, MaxQueue: 10_000}})
	w.Network().SetDefault(sim.Link{})
	db := w.AddProcess("db", "db", sim.Clock{}, dblock.NewNode(dblock.NodeConfig{Rows: rows, ConnTimeout: time.Hour}))
	answers := make([][]answer, len(scripts))
	for i, sc := range scripts {
		i, sc := i, sc
		w.AddProcess(fmt.Sprintf("c%d", i+1), "client", sim.Clock{}, func(env sim.Env) sim.Process {
			s := &session{env: env, db: db, script: sc, sent: map[uint64]*dblock.Stmt{}, answers: &answers[i]}
			if then != nil {
				s.then = func(a answer) *dblock.Stmt { return then(i, a) }
			}
			return s
		})
	}
	return w, answers
}

func lock(row string) *dblock.Stmt { return &dblock.Stmt{Kind: dblock.StForUpdate, Row: row} }

var (
	commit   = &dblock.Stmt{Kind: dblock.StCommit}
	rollback = &dblock.Stmt{Kind: dblock.StRollback}
)

func ms(d int) time.Duration { return time.Duration(d) * time.Millisecond }

// answerTo is the session's first answer to a statement of that kind after
// from, or a zero answer.
func answerTo(as []answer, kind dblock.StmtKind, from sim.Time) answer {
	for _, a := range as {
		if a.kind == kind && a.at >= from {
			return a
		}
	}
	return answer{}
}

// Item 1: a row locked FOR UPDATE makes other sessions' writes wait for the
// holder's COMMIT: the optimistic UPDATE and the lease upsert answer then,
// not before; a read answers at once.
func TestARowLockedForUpdateBlocksWriters(t *testing.T) {
	w, got := txnWorld([]string{"L"}, [][]stmtAt{
		{{0, lock("L")}, {ms(2000), commit}},
		{{ms(100), &dblock.Stmt{Kind: dblock.StCAS, Row: "L", Version: 1, Value: 5, Compare: true}}},
		{{ms(200), &dblock.Stmt{Kind: dblock.StLease, Row: "L", Owner: "c3#1", TTL: time.Second, DBNow: true}}},
		{{ms(300), &dblock.Stmt{Kind: dblock.StRead, Row: "L"}}},
	}, nil)
	w.Schedule(sim.Time(5*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	w.Run()
	for i, want := range []answer{
		{at: sim.Time(ms(2000)), kind: dblock.StCAS, text: "UPDATE 1"},
		{at: sim.Time(ms(2000)), kind: dblock.StLease, text: "INSERT 0 1"},
		{at: sim.Time(ms(300)), kind: dblock.StRead, text: "SELECT 1"},
	} {
		if a := answerTo(got[i+1], want.kind, 0); a != want {
			t.Errorf("c%d: %+v, want %+v", i+2, a, want)
		}
	}
}

// Item 2: a transaction holds every row it locked until it ends, and its
// COMMIT frees them all.
func TestATransactionHoldsEveryRowItLocked(t *testing.T) {
	w, got := txnWorld([]string{"L", "M"}, [][]stmtAt{
		{{0, lock("L")}, {ms(100), lock("M")}, {ms(1000), commit}},
		{{ms(200), lock("L")}},
		{{ms(300), lock("M")}},
	}, nil)
	w.Schedule(sim.Time(5*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
	w.Run()
	for i := 1; i <= 2; i++ {
		if a := answerTo(got[i], dblock.StForUpdate, 0); a.text != "SELECT 1" || a.at != sim.Time(ms(1000)) {
			t.Errorf("c%d got %+v, want SELECT 1 at c1's COMMIT (1 s)", i+1, a)
		}
	}
}

// Item 3: two transactions waiting for each other's rows. The one that began
// to wait first checks deadlock_timeout (1 s) later, finds the cycle and is
// the victim (40P01), whatever its name; the other gets its row at that
// moment; the victim's block answers 25P02 until it rolls back.
func TestADeadlockAbortsTheWaiterWhoseCheckFindsTheCycle(t *testing.T) {
	for _, first := range []int{0, 1} {
		t.Run(fmt.Sprintf("c%d-waits-first", first+1), func(t *testing.T) {
			asks := []time.Duration{ms(300), ms(300)}
			asks[first] = ms(100)
			w, got := txnWorld([]string{"L", "M"}, [][]stmtAt{
				{{0, lock("L")}, {asks[0], lock("M")}, {ms(3000), &dblock.Stmt{Kind: dblock.StRead, Row: "L"}}, {ms(3100), rollback}},
				{{0, lock("M")}, {asks[1], lock("L")}, {ms(3000), &dblock.Stmt{Kind: dblock.StRead, Row: "L"}}, {ms(3100), rollback}},
			}, nil)
			w.Schedule(sim.Time(5*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
			w.Run()
			victim, other := got[first], got[1-first]
			at := sim.Time(ms(100) + dblock.DefaultDeadlockTimeout)
			if a := answerTo(victim, dblock.StForUpdate, sim.Time(ms(1))); a.text != "ERROR 40P01" || a.at != at {
				t.Errorf("c%d's second lock: %+v, want ERROR 40P01 at %s", first+1, a, time.Duration(at))
			}
			if a := answerTo(other, dblock.StForUpdate, sim.Time(ms(1))); a.text != "SELECT 1" || a.at != at {
				t.Errorf("c%d's second lock: %+v, want SELECT 1 at %s, when the victim's row is freed", 2-first, a, time.Duration(at))
			}
			if a := answerTo(victim, dblock.StRead, 0); a.text != "ERROR 25P02" {
				t.Errorf("the victim's read before its ROLLBACK: %+v, want ERROR 25P02", a)
			}
			if a := answerTo(victim, dblock.StRollback, 0); a.text != "ROLLBACK" {
				t.Errorf("the victim's ROLLBACK: %+v", a)
			}
		})
	}
}

// Item 4: an INSERT of a key another open transaction has inserted waits for
// it: 23505 when it commits, INSERT 0 1 when it rolls back.
func TestAnInsertWaitsForAnOpenInsert(t *testing.T) {
	for _, tc := range []struct {
		end  *dblock.Stmt
		want string
	}{{commit, "ERROR 23505"}, {rollback, "INSERT 0 1"}} {
		t.Run(tc.end.SQL()[0], func(t *testing.T) {
			w, got := txnWorld(nil, [][]stmtAt{
				{{0, &dblock.Stmt{Kind: dblock.StBegin}}, {ms(10), &dblock.Stmt{Kind: dblock.StInsert, Row: "L", Owner: "c1#1"}}, {ms(1500), tc.end}},
				{{ms(100), &dblock.Stmt{Kind: dblock.StInsert, Row: "L", Owner: "c2#1"}}},
			}, nil)
			w.Schedule(sim.Time(5*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
			w.Run()
			if a := answerTo(got[1], dblock.StInsert, 0); a.text != tc.want || a.at != sim.Time(ms(1500)) {
				t.Errorf("c2's insert: %+v, want %s at c1's %s (1.5 s)", a, tc.want, tc.end.SQL()[0])
			}
		})
	}
}

// Property: a ring of 2 to 5 transactions, each holding its own row and then
// asking for the next one's at a random time. PostgreSQL's rule decides the
// victim: a waiter checks once, deadlock_timeout after it began to wait, so
// the victim is the first (in order of asking) whose check comes at or after
// the moment the last ask closed the ring. Exactly that one gets 40P01; every
// other transaction gets its second row (each commits as soon as it has both,
// which frees the row its predecessor waits for), and none waits for ever.
func TestPropertyADeadlockRingLosesExactlyOneVictim(t *testing.T) {
	simtest.Check(t, 10, func(t *rapid.T) {
		n := rapid.IntRange(2, 5).Draw(t, "ring")
		rows := make([]string, n)
		for i := range rows {
			rows[i] = fmt.Sprintf("R%d", i)
		}
		asks := make([]time.Duration, n)
		var scripts [][]stmtAt
		for i := range n {
			// Ten-millisecond steps plus the session's number: no two asks
			// coincide, and no check falls on the very instant of an ask.
			asks[i] = ms(10 + 10*rapid.IntRange(0, 300).Draw(t, fmt.Sprintf("ask_step_%d", i)) + i)
			scripts = append(scripts, []stmtAt{{0, lock(rows[i])}, {asks[i], lock(rows[(i+1)%n])}})
		}
		// Who PostgreSQL's rule picks: order the asks, find when the ring
		// closed, then the first whose check is not before it.
		order := make([]int, n)
		for i := range order {
			order[i] = i
		}
		slices.SortStableFunc(order, func(a, b int) int { return int(asks[a] - asks[b]) })
		closed := asks[order[n-1]]
		victim := -1
		for _, i := range order {
			if asks[i]+dblock.DefaultDeadlockTimeout >= closed {
				victim = i
				break
			}
		}
		w, got := txnWorld(rows, scripts, func(i int, a answer) *dblock.Stmt {
			if a.kind != dblock.StForUpdate || a.at == 0 {
				return nil
			}
			if a.text == "SELECT 1" {
				return commit // it has both rows: done
			}
			return rollback
		})
		w.Schedule(sim.Time(20*time.Second), sim.Action{Kind: sim.ActStop, Proc: sim.NoProc})
		w.Run()
		for i := range n {
			second := answerTo(got[i], dblock.StForUpdate, sim.Time(ms(1)))
			switch {
			case i == victim && second.text != "ERROR 40P01":
				t.Fatalf("asks %v: c%d should be the victim, its second lock got %+v", asks, i+1, second)
			case i != victim && second.text != "SELECT 1":
				t.Fatalf("asks %v (victim c%d): c%d's second lock got %+v, want SELECT 1", asks, victim+1, i+1, second)
			}
		}
	})
}
