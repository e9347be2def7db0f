package dblock

// A statement travels behind a pointer, and a row is written to disk behind
// one: each is a sim.Cloner, so the kernel gives the database, its disk and the
// trace a copy of their own, and a client that reuses its statement changes
// nothing already sent.

func (s *Stmt) Clone() any {
	c := *s
	return &c
}

func (r *row) Clone() any {
	c := *r
	return &c
}
