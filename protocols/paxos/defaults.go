package paxos

import (
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
)

// DefaultAcceptorConfig persists its promises and acceptances (before it
// answers) and ignores, in silence, what it will not answer.
func DefaultAcceptorConfig() AcceptorConfig {
	return AcceptorConfig{Persist: true, WriteDelay: 5 * time.Millisecond}
}

// DefaultBackoff is the proposer's wait between rounds: uniform in [0, 2B).
const DefaultBackoff = 50 * time.Millisecond

// DefaultProposerConfig abandons a round after 100 ms and starts the next after
// a random wait in [0, 2 DefaultBackoff).
func DefaultProposerConfig() ProposerConfig {
	return ProposerConfig{Timeout: 100 * time.Millisecond, Retry: RandomBackoff(DefaultBackoff)}
}

// RandomBackoff waits uniformly in [0, 2b) between rounds.
func RandomBackoff(b time.Duration) lockkit.Retry {
	return lockkit.Retry{Backoff: lockkit.Uniform, Max: 2*b - 1}
}
