package sim

// chunkBits sets the chunk size of the trace's tables (512 entries).
const chunkBits = 9

// chunked is an append-only table stored in fixed-size chunks: appending never
// copies what is already there (a growing slice would, again and again), so
// recording a long trace costs the same per event at the millionth as at the first.
type chunked[T any] struct {
	chunks [][]T
	cur    []T // the last chunk, full length; written by index
	n      int
}

func (c *chunked[T]) add(v T) int {
	i := c.n & (1<<chunkBits - 1)
	if i == 0 {
		c.cur = make([]T, 1<<chunkBits)
		c.chunks = append(c.chunks, c.cur)
	}
	c.cur[i] = v
	c.n++
	return c.n - 1
}

func (c *chunked[T]) at(i int) *T { return &c.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

func (c *chunked[T]) len() int { return c.n }
