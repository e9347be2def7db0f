// Package fidelity compares locksim's models with the real servers they stand
// for: redis-server, PostgreSQL, etcd and ZooKeeper, as Debian packages them.
// The package is all tests (docs/fidelity.md says what is compared and how to
// run it):
//
//   - Each server has cases: short scripts of commands, each sent on a named
//     connection ("c1> SET L a NX PX 1000"), and actions (sleep, crash,
//     restart, shutdown, pause, resume, close a connection).
//   - The live suite (build tag realservers, `scripts/fidelity`) starts each
//     server on a free loopback port in a temporary directory, runs every case
//     against it and against the model, and compares the two transcripts:
//     every reply and every event, in order. With -update it writes what the
//     real server answered to testdata/fidelity/<server>-<version>.txt.
//   - The fixture test (plain `go test ./...`, no server needed) runs every
//     case on the model and compares it with those recordings, so CI checks
//     fidelity on every run.
//
// Where the model differs from a server on purpose, the case says so: a
// difference names the real server's lines, the model's lines instead and the
// reason, and the comparison holds the model to exactly that.
//
// The model side runs in a sim.World: a conductor process plays the script,
// one driver process per connection sends its commands; the live side plays
// the same script over real connections. Both use the same step timing (a
// command unanswered after 300 ms counts as blocked), so a transcript reads the
// same on both sides.
//
// May import: sim, protocols/*. Its tests use the standard library only: a
// small RESP client for Redis, PostgreSQL's simple-query protocol, etcd's JSON
// gateway and ZooKeeper's jute encoding, so the module gains no client library.
package fidelity
