package cli

import (
	"fmt"
	"io"
	"strings"

	"github.com/pkg/errors"

	"github.com/locksim/locksim/scenarios"
)

func errorf(format string, a ...any) error { return errors.Errorf(format, a...) }

func cmdVerify(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("verify", "verify [ID|FILE...] [--seed N] [--strict]", `
Runs scenarios (the whole catalogue when none is named) with their own seeds and
compares each run with its expect lines: one line per scenario. Exit 0 when every
scenario matches, 1 when any does not.`)
	var seed seedFlag
	fs.Var(&seed, "seed", "seed to run every scenario with (default: each scenario's own)")
	strict := strictFlag(fs)
	pos, err := parseFlags(fs, args, stdout, stderr)
	if err != nil {
		return err
	}
	var list []*scenarios.Scenario
	if len(pos) == 0 {
		if list, err = app.scenarioCatalogue(); err != nil {
			return err
		}
	}
	for _, a := range pos {
		s, err := app.load(a)
		if err != nil {
			return usageError{err}
		}
		list = append(list, s)
	}
	if err := strictBefore(*strict, list...); err != nil {
		return err
	}
	useBudget(list...)
	failed := 0
	for _, s := range list {
		res := scenarios.Run(s, scenarios.RunOptions{Seed: seed.ptr(), Program: app.name})
		if err := warnAfter(*strict, stderr, res); err != nil {
			return err
		}
		if res.OK() {
			fmt.Fprintf(stdout, "ok    %-32s %-7s seed %d\n", s.ID, res.Report.Verdict, res.Seed)
			continue
		}
		failed++
		var why []string
		for _, e := range res.Expectations {
			if !e.Met {
				why = append(why, fmt.Sprintf("expect %s (got %s)", e.Text, e.Got))
			}
		}
		fmt.Fprintf(stdout, "FAIL  %-32s %-7s seed %d: %s; reproduce: %s\n", s.ID, res.Report.Verdict, res.Seed,
			strings.Join(why, "; "), res.ReproduceCommand())
	}
	fmt.Fprintf(stdout, "%d of %d scenarios match their expectations\n", len(list)-failed, len(list))
	if failed > 0 {
		return failError{errorf("%d scenario(s) did not match", failed)}
	}
	return nil
}
