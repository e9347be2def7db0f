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
	spare  *[][]T // chunks to write into before allocating (Reuse), or nil
}

func (c *chunked[T]) add(v T) int {
	*c.grow() = v
	return c.n - 1
}

// grow adds an entry and returns it for the caller to fill, every field: a
// reused chunk still holds an earlier trace's entry there. Filling a record in
// place spares copying it in (a record built field by field on the stack and
// then copied whole stalls the processor's store forwarding).
func (c *chunked[T]) grow() *T {
	i := c.n & (1<<chunkBits - 1)
	if i == 0 {
		c.cur = c.chunk()
		c.chunks = append(c.chunks, c.cur)
	}
	c.n++
	return &c.cur[i]
}

// chunk is a chunk to fill: a spare one, or a new one. A spare chunk still holds
// an earlier trace's entries; add overwrites each before at can read it.
func (c *chunked[T]) chunk() []T {
	if c.spare != nil {
		if s := *c.spare; len(s) > 0 {
			*c.spare = s[:len(s)-1]
			return s[len(s)-1]
		}
	}
	return make([]T, 1<<chunkBits)
}

func (c *chunked[T]) at(i int) *T { return &c.chunks[i>>chunkBits][i&(1<<chunkBits-1)] }

func (c *chunked[T]) len() int { return c.n }

// giveBack hands the table's chunks to its spares and empties it.
func (c *chunked[T]) giveBack() {
	if c.spare != nil {
		*c.spare = append(*c.spare, c.chunks...)
	}
	*c = chunked[T]{spare: c.spare}
}
