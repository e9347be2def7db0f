package sim

import (
	"hash/fnv"
	"math/rand/v2"
)

// Streams splits one seed into independent named PCG streams ("network", "clocks",
// "workload", "proc/c1"), so adding a process or a random draw in one place does not
// reshuffle the draws made anywhere else.
type Streams struct{ seed uint64 }

// NewStreams returns the streams of one run's seed.
func NewStreams(seed uint64) Streams { return Streams{seed: seed} }

// Seed is the run's seed.
func (s Streams) Seed() uint64 { return s.seed }

// Stream returns the named sub-stream. Calling it twice with one name gives two
// generators with the same sequence; callers keep the one they were given.
func (s Streams) Stream(name string) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(s.seed, h.Sum64()))
}
