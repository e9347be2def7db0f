// Package zset models the lock clients built on Redis sorted sets that lostinsoba
// describes ("Distributed locks: NoSQL", https://lostinsoba.com/), on the Redis
// node of package redis and its ZADD (https://redis.io/docs/latest/commands/zadd/):
//
//   - the mutex (mutex.go): ZADD key NX 0 L creates the member released, and
//     ZADD key XX CH 1 L flips it to acquired; CH makes the reply 1 only for the
//     one client whose write changed the score. Release flips it back to 0. There
//     is no expiry: a holder that dies leaves the lock taken.
//   - the time bucket (bucket.go): ZADD key GT CH b JOB with b = floor(ts /
//     period), ts from the worker's own wall clock. The score only goes up, so
//     one worker per bucket sees CH = 1 and runs the job. It is a once-per-period
//     lock, not a mutex: nothing stops the next bucket's run while this one is
//     still going, and a clock that runs ahead claims the next bucket early.
//   - the state-transition lock (state.go): a job's state as its score (failed
//     -1, new 0, in progress 1, done 2); a worker claims a job with ZADD GT CH 1,
//     and marks it done when it finishes. An optional reaper resets a job that
//     has been in progress longer than reap-after, so a crashed worker's job is
//     retried; it cannot tell a crashed worker from a slow one.
//
// Every client reports its belief (sim.Belief) and counts the CH replies of its
// claims (the counters zadd_ch_won and zadd_ch_lost); a time-bucket worker also
// reports each job start (sim.ObsJobStart) for the once-per-bucket invariant. The
// node reports the mutex's grants and the state lock's claims (see redis.Node);
// a state client's winning claim is also a one-shot job start.
//
// Invariants: pure state machines (see package sim).
// May import: sim, protocols/redis (the clients talk to its node and reuse its
// command names and lock values), and protocols/lockkit (the lock-client kit).
package zset
