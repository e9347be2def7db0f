package sim

// strtab interns the trace's strings: each distinct text (a command name, a lock,
// a grant's value, a note) is stored once and named by a number, so a record
// holds a 4-byte number where a string header alone takes 16 bytes, and no
// pointer. Id 0 is always "".
type strtab struct {
	strs []string
	ids  map[string]uint32
	// recent remembers the last string seen in each of a few slots, so that the
	// words every step repeats ("SET", "L", "+OK") are found by one comparison,
	// which for the same string constant is a pointer check, without hashing.
	recent [64]struct {
		s  string
		id uint32
	}
}

// id returns s's number, adding s on first sight.
func (t *strtab) id(s string) uint32 {
	if s == "" {
		return 0
	}
	r := &t.recent[(len(s)*7+int(s[0])+3*int(s[(len(s)-1)/2])+5*int(s[len(s)-1]))&63]
	if r.s == s {
		return r.id
	}
	id, ok := t.ids[s]
	if !ok {
		if t.ids == nil {
			t.ids = map[string]uint32{}
		}
		if len(t.strs) == 0 {
			t.strs = append(t.strs, "")
		}
		id = uint32(len(t.strs))
		t.strs = append(t.strs, s)
		t.ids[s] = id
	}
	r.s, r.id = s, id
	return id
}

// add stores s under a number of its own, without looking for it: for texts
// that never repeat (a process's snapshot after each step).
func (t *strtab) add(s string) uint32 {
	if len(t.strs) == 0 {
		t.strs = append(t.strs, "")
	}
	t.strs = append(t.strs, s)
	return uint32(len(t.strs) - 1)
}

// str returns the string numbered id.
func (t *strtab) str(id uint32) string {
	if id == 0 {
		return ""
	}
	return t.strs[id]
}

// empty forgets every string, keeping the index's memory for the next trace.
func (t *strtab) empty() {
	clear(t.strs) // let the strings go
	t.strs = t.strs[:0]
	clear(t.ids)
	clear(t.recent[:])
}
