// Package fault is the one form of a fault schedule: a Schedule of Fault values
// (kind, process, peer, when, how long, how far) that the explorer draws from a
// seed, every property test draws through rapid, and both shrink with the same
// shrinker. A schedule becomes the kernel's actions (Actions, Apply) or lines of
// the scenario language (Text), and the two agree: the file the explorer writes
// replays the run it found.
//
// Choices come from a Source: the explorer's seeded generator (Seeded), or rapid
// in a property test (simtest.Rapid), so that rapid can remove a fault and
// shrink its time, duration and magnitude like any other draw. Nothing random
// hides behind an opaque seed.
//
// The shrinker (Shrink) removes faults by delta debugging (Zeller and
// Hildebrandt, "Simplifying and Isolating Failure-Inducing Input", 2002), then
// halves each fault's duration and magnitude, keeping every change after which
// the schedule still fails the same way.
//
// May import: sim and the standard library. Like sim it keeps the determinism
// contract: no wall time, goroutines or global randomness.
package fault
