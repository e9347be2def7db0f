package explore_test

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/scenarios/explore"
	"github.com/locksim/locksim/sim/fault"
	"github.com/locksim/locksim/sim/simtest"
)

// Exploration against the literature: for each configuration the literature
// calls unsafe, random schedules find the violation within a bounded number of
// runs, shrink it to a handful of faults, and the written scenario replays it;
// for each configuration called safe, a fixed number of runs finds nothing.
// Sources are the ones each preset and template cites (Kleppmann 2016; Redis,
// "Distributed Locks with Redis"; Jepsen etcd 3.4.3; Skeen 1981; Lamport 2001).

func template(t *testing.T, name string) *explore.Template {
	t.Helper()
	if tpl, err := explore.Preset(name); err == nil {
		return tpl
	}
	return templateIn(t, "explore", name)
}

// templateIn loads testdata/DIR/NAME.scn as a template.
func templateIn(t *testing.T, dir, name string) *explore.Template {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", dir, name+scenarios.Ext)
	src, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	tpl, err := explore.FromSource(path, string(src))
	if err != nil {
		t.Fatal(err)
	}
	return tpl
}

func kinds(ks ...fault.Kind) []fault.Kind { return ks }

func TestUnsafeConfigurationsAreFoundShrunkAndReplayed(t *testing.T) {
	for _, tc := range []struct {
		name     string
		template string
		menu     []fault.Kind
		within   int // runs
		want     string
	}{
		{"single Redis restarting empty", "redis", kinds(fault.RestartEmpty), 200, "grant-exclusive"},
		{"Redlock restarting without persistence", "redlock", kinds(fault.RestartEmpty), 200, "grant-exclusive"},
		{"Redlock with clock jumps", "redlock", kinds(fault.ClockJump), 500, "grant-exclusive"},
		{"ZooKeeper without fencing under pauses", "zookeeper", kinds(fault.Pause), 500, "resource-safe"},
		{"etcd without fencing under pauses", "etcd", kinds(fault.Pause), 500, "resource-safe"},
		{"3PC under partitions", "3pc", kinds(fault.Partition), 1000, "commit-agreement"},
		{"Paxos with acceptor amnesia", "paxos-amnesia", kinds(fault.RestartEmpty, fault.Loss), 2000, "one-value-chosen"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &explore.Config{Template: template(t, tc.template), Space: fault.Space{Menu: tc.menu}}
			var found explore.Outcome
			runs := 0
			for seed := uint64(1); runs < tc.within && !found.Failed(); seed++ {
				o, err := c.Explore(seed)
				if err != nil {
					t.Fatal(err)
				}
				runs++
				if o.Failed() {
					found = o
				}
			}
			if !found.Failed() {
				t.Fatalf("no violation in %d runs", tc.within)
			}
			small, shrinkRuns, err := c.Shrink(found, 1000)
			if err != nil {
				t.Fatal(err)
			}
			if len(small.Schedule) > 4 {
				t.Errorf("shrunk to %d faults, want a handful (at most 4): %v", len(small.Schedule), small.Schedule)
			}
			broke := false
			for _, b := range small.Broken {
				broke = broke || b == tc.want
			}
			if !broke {
				t.Errorf("broke %v, want %s among them", small.Broken, tc.want)
			}
			src := c.Scenario(small, explore.Found{Command: "test", Runs: runs, Original: len(found.Schedule), ShrinkRuns: shrinkRuns}, "found.scn")
			s, err := scenarios.Parse("found.scn", src)
			if err != nil {
				t.Fatalf("the written scenario does not parse: %v\n%s", err, src)
			}
			if r := scenarios.Run(s, scenarios.RunOptions{}); !r.OK() {
				t.Fatalf("the written scenario does not replay its violation:\n%s", src)
			}
			t.Logf("found after %d runs (seed %d), shrunk from %d to %d faults in %d runs: %v",
				runs, found.Seed, len(found.Schedule), len(small.Schedule), shrinkRuns, small.Broken)
		})
	}
}

