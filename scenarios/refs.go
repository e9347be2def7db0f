package scenarios

import (
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/sim"
)

// An argument that names other processes (server=r1, ensemble=z1,z2,z3) is how
// a kind says whom its processes talk to. Their names are checked against the
// whole scenario, whatever the order of its lines; an error about them comes
// before an error about any value.

// Ref reads key, which must name one declared process of kind kindName.
func (a *Args) Ref(key, kindName string) sim.ProcID {
	return a.refs(key, kindName, false)[0]
}

// Refs reads key, a comma-separated list of declared processes of kind
// kindName, each named once.
func (a *Args) Refs(key, kindName string) []sim.ProcID {
	return a.refs(key, kindName, true)
}

// OptRef reads key like Ref when the line gives it.
func (a *Args) OptRef(key, kindName string) (sim.ProcID, bool) {
	if !a.Given(key) {
		a.note(key, "NAME", "")
		a.noteRefers(key, kindName)
		a.take(key)
		return sim.NoProc, false
	}
	return a.Ref(key, kindName), true
}

// OptRefs reads key like Refs when the line gives it.
func (a *Args) OptRefs(key, kindName string) ([]sim.ProcID, bool) {
	if !a.Given(key) {
		a.note(key, "A,B,...", "")
		a.noteRefers(key, kindName)
		a.take(key)
		return nil, false
	}
	return a.Refs(key, kindName), true
}

// Members reads the members of a replicated group this process belongs to
// (ensemble=, cluster=): every one, this one included.
func (a *Args) Members(key, kindName string) []sim.ProcID {
	ids := a.Refs(key, kindName)
	if t, ok := a.kv[key]; ok && !slices.Contains(strings.Split(t.text, ","), a.self) {
		a.BadRef(key, key+"="+short(t.text)+" does not name "+a.self+" itself",
			"list every member, this one included, the same on every line: "+key+"="+a.self+",...")
	}
	return ids
}

// Peers reads the other processes of this one's group (peers=): this one is
// not among them.
func (a *Args) Peers(key, kindName string) []sim.ProcID {
	ids := a.Refs(key, kindName)
	a.notSelf(key)
	return ids
}

// OptPeers reads key like Peers when the line gives it.
func (a *Args) OptPeers(key, kindName string) ([]sim.ProcID, bool) {
	ids, ok := a.OptRefs(key, kindName)
	a.notSelf(key)
	return ids, ok
}

func (a *Args) notSelf(key string) {
	if t, ok := a.kv[key]; ok && slices.Contains(strings.Split(t.text, ","), a.self) {
		a.BadRef(key, key+"="+short(t.text)+" names "+a.self+" itself", "list the other participants only")
	}
}

// Self is the name of the process being declared (or commanded).
func (a *Args) Self() string { return a.self }

// Declared lists the declared processes of kind kindName, in declaration
// order, wherever their lines stand.
func (a *Args) Declared(kindName string) []string {
	if a.p == nil {
		return nil
	}
	return a.p.namesOf(kindName)
}

// BadRef reports an error about the processes key names, at its column: it is
// the one the user sees unless an earlier one was about names too.
func (a *Args) BadRef(key, msg, hint string) {
	if a.early != nil {
		return
	}
	col := 1
	if t, ok := a.kv[key]; ok {
		col = t.col
	}
	a.early = &Error{File: a.file, Line: a.line, Col: col, Msg: msg, Hint: hint}
}

func (a *Args) noteRefers(key, kindName string) {
	if a.dry == nil {
		return
	}
	for i := range *a.dry {
		if (*a.dry)[i].Name == key {
			(*a.dry)[i].Refers = kindName
		}
	}
}

func (a *Args) refs(key, kindName string, many bool) []sim.ProcID {
	form := "NAME"
	if many {
		form = "A,B,..."
	}
	a.note(key, form, "")
	a.noteRefers(key, kindName)
	a.required(key)
	text, ok := a.Required(key, "a declared "+kindName+" process")
	if !ok || a.p == nil {
		return []sim.ProcID{sim.NoProc}
	}
	t := a.kv[key]
	names := []string{text}
	if many {
		names = strings.Split(text, ",")
	}
	// The first bad name is the error the user sees: stop there, so that a list
	// of 80,000 commas costs one message, not 80,000 (issue 32). The result
	// keeps one entry per name, NoProc from the bad one on.
	ids := make([]sim.ProcID, 0, len(names))
	seen := make(map[sim.ProcID]bool, len(names))
	for i, n := range names {
		id, err := a.p.refName(a.line, t, n, key, kindName)
		if err == nil && seen[id] {
			err = a.p.err(a.line, t.col, key+"="+short(t.text)+" names "+short(n)+" twice", "name each process once")
		}
		if err != nil {
			if a.early == nil {
				a.early = err
			}
			for range names[i:] {
				ids = append(ids, sim.NoProc)
			}
			return ids
		}
		seen[id] = true
		a.named = append(a.named, id)
		ids = append(ids, id)
	}
	return ids
}

// Words checks that a command has from least to most words besides its
// key=value arguments, and returns those given (at most most).
func (a *Args) Words(least, most int) []string {
	var out []string
	for i := range min(len(a.pos), most) {
		out = append(out, a.pos[i].text)
	}
	if a.early != nil || a.p == nil {
		return out
	}
	switch {
	case len(a.pos) < least:
		a.early = a.p.errAt(a.ln, len(a.ln.toks), "missing argument", "write "+a.usage)
	case len(a.pos) > most:
		a.early = a.p.err(a.line, a.pos[most].col, "unexpected "+quote(a.pos[most].text), "write "+a.usage)
	}
	return out
}

// Word checks that word i names a what ("lock", "transaction"): see isWord.
func (a *Args) Word(i int, what string) string {
	if i >= len(a.pos) {
		return ""
	}
	if a.early == nil && a.p != nil {
		a.early = a.p.word(a.line, a.pos[i], what)
	}
	return a.pos[i].text
}

// Resource checks that word i names a declared resource.
func (a *Args) Resource(i int) string {
	if i >= len(a.pos) || a.early != nil || a.p == nil {
		return ""
	}
	t := a.pos[i]
	if a.p.inTxn[t.text] {
		return t.text // a table of a lock's database (intxn.go)
	}
	id, err := a.p.proc(a.line, t)
	if err == nil && a.p.s.procs[id].kind.Decl != DeclResource {
		err = a.p.err(a.line, t.col, t.text+" is not a resource", "declare it with resource "+t.text)
	}
	a.early = err
	return t.text
}

// durText is a default duration as the docs write it: 0, 10s, 100ms.
func durText(d time.Duration) string {
	if d == 0 {
		return "0"
	}
	return d.String()
}

// Text is key's value as written, shortened for an error message.
func (a *Args) Text(key string) string { return short(a.kv[key].text) }
