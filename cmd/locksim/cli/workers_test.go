package cli

import (
	"slices"
	"testing"
)

// inOrder hands results over in index order whatever order the workers finish
// in, and stops where each says, exactly as one worker would.
func TestInOrderSeesWhatOneWorkerSees(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8} {
		var seen []uint64
		// Later jobs are quicker, so workers finish out of order.
		job := func(i uint64) uint64 {
			n := 0
			for k := range (40 - i%40) * 1000 {
				n += int(k % 7)
			}
			_ = n
			return i * i
		}
		inOrder(workers, job, func(v uint64) bool {
			seen = append(seen, v)
			return v < 99*99 // stop after index 99
		})
		want := make([]uint64, 100)
		for i := range want {
			want[i] = uint64(i * i)
		}
		if !slices.Equal(seen, want) {
			t.Errorf("workers %d: saw %v, want the squares of 0..99 in order", workers, seen)
		}
	}
}
