package sim

// itemKind says what a queued item does when its time comes.
type itemKind uint8

const (
	itDeliver itemKind = iota + 1
	itTimer
	itAction
	itResume
)

// item is one pending event. It is small and pointer-free so that the heap moves
// little memory; a message in flight lives in the world's slab, named by slot.
type item struct {
	at      Time
	seq     uint64
	id      uint64 // itDeliver: the message's id; itTimer: the timer's (TimerID)
	proc    ProcID
	from    ProcID
	gen     uint32 // the target's incarnation when queued (stale after a crash)
	slot    int32  // message slab slot or action index
	kind    itemKind
	arrived bool // a delivery that reached a paused process: the network is behind it
}

func (it *item) timer() TimerID { return TimerID(it.id) }

func (a *item) before(b *item) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// queue is a binary min-heap of items ordered by (time, sequence), written out by
// hand over a slice of values: container/heap would box every item in an interface.
// Sifting moves a hole rather than swapping: each level costs one item copy.
type queue struct{ items []item }

func (q *queue) len() int { return len(q.items) }

func (q *queue) push(it item) {
	q.items = append(q.items, it)
	h := q.items
	i := len(h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !it.before(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = it
}

func (q *queue) pop() item {
	h := q.items
	top := h[0]
	n := len(h) - 1
	last := h[n]
	q.items = h[:n]
	h = h[:n]
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && h[r].before(&h[l]) {
			m = r
		}
		if !h[m].before(&last) {
			break
		}
		h[i] = h[m]
		i = m
	}
	if n > 0 {
		h[i] = last
	}
	return top
}

func (q *queue) peek() *item { return &q.items[0] }
