// Package sim is locksim's deterministic discrete-event kernel: integer true time,
// an event queue ordered by (time, sequence), one seeded PCG source split into named
// sub-streams, per-process clocks with offset, drift and jumps, a faulty network,
// process faults (crash, power loss, shutdown, restart, pause) governed by each
// process's disk, limits on every run, and the trace that everything else reads.
//
// Invariants: the same scenario and seed give a byte-identical trace. To keep that
// true, this package uses only the standard library and never touches wall time,
// goroutines, channels, mutexes, the global math/rand, files or the network
// (a test in the module root enforces it). Processes are pure state machines: they
// see only their own clock reading and one input, and append their outputs to a
// buffer the kernel owns.
//
// May import: the standard library only.
package sim
