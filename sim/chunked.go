package sim

// chunkBits sets the chunk size of the trace's tables (512 entries).
const chunkBits = 9

// chunked is an append-only table stored in fixed-size chunks: appending never
// copies what is already there (a growing slice would, again and again), so
// recording a long trace costs the same per event at the millionth as at the first.
type chunked[T any] struct {
	chunks [][]T
	n      int
}

func (c *chunked[T]) add(v T) int {
	if c.n&(1<<chunkBits-1) == 0 {
		c.chunks = append(c.chunks, make([]T, 0, 1<<chunkBits))
	}
	last := &c.chunks[len(c.chunks)-1]
	*last = append(*last, v)
	c.n++
	return c.n - 1
}

func (c *chunked[T]) at(i int) *T { return &c.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

func (c *chunked[T]) len() int { return c.n }
