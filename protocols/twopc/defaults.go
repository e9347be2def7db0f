package twopc

import "time"

// DefaultCoordinatorConfig waits 1 s for the votes, takes 10 ms to force its
// decision to the log and resends it every second until acknowledged.
func DefaultCoordinatorConfig() CoordinatorConfig {
	return CoordinatorConfig{Timeout: time.Second, LogDelay: 10 * time.Millisecond, Resend: time.Second}
}

// DefaultParticipantConfig votes yes and, uncertain, asks for the decision
// every second, of its coordinator only.
func DefaultParticipantConfig() ParticipantConfig {
	return ParticipantConfig{Vote: true, Timeout: time.Second}
}