func TestSafeConfigurationsStaySafe(t *testing.T) {
	t.Parallel()
	runs := simtest.Cases(10) // seeds 1-100; 1-1000 under -tags long
	for _, tc := range []struct {
		name     string
		template string
		menu     []fault.Kind
	}{
		// Redlock's safe corner: fsync always, drift within the allowance, no
		// clock jumps and no process pauses.
		{"Redlock with fsync always", "redlock-fsync-always", kinds(fault.Crash, fault.RestartEmpty, fault.Partition,
			fault.Loss, fault.Delay, fault.Drift)},
		{"ZooKeeper with fencing", "zookeeper-fenced", kinds(fault.Pause, fault.Crash, fault.Partition)},
		{"etcd with fencing", "etcd-fenced", kinds(fault.Pause, fault.Crash, fault.Partition)},
		{"Paxos with persistent acceptors", "paxos", fault.Kinds},
		{"2PC safety", "2pc", fault.Kinds},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &explore.Config{Template: template(t, tc.template), Space: fault.Space{Menu: tc.menu}}
			c.Space.Menu = c.Usable()
			for seed := uint64(1); seed <= uint64(runs); seed++ {
				o, err := c.Explore(seed)
				if err != nil {
					t.Fatal(err)
				}
				if o.Failed() {
					t.Fatalf("seed %d broke %v: %s\n%s", seed, o.Broken, o.Detail, c.Source(seed, o.Schedule, true))
				}
			}
		})
	}
}

// The schedule is drawn from the seed alone, and a run from its schedule alone.
func TestSchedulesAndRunsAreDeterministic(t *testing.T) {
	c := &explore.Config{Template: template(t, "redlock"), Space: fault.Space{Menu: fault.Kinds}, Hash: true}
	c.Space.Menu = c.Usable()
	for seed := uint64(1); seed <= 20; seed++ {
		a, err := c.Explore(seed)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := c.Explore(seed)
		if a.Hash != b.Hash || !reflect.DeepEqual(a.Schedule, b.Schedule) {
			t.Fatalf("seed %d: two runs differ: %v / %v", seed, a.Schedule, b.Schedule)
		}
	}
}

// A worker's runs record into the memory its last run left (Config.Worker,
// sim.Reuse): outcomes and trace hashes are those of runs in fresh memory, seed
// by seed, whichever presets ran on the worker before.
func TestAWorkerReusingMemoryGetsTheSameOutcomes(t *testing.T) {
	w := (&explore.Config{}).Worker()
	for _, name := range []string{"zookeeper", "redlock", "2pc", "etcd"} {
		c := &explore.Config{Template: template(t, name), Space: fault.Space{Menu: fault.Kinds}}
		c.Space.Menu = c.Usable()
		w.Template, w.Space = c.Template, c.Space // the same worker's memory, a new template
		hashed := *c
		hashed.Hash = true
		hw := hashed.Worker()
		for seed := uint64(1); seed <= 15; seed++ {
			fresh, err := c.Explore(seed)
			if err != nil {
				t.Fatal(err)
			}
			reused, _ := w.Explore(seed)
			if !reflect.DeepEqual(fresh, reused) {
				t.Fatalf("%s seed %d: fresh %+v, reused %+v", name, seed, fresh, reused)
			}
			a, _ := hashed.Explore(seed)
			b, _ := hw.Explore(seed)
			if a.Hash != b.Hash {
				t.Fatalf("%s seed %d: trace hash %s fresh, %s reused", name, seed, a.Hash, b.Hash)
			}
		}
	}
}

// A template keeps its workload and loses its faults, expectations and seed.
func TestTemplateDropsFaults(t *testing.T) {
	src := "# t\nprotocol redis\nseed 7\nnode r1 redis\nclient c1 redis-lock server=r1\nat 1s c1 acquire L\n# the crash\nat 2s crash r1\nwhen c1 acquired L then pause c1 for=1s\nrun until=5s\nexpect verdict SAFE\n"
	tpl, err := explore.FromSource("t.scn", src)
	if err != nil {
		t.Fatal(err)
	}
	for _, gone := range []string{"crash", "pause", "expect", "seed 7", "run until", "# the crash"} {
		if strings.Contains(tpl.Body, gone) {
			t.Errorf("template body keeps %q:\n%s", gone, tpl.Body)
		}
	}
	if !strings.Contains(tpl.Body, "at 1s c1 acquire L") {
		t.Errorf("template body lost the workload:\n%s", tpl.Body)
	}
}

