package sim

import "time"

// MaxRunTime is the largest true-time limit a run may have (clock arithmetic is exact
// up to it).
const MaxRunTime = 24 * time.Hour

// MaxDuration is the longest duration a scenario may give: a delay, a jitter, a
// timeout, a TTL, a pause, a clock offset or jump. Far longer than any run, it
// keeps every sum of times and durations a protocol makes far from overflow; the
// kernel's own sums saturate besides, so no setting makes time run backwards.
const MaxDuration = 1000 * time.Hour

// Limits bound every run, so that no schedule can hang: hitting one is an outcome of
// the run, reported with its seed, never a crash.
type Limits struct {
	MaxEvents int           // trace events
	MaxTime   time.Duration // true time
	MaxQueue  int           // pending events
	MaxMemory int64         // bytes, as the run estimates them (memory.go); 0: the default
}

// DefaultLimits are used where a scenario sets none.
func DefaultLimits() Limits {
	return Limits{MaxEvents: 1_000_000, MaxTime: time.Hour, MaxQueue: 100_000, MaxMemory: DefaultMaxMemory}
}

// EndReason says why a run stopped.
type EndReason uint8

const (
	EndQuiescent   EndReason = iota + 1 // nothing left to happen
	EndUntil                            // the scenario's chosen end
	EndEventLimit                       // Limits.MaxEvents
	EndTimeLimit                        // Limits.MaxTime
	EndQueueLimit                       // Limits.MaxQueue
	EndMemoryLimit                      // Limits.MaxMemory
)

var endNames = [...]string{EndQuiescent: "quiescent", EndUntil: "until",
	EndEventLimit: "event-limit", EndTimeLimit: "time-limit", EndQueueLimit: "queue-limit",
	EndMemoryLimit: "memory-limit"}

// String is the reason's name in the JSON output: "quiescent", "time-limit".
func (r EndReason) String() string { return endNames[r] }

// AtLimit reports whether the run was cut short by a limit.
func (r EndReason) AtLimit() bool { return r >= EndEventLimit }
