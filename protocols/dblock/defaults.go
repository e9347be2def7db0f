package dblock

import (
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
)

// DefaultNodeConfig is MySQL's innodb_lock_wait_timeout of 50 s, and a
// connection dropped after 3 s of silence.
func DefaultNodeConfig() NodeConfig {
	return NodeConfig{LockWaitTimeout: 50 * time.Second, ConnTimeout: 3 * time.Second}
}

// DefaultRetryMax caps an exponential backoff unless the scenario says
// otherwise (never below its first delay).
const DefaultRetryMax = 10 * time.Second

// DefaultClientConfig is the INSERT lock, retried every 100 ms, with a 10 s
// lease for the lease mode, the database's clock, an optimistic cas that
// compares versions, a keepalive every second and no request timeout.
func DefaultClientConfig() ClientConfig {
	return ClientConfig{Mode: ModeInsert, TTL: 10 * time.Second, Compare: true, Keepalive: time.Second,
		Retry: lockkit.Retry{Backoff: lockkit.Fixed, Delay: 100 * time.Millisecond}}
}
