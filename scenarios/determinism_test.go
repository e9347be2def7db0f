package scenarios

import (
	"path/filepath"
	"reflect"
	"runtime"
	"testing"

	"github.com/locksim/locksim/sim/check"
)

// The determinism contract (docs/architecture.md): the same scenario and seed give a
// byte-identical trace, whatever GOMAXPROCS is. Run every catalogue scenario twice
// and compare the traces' hashes; then again with GOMAXPROCS=1.
func TestDeterminismSameSeedSameTrace(t *testing.T) {
	t.Parallel()
	for _, shared := range catalogueRuns(t) {
		s := shared.Scenario
		a := Run(s, RunOptions{}).Trace.Hash()
		b := shared.Trace.Hash() // with snapshots: they change nothing
		if a != b {
			t.Errorf("%s: two runs with seed %d hashed %s and %s; reproduce: locksim run %s --seed %d",
				s.ID, s.Seed, a[:12], b[:12], s.ID, s.Seed)
		}
	}
}

func TestDeterminismUnderGOMAXPROCS1(t *testing.T) {
	want := map[string]string{}
	for _, s := range catalogue(t) {
		want[s.ID] = Run(s, RunOptions{}).Trace.Hash()
	}
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	for _, s := range catalogue(t) {
		if got := Run(s, RunOptions{}).Trace.Hash(); got != want[s.ID] {
			t.Errorf("%s: GOMAXPROCS=1 changed the trace (%s vs %s)", s.ID, got[:12], want[s.ID][:12])
		}
	}
}

// Other seeds still give a valid, repeatable run; where the scenario draws no
// randomness the trace may not depend on the seed at all, which is fine.
func TestDeterminismAcrossSeeds(t *testing.T) {
	t.Parallel()
	seeds := uint64(3) // seeds 2 and 3; with -tags long, 2 to 9
	if long() {
		seeds = 10
	}
	for _, s := range catalogue(t) {
		for seed := uint64(2); seed < seeds; seed++ {
			a := Run(s, RunOptions{Seed: &seed}).Trace.Hash()
			b := Run(s, RunOptions{Seed: &seed}).Trace.Hash()
			if a != b {
				t.Errorf("%s seed %d is not repeatable", s.ID, seed)
			}
		}
	}
}

// A run that records only what the checker reads (RunOptions.CheckerOnly, as
// explore runs) is the same run: the same events at the same times, the same
// observations, the same end, the same report. Only the messages' contents are
// left out. Checked on the catalogue and every regression.
func TestCheckerOnlyRunsAreTheSameRuns(t *testing.T) {
	all := catalogue(t)
	files, _ := filepath.Glob("../testdata/regressions/*" + Ext)
	for _, f := range files {
		s, err := Load(f)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, s)
	}
	for _, s := range all {
		full := Run(s, RunOptions{})
		lean := Run(s, RunOptions{CheckerOnly: true})
		a, b := full.Trace, lean.Trace
		if a.Len() != b.Len() || a.End != b.End || a.EndReason != b.EndReason || a.NumObs() != b.NumObs() {
			t.Errorf("%s: full run %d events to %s (%s), checker-only %d to %s (%s)", s.ID,
				a.Len(), a.End, a.EndReason, b.Len(), b.End, b.EndReason)
			continue
		}
		for i := range a.Len() {
			ea, eb := a.Event(i), b.Event(i)
			if eb.HasMsg() {
				t.Fatalf("%s: event %d of a checker-only run keeps a message", s.ID, i)
			}
			if a.Note(ea) != b.Note(eb) || ea.At != eb.At || ea.Kind != eb.Kind || ea.Proc != eb.Proc ||
				ea.Peer != eb.Peer || ea.MsgID != eb.MsgID || ea.Local != eb.Local || ea.Dur != eb.Dur {
				t.Errorf("%s: event %d differs: %s vs %+v", s.ID, i, a.EventText(i), eb)
				break
			}
		}
		for i := range a.NumObs() {
			oa, ob := a.Observation(i), b.Observation(i)
			if oa != ob {
				t.Errorf("%s: observation %d differs: %s vs %s", s.ID, i, a.ObsText(&oa), b.ObsText(&ob))
				break
			}
		}
		if !reflect.DeepEqual(full.Report, lean.Report) {
			t.Errorf("%s: the checker's report differs: %s vs %s", s.ID, full.Report.Verdict, lean.Report.Verdict)
		}
		// Judged for the verdict alone (as explore judges), the same verdict and
		// results, without the metrics and notes that decide nothing.
		v := check.Check(b, check.Options{Bound: s.Bound, VerdictOnly: true})
		if v.Verdict != full.Report.Verdict || !reflect.DeepEqual(v.Results, full.Report.Results) ||
			v.Metrics != nil || v.Notes != nil {
			t.Errorf("%s: judged for the verdict only: %s with %d metrics, judged in full: %s", s.ID,
				v.Verdict, len(v.Metrics), full.Report.Verdict)
		}
	}
}
