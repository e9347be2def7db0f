package explore_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/scenarios/explore"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/fault"
	"github.com/locksim/locksim/sim/simtest"
)

// The exhaustive check against the literature: where the sources call a
// design unsafe, every schedule within a small bound is enough to find the
// story, and the first found is the shortest; where they call it safe, no
// schedule within the bound breaks it. Sources: Skeen, "Nonblocking Commit
// Protocols" (1981), and Bernstein, Hadzilacos and Goodman (1987), ch. 7 (3PC
// with a participant that misses PreCommit; 2PC blocks but agrees); Lamport,
// "Paxos Made Simple" (2001) (acceptors that keep their promises); Kleppmann,
// "How to do distributed locking" (2016), and Redis, "Distributed Locks with
// Redis" (Redlock's safety margin, nodes that restart empty); the ZooKeeper
// Programmer's Guide (sessions, and the client's pings every third of the
// session timeout).

// check runs an exhaustive check of cfg within b on one worker.
func check(t *testing.T, cfg *explore.Config, b explore.Bound) (*explore.Exhaustive, explore.Result) {
	t.Helper()
	cfg.Space.Menu = cfg.Usable()
	e, err := cfg.Exhaustive(1, b, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	res, err := e.Run(cfg.Worker())
	if err != nil {
		t.Fatal(err)
	}
	return e, res
}

// Skeen 1981 and BHG 7.5: 3PC is not resilient to partitions. A participant
// cut off just before PreCommit reaches it times out uncertain, runs the
// termination protocol with nobody but itself and aborts, while the
// coordinator, missing its acknowledgement, commits with the others. One fault
// is enough, and the check finds exactly that one first. (Crashes alone,
// with recovery from the log, do not break it: testdata/regressions/
// 3pc-recovered-participant-asks.scn.)
func TestCheckFindsThreePhaseCommitDisagreeingAfterOnePartition(t *testing.T) {
	e, res := check(t, &explore.Config{Template: template(t, "3pc"), Space: fault.Space{Menu: fault.Kinds}}, explore.Bound{MaxFaults: 2})
	o, n := res.Shortest()
	if o == nil {
		t.Fatalf("no counterexample within one fault; the literature has one (%d schedules)", res.Schedules())
	}
	if !res.Exhausted || len(res.Levels) != 2 || res.Levels[0].Counterexamples != 0 {
		t.Errorf("levels %+v exhausted %v: want the check to stop after level 1, the first with a counterexample", res.Levels, res.Exhausted)
	}
	if got, want := o.Schedule.String(), "p1 is cut off from everyone at 142ms for 5s"; got != want {
		t.Errorf("the first counterexample is %q, want %q", got, want)
	}
	if !slices.Equal(o.Broken, []string{"commit-agreement"}) || n < 1 || res.Levels[1].Schedules != len(e.Roots()) {
		t.Errorf("broke %v, %d counterexamples in %d schedules of %d roots", o.Broken, n, res.Levels[1].Schedules, len(e.Roots()))
	}
	// No crash, at any point, of any size, breaks it alone.
	for _, f := range e.Roots() {
		if f.Kind != fault.Crash && f.Kind != fault.RestartEmpty {
			continue
		}
		if o, err := (&explore.Config{Template: template(t, "3pc")}).Try(1, fault.Schedule{f}); err != nil || o.Failed() {
			t.Errorf("%s breaks 3PC (%v): crash failures with recovery from the log must not (Skeen 1981)", f, o.Detail)
		}
	}
}

// Skeen's positive result: with crash failures (and recovery from the log)
// and no partition, 3PC never disagrees and every participant that is up
// decides: no schedule of up to two crashes or power losses breaks
// commit-agreement, or nonblocking once the heal phase has let them recover.
func TestCheckProvesThreePhaseCommitAgreesUnderCrashes(t *testing.T) {
	_, res := check(t, &explore.Config{Template: template(t, "3pc"), Invariants: []string{"commit-agreement", "nonblocking"},
		Liveness: true, Space: fault.Space{Menu: []fault.Kind{fault.Crash, fault.RestartEmpty}}}, explore.Bound{MaxFaults: 2})
	if o, _ := res.Shortest(); o != nil {
		t.Fatalf("%s breaks %v: %s", o.Schedule, o.Broken, o.Detail)
	}
	if !res.Exhausted || len(res.Levels) != 3 || res.Levels[2].Schedules < 1000 {
		t.Errorf("levels %+v: want every pair of crashes run", res.Levels)
	}
}

// BHG 7.4: two-phase commit blocks, but every process that decides decides
// alike: no schedule of up to two faults breaks commit-agreement.
//
// The pairs (about 2.5 s on the 2-core machine) run under -tags long; by
// default every single fault is checked (the same proof, one level).
func TestCheckProvesTwoPhaseCommitAgreesWithinTwoFaults(t *testing.T) {
	t.Parallel()
	faults := 1
	if simtest.Long() {
		faults = 2
	}
	_, res := check(t, &explore.Config{Template: template(t, "2pc"), Invariants: []string{"commit-agreement"},
		Space: fault.Space{Menu: fault.Kinds}}, explore.Bound{MaxFaults: faults})
	if o, _ := res.Shortest(); o != nil {
		t.Fatalf("2PC disagrees: %s: %s", o.Schedule, o.Detail)
	}
	if !res.Exhausted || len(res.Levels) != faults+1 || faults == 2 && res.Levels[2].Schedules < 10_000 || res.Levels[1].Schedules < 100 {
		t.Errorf("levels %+v exhausted %v: want all %d levels run, hundreds of single faults (thousands of pairs)", res.Levels, res.Exhausted, faults+1)
	}
}

// The order of the search: one-fault schedules by (time, kind, target,
// size), none twice; a level-2 job's schedules all begin with its root.
func TestCheckOrdersFaultsByTimeKindTargetAndSize(t *testing.T) {
	t.Parallel()
	cfg := &explore.Config{Template: template(t, "redis"), Space: fault.Space{Menu: fault.Kinds}}
	cfg.Space.Menu = cfg.Usable()
	e, err := cfg.Exhaustive(1, explore.Bound{MaxFaults: 2}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	roots := e.Roots()
	for i := 1; i < len(roots); i++ {
		if explore.CompareFaults(roots[i-1], roots[i]) >= 0 {
			t.Fatalf("root %d (%s) does not come after root %d (%s)", i, roots[i], i-1, roots[i-1])
		}
	}
	kinds := map[fault.Kind]bool{}
	for _, r := range roots {
		kinds[r.Kind] = true
		if r.At >= cfg.Template.Horizon || r.Dur != fault.Forever && r.At+r.Dur > cfg.Template.Horizon {
			t.Errorf("%s is not over by the horizon %s", r, cfg.Template.Horizon)
		}
	}
	if len(kinds) != len(e.Kinds()) {
		t.Errorf("the roots have %d kinds of fault, the menu %d", len(kinds), len(e.Kinds()))
	}
	// Job j's schedules of two faults: a sum over jobs equals the level, and
	// a job split over shards gives the same total.
	var whole explore.Tally
	for j := range 2 {
		tj, err := e.Job(cfg.Worker(), 2, j)
		if err != nil {
			t.Fatal(err)
		}
		whole.Add(tj)
	}
	if whole.Schedules == 0 {
		t.Fatal("the first two jobs of level 2 ran no schedule")
	}
}

// Shards split every level's jobs: together they run exactly what one check
// runs, and find the same counterexamples.
func TestCheckShardsTogetherAreTheWholeCheck(t *testing.T) {
	cfg := &explore.Config{Template: template(t, "3pc"), Space: fault.Space{Menu: []fault.Kind{fault.Crash, fault.Pause}}}
	_, whole := check(t, cfg, explore.Bound{MaxFaults: 1})
	var sum explore.Result
	for shard := 1; shard <= 3; shard++ {
		e, err := cfg.Exhaustive(1, explore.Bound{MaxFaults: 1}, shard, 3)
		if err != nil {
			t.Fatal(err)
		}
		res, err := e.Run(cfg.Worker())
		if err != nil {
			t.Fatal(err)
		}
		for k, l := range res.Levels {
			for len(sum.Levels) <= k {
				sum.Levels = append(sum.Levels, explore.Tally{})
			}
			sum.Levels[k].Schedules += l.Schedules
			sum.Levels[k].Counterexamples += l.Counterexamples
		}
	}
	sum.Levels[0].Schedules /= 3 // every shard runs the schedule with no fault
	for k := range whole.Levels {
		if sum.Levels[k].Schedules != whole.Levels[k].Schedules || sum.Levels[k].Counterexamples != whole.Levels[k].Counterexamples {
			t.Errorf("level %d: shards ran %d schedules (%d counterexamples), the whole check %d (%d)", k,
				sum.Levels[k].Schedules, sum.Levels[k].Counterexamples, whole.Levels[k].Schedules, whole.Levels[k].Counterexamples)
		}
	}
}

// Paxos with acceptors that persist their promises: no schedule of up to two
// faults chooses two values (Lamport 2001: safety needs only stable storage).
//
// Two faults are about 60,000 schedules (5.6 s on the 2-core machine): they
// run under -tags long (the command line's acceptance, docs/check.md,
// runs them too); by default every single fault is checked.
func TestCheckProvesPaxosWithPersistentAcceptorsChoosesOneValue(t *testing.T) {
	t.Parallel()
	faults := 1
	if simtest.Long() {
		faults = 2
	}
	_, res := check(t, &explore.Config{Template: template(t, "paxos"), Invariants: []string{"one-value-chosen"},
		Space: fault.Space{Menu: fault.Kinds}}, explore.Bound{MaxFaults: faults})
	if o, _ := res.Shortest(); o != nil {
		t.Fatalf("two values chosen: %s: %s", o.Schedule, o.Detail)
	}
	if !res.Exhausted {
		t.Error("not exhausted")
	}
}

// Where faults fall: one point in every gap between two steps of the process
// hit, at the gap's last whole millisecond (the roundest instant of it); with
// observation points, only the gaps after steps that reported an observation.
func TestCheckPlacesOneFaultInEveryGapBetweenSteps(t *testing.T) {
	cfg := &explore.Config{Template: template(t, "3pc"), Space: fault.Space{Menu: []fault.Kind{fault.ClockJump}}}
	cfg.Space.Menu = cfg.Usable()
	e, err := cfg.Exhaustive(1, explore.Bound{MaxFaults: 1, Menu: explore.Menu{fault.ClockJump: {{Mag: 1000}}}}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	var p1 []time.Duration
	for _, r := range e.Roots() {
		if r.Proc == "p1" {
			p1 = append(p1, r.At)
		}
	}
	// p1 steps at 0 (start), 101ms (CANCOMMIT?), 143ms (PRECOMMIT), 185ms
	// (DOCOMMIT); the run ends at 6 s.
	want := []time.Duration{100 * time.Millisecond, 142 * time.Millisecond, 184 * time.Millisecond, 5999 * time.Millisecond}
	if !slices.Equal(p1, want) {
		t.Errorf("clock jumps of p1 at %v, want one per gap: %v", p1, want)
	}
	obs, err := cfg.Exhaustive(1, explore.Bound{MaxFaults: 1, Menu: explore.Menu{fault.ClockJump: {{Mag: 1000}}},
		Points: explore.Points{Mode: explore.PointsObservations}}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	var p1obs []time.Duration
	for _, r := range obs.Roots() {
		if r.Proc == "p1" {
			p1obs = append(p1obs, r.At)
		}
	}
	// p1 reports its vote at 101ms and its decision at 185ms.
	if want := []time.Duration{142 * time.Millisecond, 5999 * time.Millisecond}; !slices.Equal(p1obs, want) {
		t.Errorf("with observation points, clock jumps of p1 at %v, want %v", p1obs, want)
	}
}

// A clock jump is tried just past each wall-clock deadline pending where it
// falls: on a Redis node, the expiry of the key it holds (Kleppmann's jump).
func TestCheckJumpsClocksJustPastPendingDeadlines(t *testing.T) {
	cfg := &explore.Config{Template: template(t, "redlock"), Space: fault.Space{Menu: []fault.Kind{fault.ClockJump}}}
	cfg.Space.Menu = cfg.Usable()
	e, err := cfg.Exhaustive(1, explore.Bound{MaxFaults: 1, Menu: explore.Menu{fault.ClockJump: {{Mag: 1000}}}}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	// c1's key on r1 is set at 101 ms with a 10 s TTL: at 1 s (a point of r1)
	// a jump of 9.101 s and a millisecond carries r1's wall clock past it.
	found := false
	for _, r := range e.Roots() {
		if r.Proc == "r1" && r.Mag != 1000 && r.At < 7*time.Second {
			found = true
			if r.Mag <= 0 || time.Duration(r.Mag)*time.Millisecond+r.At <= 10*time.Second {
				t.Errorf("%s: a jump sized for a deadline should carry the clock past the key's expiry (10.1 s)", r)
			}
		}
	}
	if !found {
		t.Error("no clock jump of r1 sized for its key's expiry")
	}
	// Two such jumps, and c2 wins a majority of the three nodes while c1
	// holds: the service broke its promise (redlock-clock-jump's story).
	two, err := cfg.Exhaustive(1, explore.Bound{MaxFaults: 2, Menu: explore.Menu{fault.ClockJump: nil}}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	st := two.Stepper(cfg.Worker())
	for o, _ := st.Result.Shortest(); o == nil && !st.Done(); o, _ = st.Result.Shortest() {
		if err := st.Step(); err != nil { // job by job, up to the first counterexample
			t.Fatal(err)
		}
	}
	o, _ := st.Result.Shortest()
	if o == nil || len(o.Schedule) != 2 || !slices.Contains(o.Broken, "grant-exclusive") {
		t.Fatalf("two jumps just past the keys' expiry: got %v, want grant-exclusive broken", o)
	}
	for _, f := range o.Schedule {
		if f.Kind != fault.ClockJump || f.Mag <= 0 {
			t.Errorf("%s is not a forward jump sized for a deadline", f)
		}
	}
}

// The envelope of Redlock's holder: a pause just before c1's validity timer
// fires must outlast the safety margin, TTL minus validity (the drift
// allowance and the acquisition's time), and then until c2's next attempt
// succeeds. So the envelope lies between that margin and the margin plus
// c2's retry interval and its acquisition time.
func TestEnvelopeOfARedlockPauseIsTheSafetyMargin(t *testing.T) {
	tpl := checkTemplate(t, "redlock-envelope")
	cfg := &explore.Config{Template: tpl, Invariants: []string{"mutex-belief"}, Space: fault.Space{Menu: []fault.Kind{fault.Pause}}}
	cfg.Space.Menu = cfg.Usable()
	e, err := cfg.Exhaustive(1, explore.Bound{MaxFaults: 1}, 1, 1)
	if err != nil {
		t.Fatal(err)
	}
	v, err := e.Envelope(cfg.Worker(), fault.Pause, "c1", time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	// The figures, from the run with no fault: c1's validity, and how long an
	// acquisition takes (TTL - validity - drift allowance).
	rep := runTemplate(t, tpl)
	validity, _ := rep.Report.Metric("validity_ms")
	ttl, drift, retry := 10_000.0, 10_000*0.01+2, 100.0
	margin := ttl - validity
	acquisition := margin - drift
	got := float64(v.Breaks.Milliseconds())
	if v.Breaking == nil || got < margin || got > margin+retry+acquisition {
		t.Errorf("envelope %v ms (%s), want between the margin %v ms and %v ms", got, v.Sentence(), margin, margin+retry+acquisition)
	}
	if !strings.HasPrefix(v.Sentence(), "safe while c1's pauses stay under 0.") {
		t.Errorf("sentence %q", v.Sentence())
	}
}

// The envelope of a ZooKeeper holder's pause: its session expires once the
// leader has heard nothing from it for the negotiated timeout (2 s), at the
// leader's next tick (100 ms), and c2, woken, takes the lock. A pause that
// starts just after the client's last ping must outlast the whole timeout;
// the client pings every third of it (ZooKeeper's ClientCnxn: readTimeout =
// 2/3 of the timeout, a ping after readTimeout/2 idle), so a pause that starts
// just before a ping needs only two thirds. The envelope is the worse point.
func TestEnvelopeOfAZooKeeperPauseIsTheSessionTimeout(t *testing.T) {
	tpl := checkTemplate(t, "zookeeper-envelope")
	cfg := &explore.Config{Template: tpl, Invariants: []string{"mutex-belief"}, Space: fault.Space{Menu: []fault.Kind{fault.Pause}}}
	cfg.Space.Menu = cfg.Usable()
	timeout, tick, ping := 2*time.Second, 100*time.Millisecond, 2*time.Second/3
	acquisition := 10 * time.Millisecond // c2's GETCHILDREN and its reply, with the ensemble's commit
	envelope := func(b explore.Bound) *explore.Envelope {
		e, err := cfg.Exhaustive(1, b, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		v, err := e.Envelope(cfg.Worker(), fault.Pause, "c1", time.Millisecond)
		if err != nil {
			t.Fatal(err)
		}
		if v.Breaking == nil {
			t.Fatalf("no pause of c1 breaks mutex-belief (%d points)", v.Points)
		}
		return v
	}
	all := envelope(explore.Bound{MaxFaults: 1})
	if all.Breaks < timeout-ping || all.Breaks > timeout+tick+acquisition {
		t.Errorf("envelope %s (%s), want between the timeout less one ping interval (%s) and the timeout plus a tick and c2's acquisition (%s)",
			all.Breaks, all.Sentence(), timeout-ping, timeout+tick+acquisition)
	}
	// Just after c1's ping at 667 ms (answered at 669 ms), the whole timeout.
	after := envelope(explore.Bound{MaxFaults: 1, Points: explore.Points{Mode: explore.PointsAt, At: []time.Duration{670 * time.Millisecond}}})
	if after.Breaks < timeout || after.Breaks > timeout+tick+acquisition {
		t.Errorf("a pause just after a ping: envelope %s, want between the timeout %s and %s", after.Breaks, timeout, timeout+tick+acquisition)
	}
	if all.Breaks >= after.Breaks {
		t.Errorf("the envelope over every point (%s) should be below the one just after a ping (%s)", all.Breaks, after.Breaks)
	}
}

func checkTemplate(t *testing.T, name string) *explore.Template {
	t.Helper()
	return templateIn(t, "check", name)
}

func runTemplate(t *testing.T, tpl *explore.Template) *scenarios.Result {
	t.Helper()
	c := &explore.Config{Template: tpl}
	s, err := scenarios.Parse(tpl.Name, c.Source(1, nil, false))
	if err != nil {
		t.Fatal(err)
	}
	return scenarios.Run(s, scenarios.RunOptions{})
}

// A certificate proves less than another when its bound is smaller, its menu
// narrower, its points coarser, its template or result different.
func TestCertificatesCompareWhatTheyProve(t *testing.T) {
	base := explore.Certificate{SchemaVersion: 1, TemplateSHA256: "aa", Seed: 1, Shard: "1/1", Result: explore.ResultNone,
		Bound: explore.CertBound{MaxFaults: 2, Faults: []string{"crash", "pause"}, Deadlines: true, Points: "events", Ends: "menu",
			Menu: map[string][]string{"crash": {"1ms", "1s"}, "pause": {"1s", "5s"}}}}
	same := base
	if why := explore.CompareCertificates(&base, &same); len(why) != 0 {
		t.Errorf("a certificate proves less than itself: %v", why)
	}
	bigger := base
	bigger.Bound.MaxFaults = 3
	if why := explore.CompareCertificates(&base, &bigger); len(why) != 0 {
		t.Errorf("a larger bound proves less: %v", why)
	}
	for name, change := range map[string]func(c *explore.Certificate){
		"fewer faults": func(c *explore.Certificate) { c.Bound.MaxFaults = 1 },
		"narrower menu": func(c *explore.Certificate) {
			c.Bound.Menu = map[string][]string{"crash": {"1ms"}, "pause": {"1s", "5s"}}
		},
		"a kind less":      func(c *explore.Certificate) { c.Bound.Faults = []string{"crash"} },
		"coarser points":   func(c *explore.Certificate) { c.Bound.Points = "observations" },
		"the template":     func(c *explore.Certificate) { c.TemplateSHA256 = "bb" },
		"the result":       func(c *explore.Certificate) { c.Result = explore.ResultFound },
		"no deadline jump": func(c *explore.Certificate) { c.Bound.Deadlines = false },
	} {
		c := base
		c.Bound.Menu = map[string][]string{"crash": {"1ms", "1s"}, "pause": {"1s", "5s"}}
		change(&c)
		if why := explore.CompareCertificates(&base, &c); len(why) == 0 {
			t.Errorf("%s: not reported as proving less", name)
		}
	}
}

func TestMenusAndPointsReadAsTheFlagsWriteThem(t *testing.T) {
	m, err := explore.ParseMenu(explore.DefaultMenu(0), "pause=15s,1s,5s")
	if err != nil {
		t.Fatal(err)
	}
	if got := m.Text([]fault.Kind{fault.Pause})["pause"]; !slices.Equal(got, []string{"1s", "5s", "15s"}) {
		t.Errorf("pause sizes %v", got)
	}
	for _, ok := range []string{"clock-jump=+15s,-2s", "drift=+2000ppm", "loss=50%/2s,1s", "delay=500ms/5s", "crash=1ms,forever"} {
		if _, err := explore.ParseMenu(nil, ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"pause", "pause=", "pause=-1s", "nosuch=1s", "failover=1s", "delay=500ms", "clock-jump=1.5ms", "loss=200%/1s"} {
		if _, err := explore.ParseMenu(nil, bad); err == nil {
			t.Errorf("%s: accepted", bad)
		}
	}
	for _, ok := range []string{"events", "observations", "at=1s,250ms"} {
		p, err := explore.ParsePoints(ok)
		if err != nil || p.String() != strings.Replace(ok, "1s,250ms", "250ms,1s", 1) {
			t.Errorf("--points %s: %v %v", ok, p, err)
		}
	}
	if _, err := explore.ParsePoints("gaps"); err == nil {
		t.Error("--points gaps accepted")
	}
}

func TestRoundestIsTheCoarsestGridInTheGap(t *testing.T) {
	ms := func(f float64) sim.Time { return sim.Time(f * 1e6) }
	for _, tc := range []struct{ lo, hi, want sim.Time }{
		{ms(142), ms(143), ms(142)},     // a whole millisecond
		{ms(101) + 1, ms(143), ms(110)}, // no 100 ms step in it: the first 10 ms one
		{ms(142.05), ms(142.5), ms(142.1)},
		{ms(999), ms(1001), ms(1000)}, // a whole second
		{5, 6, 5},                     // a gap of one nanosecond
	} {
		if got := explore.Roundest(tc.lo, tc.hi); got != tc.want {
			t.Errorf("Roundest(%d, %d) = %d, want %d", tc.lo, tc.hi, got, tc.want)
		}
	}
}

// Found in review: with liveness the run goes on past the horizon, and the last
// gap before it still gets its point; the invariants judged are a set.
func TestCheckPlacesTheLastGapWithLivenessToo(t *testing.T) {
	count := func(liveness bool) int {
		cfg := &explore.Config{Template: template(t, "redlock"), Liveness: liveness, Space: fault.Space{Menu: []fault.Kind{fault.Crash, fault.ClockJump}}}
		cfg.Space.Menu = cfg.Usable()
		e, err := cfg.Exhaustive(1, explore.Bound{MaxFaults: 1}, 1, 1)
		if err != nil {
			t.Fatal(err)
		}
		return len(e.Roots())
	}
	if a, b := count(false), count(true); a != b {
		t.Errorf("%d one-fault schedules without liveness, %d with: the last gap lost its point", a, b)
	}
	base := explore.Certificate{Result: explore.ResultNone, Invariants: []string{"commit-agreement", "nonblocking"}, Liveness: true,
		Bound: explore.CertBound{Points: "events", Ends: "menu"}}
	more := base
	more.Invariants = []string{"commit-agreement", "nonblocking", "one-value-chosen"}
	if why := explore.CompareCertificates(&base, &more); len(why) != 0 {
		t.Errorf("judging more invariants proves less: %v", why)
	}
	if why := explore.CompareCertificates(&more, &base); len(why) == 0 {
		t.Error("judging fewer invariants is not reported")
	}
	at := base
	at.Bound.Points = "at=110ms"
	if why := explore.CompareCertificates(&at, &base); len(why) == 0 {
		t.Error("event points pass for named instants, where a fault that lasts ends elsewhere")
	}
}