// Drawn schedules keep to their limits: at most MaxFaults faults (swarm mode
// too), each ending before the horizon, and no two clashing (two down-times of
// one process, two partitions at once, two faults on one link at once), so that
// the narration tells what the trace shows.
func TestDrawnSchedulesKeepToTheirLimits(t *testing.T) {
	for _, name := range explore.Presets() {
		tpl := template(t, name)
		for _, swarm := range []bool{false, true} {
			c := &explore.Config{Template: tpl, Space: fault.Space{Menu: fault.Kinds, MaxFaults: 3, Swarm: swarm}}
			c.Space.Menu = c.Usable()
			for seed := uint64(1); seed <= 500; seed++ {
				s := c.Draw(seed)
				if len(s) == 0 || len(s) > 3 {
					t.Fatalf("%s seed %d (swarm %v): %d faults, want 1 to 3", name, seed, swarm, len(s))
				}
				for i, f := range s {
					if f.At+f.Dur >= tpl.Horizon {
						t.Fatalf("%s seed %d: %v ends after the horizon %s", name, seed, f, tpl.Horizon)
					}
					for _, g := range s[i+1:] {
						if overlap := f.At <= g.At+g.Dur && g.At <= f.At+f.Dur; overlap &&
							(f.Kind == fault.Partition && g.Kind == fault.Partition ||
								f.Proc == g.Proc && isDown(f.Kind) && isDown(g.Kind)) {
							t.Fatalf("%s seed %d: %v and %v clash", name, seed, f, g)
						}
					}
				}
			}
		}
	}
}

func isDown(k fault.Kind) bool {
	return k == fault.Crash || k == fault.RestartEmpty || k == fault.Pause
}

// A template needs a workload, and explore decides where a run ends.
func TestTemplatesNeedAWorkloadAndLoseTheirLimits(t *testing.T) {
	if _, err := explore.FromSource("t.scn", "protocol redis\nnode r1 redis\nclient c1 redis-lock server=r1\nat 1s crash r1\nrun until=5s\n"); err == nil ||
		!strings.Contains(err.Error(), "no workload") {
		t.Fatalf("a template with only faults: %v, want a no-workload error", err)
	}
	tpl, err := explore.FromSource("t.scn", "protocol redis\nlimit time=30s\nnode r1 redis\nclient c1 redis-lock server=r1\nat 1s c1 acquire L\nrun until=5s\n")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(tpl.Body, "limit") {
		t.Fatalf("the template keeps its limit line:\n%s", tpl.Body)
	}
}

// A found scenario reads as a story (issue 19, item 21): its fault lines are in
// time order, a node without persistence "restarts empty" (the redis preset's
// r1 has persistence=none) rather than "with what it had written to disk", and
// the rounded times still replay the violation.
func TestAFoundScenarioReadsAsAStory(t *testing.T) {
	c := &explore.Config{Template: template(t, "redis"), Space: fault.Space{Menu: kinds(fault.RestartEmpty, fault.Pause, fault.ClockJump), MaxFaults: 4}}
	var found explore.Outcome
	for seed := uint64(1); seed < 500 && !found.Failed(); seed++ {
		o, err := c.Explore(seed)
		if err != nil {
			t.Fatal(err)
		}
		if o.Failed() && slices.ContainsFunc(o.Schedule, func(f fault.Fault) bool { return f.Kind == fault.RestartEmpty }) {
			found = o
		}
	}
	if !found.Failed() {
		t.Fatal("no violation with a power loss in 500 runs")
	}
	small, _, err := c.Shrink(found, 1000)
	if err != nil {
		t.Fatal(err)
	}
	src := c.Scenario(small, explore.Found{Command: "test"}, "found.scn")
	var last time.Duration
	for _, ln := range strings.Split(src, "\n") {
		f := strings.Fields(ln)
		if len(f) < 3 || f[0] != "at" {
			continue
		}
		d, err := time.ParseDuration(f[1])
		if err != nil {
			t.Fatalf("line %q: %v", ln, err)
		}
		if strings.Contains(src, "\nseed ") && strings.Index(src, ln) > strings.Index(src, "\nseed ") {
			if d < last {
				t.Errorf("fault line %q comes after one at %v:\n%s", ln, last, src)
			}
			last = d
		}
	}
	if strings.Contains(src, "power") && !strings.Contains(src, "restarts empty") {
		t.Errorf("a node without persistence should restart empty:\n%s", src)
	}
	if strings.Contains(src, "written to disk") {
		t.Errorf("the narration promises a disk the node does not have:\n%s", src)
	}
	s, err := scenarios.Parse("found.scn", src)
	if err != nil {
		t.Fatal(err)
	}
	if r := scenarios.Run(s, scenarios.RunOptions{}); !r.OK() {
		t.Fatalf("the written scenario does not replay its violation:\n%s", src)
	}
}
