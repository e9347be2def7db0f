// Package lockkit is the lock-client kit: the pieces every lock client needs and
// that would otherwise be written once per protocol, each with its own meaning.
// sim.Belief is the same idea for what a client believes; this package holds the
// rest:
//
//   - Retry (retry.go): when a client tries again after a failed attempt, and
//     when it gives up. One policy type, with one meaning, for every client:
//     a fixed delay, a uniform draw, exponential backoff with a cap, jitter in
//     percent of the wait, an attempt limit. Each client keeps its own scenario
//     syntax (redis-lock's retry= and jitter=, db-lock's retry=exponential,
//     ...); package scenarios maps that syntax onto a Retry.
//   - Attempts (attempts.go): the account of one acquisition, reported in the
//     shared vocabulary: the client tries (sim.ObsAttempt), an attempt failed
//     and whether the client retries (sim.ObsAttemptFailed), the client gives
//     up (sim.ObsGiveUp). The retry timer is armed here too.
//   - Majority and Tally (tally.go): a majority of n, and the answers of one
//     round of requests to a fixed group (Redlock's SET round, a Paxos
//     proposer's promises).
//   - Keepalive (keepalive.go): a session's heartbeat and the failure detector
//     that decides when the server is lost, shared by the ZooKeeper, etcd and
//     database clients.
//
// A protocol package that builds a lock client on this kit keeps what is its
// own: its messages, its states, what it does when the server is lost (fail over,
// reconnect, roll back), and the text of its notes.
//
// Invariants: pure functions of their inputs and the process's own random stream
// (sim.Env.Rand), like every protocol; no wall time, no global randomness.
// May import: sim. Every protocol package may import it (docs/architecture.md).
package lockkit
