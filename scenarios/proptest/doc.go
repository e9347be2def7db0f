// Package proptest runs property tests over a scenario template, for your own
// tests and CI: fault schedules are drawn over the template from fixed seeds
// (the same fault.Space the explorer and the built-in property tests draw
// from), or every schedule within a bound is tried (Exhaustive); the scenario
// runs, the checker judges it, and a failing schedule is shrunk to the faults
// that matter. The same test tries the same schedules on every run. A failure is written as a
// scenario file, and the test's message names the file and the command that
// replays it:
//
//	sessionlock-broken.scn breaks resource-safe at 2.412s: ...
//	faults: c1 pauses at 1.2s for 2.6s
//	scenario written to /home/you/lock/testdata/locksim-found/TestBroken.scn
//	step through it: locksim tui /home/you/lock/testdata/locksim-found/TestBroken.scn
//
// The run a test judges is the run of the file it writes (the test parses the
// file's very text), so the file replays the violation exactly.
//
// A template is a scenario file as `locksim explore FILE` reads it: its
// processes and workload are kept, its own faults, expectations, seed and run
// line are dropped. Your own process kinds appear in it once registered with
// the scenarios package.
//
// Where files go: Config.Dir, else $LOCKSIM_FOUND_DIR (set it in CI and upload
// that folder), else testdata/locksim-found under the test's package.
//
// May import: sim, sim/check, sim/fault, sim/simtest, scenarios,
// and scenarios/explore. It writes files, so it is test
// support, never used by a run.
package proptest
