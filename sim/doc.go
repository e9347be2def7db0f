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
// # Writing your own process
//
// A process is a Process: Step(now, in, out) is called with the process's own
// clock reading (LocalTime: wall and monotonic, never true time) and one
// Input (a message, a timer, a command from the scenario, a restart); it
// answers through Outputs: Send, SetTimer (monotonic) or SetWallTimer,
// CancelTimer, Write and Fsync (its disk, read back on InRestart), and Observe.
// A constructor func(Env) Process is called at the start and after every
// crash (a crash loses memory); Env gives the process's ID, its name, every
// name, and its own random stream. The Example shows a whole world.
//
// # What a lock must report
//
// The checker (package check) reads only observations, never a protocol's
// state. A lock reports, in this vocabulary:
//
//   - ObsGrant / ObsGrantEnd: the service grants Client the lock for Window
//     of true time (a renewal repeats the same Grant), and withdraws it
//     (Reason: released by the owner, expired, deleted). From these the
//     checker derives the service's promises: grant-exclusive.
//   - ObsBeliefStart / ObsBeliefEnd (through Belief): the client concludes it
//     holds the lock, and stops. From these: mutex-belief.
//   - ObsResource (package protocols/resource reports it): the protected
//     resource accepted or refused an operation under a grant, with its
//     fencing Token. From these: resource-safe, fencing-monotonic; and from the
//     tokens granted, tokens-ordered.
//   - ObsAttempt, ObsAttemptFailed, ObsGiveUp (through protocols/lockkit's
//     Attempts): the liveness invariants (progress, no-starvation).
//
// docs/invariants.md defines every invariant and the verdict.
//
// # Stability
//
// locksim is before 1.0. The public packages are sim, sim/check, sim/fault,
// sim/simtest, protocols/lockkit, protocols/resource, scenarios (its Kind,
// Verb, Args and Registry for registering kinds; Parse, Load, Run),
// scenarios/proptest and cmd/locksim/cli. Before 1.0:
//
//   - will stay: the Process interface, Env, Input, Outputs' methods, the
//     observation kinds and their meanings, the Reason and Role constants, the
//     invariants' names, the scenario language's existing lines;
//   - may change, each change noted in docs/your-protocol.md: new observation kinds and fields (add
//     them, the zero value keeps today's meaning), Message's representation
//     (its numbers moved to named Args once already), the Trace's accessors,
//     check.Report's fields beyond Results and Verdict, the simtest helpers'
//     shapes (Case, Menu), the registry's Args readers, the cli options;
//   - not an API: anything not exported, the text of notes and violations
//     (read Result.Name and Violation fields, not sentences), the JSON output
//     except as docs/json-output.md versions it.
//
// May import: the standard library only.
package sim
