package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"time"

	"github.com/locksim/locksim/scenarios/explore"
)

// countLevel is one level in --count-only's report.
type countLevel struct {
	Faults    int     `json:"faults"`
	Schedules int     `json:"schedules"`
	Exact     bool    `json:"exact"`      // false: an estimate from the run with no fault
	EstimateS float64 `json:"estimate_s"` // at the rate measured on a sample
}

// countOnly prints each level's number of schedules and an estimate of its
// time, from a sample of one-fault schedules timed on one worker, without
// running the levels.
func countOnly(cfg *explore.Config, e *explore.Exhaustive, o *checkOptions, target string, stdout io.Writer) error {
	w := cfg.Worker()
	roots := e.Jobs(1)
	sample := min(roots, 40)
	start := time.Now()
	for i := range sample {
		if _, err := e.Job(w, 1, i*roots/max(sample, 1)); err != nil {
			return err
		}
	}
	perRun := time.Since(start) / time.Duration(max(sample, 1))
	rate := float64(o.workers) / max(perRun.Seconds(), 1e-9)
	var levels []countLevel
	for k := 0; k <= o.maxFaults; k++ {
		n, exact := e.Estimate(k)
		levels = append(levels, countLevel{Faults: k, Schedules: n, Exact: exact, EstimateS: float64(n) / rate})
	}
	if o.format == "json" {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(struct {
			Target     string       `json:"target"`
			Bound      any          `json:"bound"`
			SampleRate float64      `json:"schedules_per_s"`
			Levels     []countLevel `json:"levels"`
		}{target, e.BoundWords(), rate, levels})
	}
	b := e.BoundWords()
	fmt.Fprintf(stdout, "check %s --count-only: up to %d fault(s) at %s points, faults %v\n", target, o.maxFaults, b.Points, b.Faults)
	fmt.Fprintf(stdout, "rate: about %.0f schedules/s on %d worker(s) (%d one-fault schedules timed)\n", rate, o.workers, sample)
	total := 0.0
	for _, l := range levels {
		mark := ""
		if !l.Exact {
			mark = " (estimate)"
		}
		fmt.Fprintf(stdout, "  level %d: %d schedule(s)%s, about %s\n", l.Faults, l.Schedules, mark, roundDur(time.Duration(l.EstimateS*float64(time.Second))))
		total += l.EstimateS
	}
	fmt.Fprintf(stdout, "  in all: about %s, if no level finds a counterexample first\n", roundDur(time.Duration(total*float64(time.Second))))
	return nil
}
