// Package explore draws random fault schedules over a scenario template, runs
// them, and shrinks a schedule that breaks an invariant to the few faults that
// matter, written back out as a scenario a person can read and replay. Beside
// the random search it holds the exhaustive one, `locksim check`
// (Exhaustive): every schedule of up to K faults, each fault at one point in
// every gap between the steps of the process it hits and of a size from a
// menu, in an order that makes the first counterexample the shortest; with
// certificates of what a check proved, and envelopes (the largest safe size of
// one fault). docs/check.md.
//
// The schedule is data: a fault.Schedule (which fault, when, on which process,
// how long, how far), drawn from the run's seed alone (fault.Seeded) over the
// template's targets, and rendered as lines of the scenario language
// (fault.Schedule.Text), so that the run, the shrinking and the file written
// out are the same thing. Nothing random hides inside the simulator. The
// property tests draw the same schedules through rapid.
//
// A failure is shrunk with fault.Shrink rather than rapid's shrinker: rapid
// takes its settings from process-wide test flags and writes failure files
// under testdata/, which suits `go test` properties and not a command-line
// explorer. It removes faults by delta debugging (Zeller and Hildebrandt,
// "Simplifying and Isolating Failure-Inducing Input", 2002), then halves each
// fault's duration and magnitude, keeping every change that still breaks the
// same invariants.
//
// May import: sim, sim/check, sim/fault, scenarios. No wall time here: budgets
// and progress belong to the command line.
package explore
