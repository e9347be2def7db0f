package cli

import (
	"slices"
	"sync/atomic"
	"testing"
)

// inOrder hands results over in index order whatever order the workers finish
// in, and stops where each says, exactly as one worker would.
func TestInOrderSeesWhatOneWorkerSees(t *testing.T) {
	for _, workers := range []int{1, 2, 3, 8} {
		var seen []uint64
		// Later jobs are quicker, so workers finish out of order.
		job := func(_ int, i uint64) uint64 {
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

// A job's worker number names one goroutine: no two jobs of one worker run at
// once, so each worker can keep memory between its runs (explore.Config.Worker).
func TestAWorkerRunsOneJobAtATime(t *testing.T) {
	for _, workers := range []int{1, 2, 4} {
		busy := make([]atomic.Bool, workers)
		var overlaps, outside atomic.Int32
		inOrder(workers, func(w int, i uint64) uint64 {
			if w < 0 || w >= workers {
				outside.Add(1)
				return i
			}
			if busy[w].Swap(true) {
				overlaps.Add(1)
			}
			n := 0
			for k := range (i % 5) * 20000 {
				n += int(k % 3)
			}
			busy[w].Store(false)
			_ = n
			return i
		}, func(v uint64) bool { return v < 300 })
		if overlaps.Load() > 0 || outside.Load() > 0 {
			t.Errorf("workers %d: %d jobs overlapped on one worker, %d had a worker number out of range",
				workers, overlaps.Load(), outside.Load())
		}
	}
}
