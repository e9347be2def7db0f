package threepc

import "time"

// DefaultCoordinatorConfig waits 1 s after each phase, sending to every
// participant at once.
func DefaultCoordinatorConfig() CoordinatorConfig {
	return CoordinatorConfig{Timeout: time.Second}
}

// DefaultParticipantConfig votes yes, runs the termination protocol after 2 s
// without word, and waits 200 ms for its peers' states.
func DefaultParticipantConfig() ParticipantConfig {
	return ParticipantConfig{Vote: true, Timeout: 2 * time.Second, StateWait: 200 * time.Millisecond}
}
