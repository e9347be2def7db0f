package cli

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/pkg/errors"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/tui/export"
	"github.com/locksim/locksim/tui/layout"
)

// The flags of `locksim run` that cut an export to a stretch of true time
// (--from, --to) and write a walk as slides (--stops).

// parseWindow reads --from and --to: nil when neither is given; a missing end
// is the run's start or end.
func parseWindow(fs *flag.FlagSet, from, to string) (*export.Window, error) {
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	if !given["from"] && !given["to"] {
		return nil, nil
	}
	w := &export.Window{From: 0, To: sim.Never}
	for _, f := range []struct {
		name, value string
		into        *sim.Time
	}{{"from", from, &w.From}, {"to", to, &w.To}} {
		if !given[f.name] {
			continue
		}
		t, err := parseTrueTime(f.value)
		if err != nil {
			return nil, usagef("--%s %q: %v", f.name, f.value, err)
		}
		*f.into = t
	}
	if w.From > w.To {
		return nil, usagef("--from %s is after --to %s: expected --from at or before --to (both ends are kept: --from 2s --to 3s is the rows from 2 s to 3 s)", w.From, w.To)
	}
	return w, nil
}

// parseTrueTime reads a moment of a run: a duration from its start, with its
// unit ("2s", "1.5s", "250ms", "1m30s"), or a bare 0.
func parseTrueTime(s string) (sim.Time, error) {
	const expected = "expected a true time with its unit, such as 2s, 1.5s, 250ms or 1m30s"
	if strings.TrimSpace(s) == "0" {
		return 0, nil
	}
	d, err := time.ParseDuration(strings.TrimSpace(s))
	switch {
	case err != nil && strings.Trim(s, "0123456789.") == "" && s != "":
		return 0, fmt.Errorf("%s (a number needs its unit: %ss)", expected, s)
	case err != nil:
		return 0, errors.New(expected)
	case d < 0:
		return 0, fmt.Errorf("%s; a run starts at 0, so a time is never negative", expected)
	case time.Duration(sim.Never) < d:
		return 0, errors.New(expected)
	}
	return sim.Time(d), nil
}

// windowHasRows refuses a window in which none of the runs has a row: the
// export would be empty. It says where the rows are.
func windowHasRows(w *export.Window, runs ...*scenarios.Result) error {
	if w == nil {
		return nil
	}
	var ends []string
	for _, r := range runs {
		tl := layout.New(r.Trace, &r.Report)
		if tl.Window(w.From, w.To).Len() > 0 {
			return nil
		}
		if tl.Len() > 0 {
			ends = append(ends, fmt.Sprintf("%s's rows run from %s to %s", r.Scenario.ID, tl.RowTime(0), tl.RowTime(tl.Len()-1)))
		}
	}
	return usagef("%s: no row falls in that stretch of true time (%s)", w, strings.Join(ends, "; "))
}

// stopsDir makes --stops's directory, and checks that it can be written
// before the run: a bad directory is bad input (exit 2), a disk that fills
// while the slides are written is exit 3.
func stopsDir(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return usageError{errors.Wrapf(err, "--stops %s", dir)}
	}
	probe, err := os.CreateTemp(dir, ".locksim-stops-*")
	if err != nil {
		return usageError{errors.Wrapf(err, "--stops %s is not writable", dir)}
	}
	probe.Close()
	os.Remove(probe.Name())
	return nil
}

// writeStops writes the walk's slides into dir and says each file's name.
func writeStops(res *scenarios.Result, opt export.Options, dir string, stdout io.Writer) error {
	n := 0
	err := export.WriteStops(res, opt, func(name string, write func(io.Writer) error) error {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			return outputError{err}
		}
		if err := write(f); err != nil {
			f.Close()
			return outputError{errors.Wrapf(err, "writing %s", path)}
		}
		if err := f.Close(); err != nil {
			return outputError{errors.Wrapf(err, "writing %s", path)}
		}
		n++
		fmt.Fprintf(stdout, "wrote %s\n", scenarios.Shown(path))
		return nil
	})
	if err != nil {
		return err
	}
	if n == 0 {
		return usagef("%s has no stop to write and no row", res.Scenario.ID)
	}
	return nil
}
