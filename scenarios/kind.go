package scenarios

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/locksim/locksim/sim"
)

// The commands that declare a process. A kind is declared by one of them.
const (
	DeclNode     = "node"     // a server: node NAME KIND [args]
	DeclClient   = "client"   // a client, which takes commands: client NAME KIND [args]
	DeclResource = "resource" // the protected resource: resource NAME [args]
)

// RoleClient is the role of a lock client: it takes the lock clients' verbs
// (acquire, release, read, write). A client kind with another role (a 2PC
// coordinator, a Paxos proposer) takes only its own verbs.
const RoleClient = "client"

// Kind is a process type a scenario can declare: `node NAME KIND [args]`,
// `client NAME KIND [args]` or `resource NAME [args]`. It owns everything the
// scenario language knows about its processes: the arguments it takes and
// their defaults (its Build reads them), the verbs it takes, and whom it talks
// to. The parser and the explorer know kinds only through a Registry.
type Kind struct {
	Name     string // as scenarios write it: "redis-lock"; a resource kind is named "resource"
	Decl     string // DeclNode, DeclClient or DeclResource
	Role     string // shown in displays and read by the checker (sim.RoleParticipant, ...); RoleClient for a lock client
	Protocol string // the protocol its scenarios are about ("redis"), for `protocol NAME`; "" for none

	// TalksTo lists the kinds its processes exchange messages with besides the
	// processes its arguments name (server=, ensemble=, which always count):
	// a 2PC participant asks its fellow participants in cooperative
	// termination. The explorer puts link faults between processes that talk.
	TalksTo []string

	// Background says, for the docs and the TUI's quiet view, which of its
	// processes' traffic only keeps something alive (pings, keepalives,
	// heartbeats): the protocol marks those messages as it sends them
	// (sim.Message.InBackground) and those timers (sim.BackgroundTimers), and
	// the catalogue's runs are checked to agree: a kind sends background
	// traffic if and only if it says so here. "" for none.
	Background string

	// Verbs are the commands its processes take: `at 1s c1 acquire L`, or for
	// a fault verb `at 1s failover r2`.
	Verbs []Verb

	// Build reads the declaration's arguments and returns the constructor the
	// world calls at the start and after each crash. It starts from the
	// protocol's DefaultConfig(), so that a default is written once, and reads
	// every argument it takes on every call, whatever the others say (the
	// registry lists a kind's arguments by calling Build with none). It may
	// return nil when it has reported an error: the scenario is refused.
	Build func(a *Args) func(sim.Env) sim.Process
}

// Verb is a command a process of a kind takes. Its name is the protocol
// package's constant (redis.CmdAcquire), which the process compares with the
// message's Op: parser and protocol agree by construction.
type Verb struct {
	Name  string // the word: "acquire"
	Usage string // what follows `PROC VERB` (or `VERB PROC` for a fault): "LOCK [ttl=DUR]"

	// Fault marks a verb written before its process, as faults are: `at 2s
	// failover r2`. It names one process and takes key=value arguments only.
	Fault bool

	// Who and Only make the error for a process of a kind that lacks the verb:
	// "pr is not "+Who ("a coordinator"), with the hint Only ("only 2pc and 3pc
	// coordinators begin a transaction").
	Who, Only string

	// Hint is the hint when this kind's verb is given an argument that only
	// another kind's verb of the same name takes ("set the lease where the
	// client is declared: ttl=5s").
	Hint string

	// Needs, for a fault verb, is the argument a process must be declared with
	// for the explorer to draw the fault on it (failover: replica-of).
	Needs string

	// Parse reads the words after the verb and returns the message the process
	// is sent. Like Build it reads every argument it takes on every call.
	Parse func(a *Args) sim.Message
}

// kindRE is what a kind's name is made of: it is a word of a declaration line.
var kindRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// Registry is the set of kinds a scenario may declare. It is a value: the
// parser and the explorer take the registry they read (Builtins by default),
// and a program that adds its own kinds builds its own with With.
type Registry struct {
	kinds []Kind
	args  map[string][]Arg    // decl+" "+kind -> the arguments its Build reads
	takes map[string][]string // kind+" "+verb -> the keys its Parse reads
}

// NewRegistry checks kinds and makes a registry of them, in their order (the
// order hints list them and the catalogue ranks protocols).
func NewRegistry(kinds ...Kind) (*Registry, error) {
	r := &Registry{args: map[string][]Arg{}, takes: map[string][]string{}}
	for _, k := range kinds {
		if err := r.add(k); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// With returns a registry with the kinds of r and then kinds.
func (r *Registry) With(kinds ...Kind) (*Registry, error) {
	return NewRegistry(append(slices.Clone(r.kinds), kinds...)...)
}

func (r *Registry) add(k Kind) error {
	switch {
	case k.Decl != DeclNode && k.Decl != DeclClient && k.Decl != DeclResource:
		return fmt.Errorf("kind %q: Decl is %q, not node, client or resource", k.Name, k.Decl)
	case k.Decl == DeclResource && k.Name != DeclResource:
		return fmt.Errorf("kind %q: a resource kind is named resource", k.Name)
	case k.Decl != DeclResource && !kindRE.MatchString(k.Name):
		return fmt.Errorf("kind %q: not a name (letters, digits, - and _)", k.Name)
	case k.Build == nil:
		return fmt.Errorf("kind %q has no Build", k.Name)
	}
	if _, dup := r.Lookup(k.Decl, k.Name); dup {
		return fmt.Errorf("kind %s %s is registered twice", k.Decl, k.Name)
	}
	for _, v := range k.Verbs {
		if v.Name == "" || v.Parse == nil {
			return fmt.Errorf("kind %q: a verb needs a name and a Parse", k.Name)
		}
		if !v.Fault && k.Decl != DeclClient {
			return fmt.Errorf("kind %q: verb %q: only clients take commands (PROC VERB); give a node a fault verb (VERB PROC)", k.Name, v.Name)
		}
		a, _ := dryArgs(v.Name)
		a.usage = v.Name
		v.Parse(a)
		for _, arg := range *a.dry {
			r.takes[k.Name+" "+v.Name] = append(r.takes[k.Name+" "+v.Name], arg.Name)
		}
	}
	a, rec := dryArgs(k.Decl)
	k.Build(a)
	for i := range *rec {
		if (*rec)[i].Form == "" { // read as text its Build checks itself
			(*rec)[i].Form = "VALUE"
		}
	}
	r.args[k.Decl+" "+k.Name] = *rec
	r.kinds = append(r.kinds, k)
	return nil
}

// Kinds lists the registered kinds, in order.
func (r *Registry) Kinds() []Kind { return slices.Clone(r.kinds) }

// Lookup finds the kind declared as `decl NAME name` (a copy: a registry
// never changes).
func (r *Registry) Lookup(decl, name string) (Kind, bool) {
	if k, ok := r.lookup(decl, name); ok {
		return *k, true
	}
	return Kind{}, false
}

func (r *Registry) lookup(decl, name string) (*Kind, bool) {
	for i := range r.kinds {
		if r.kinds[i].Decl == decl && r.kinds[i].Name == name {
			return &r.kinds[i], true
		}
	}
	return nil, false
}

// Args lists the arguments a kind takes, in the order its Build reads them,
// with their forms and defaults (nil for an unknown kind). Every kind also
// takes offset= and drift= (its clock), which the parser reads.
func (r *Registry) Args(decl, name string) []Arg {
	return slices.Clone(r.args[decl+" "+name])
}

// Protocols lists the protocol names a `protocol` line may give, in the order
// of the kinds.
func (r *Registry) Protocols() []string {
	var ps []string
	for _, k := range r.kinds {
		if k.Protocol != "" && !slices.Contains(ps, k.Protocol) {
			ps = append(ps, k.Protocol)
		}
	}
	return ps
}

// names lists the kinds a decl declares.
func (r *Registry) names(decl string) []string {
	var ns []string
	for _, k := range r.kinds {
		if k.Decl == decl {
			ns = append(ns, k.Name)
		}
	}
	return ns
}

// declOf is the declaring command of a kind (node, client or resource).
func (r *Registry) declOf(kindName string) string {
	for _, k := range r.kinds {
		if k.Name == kindName {
			return k.Decl
		}
	}
	return DeclNode
}

// verb finds the first kind (in order) whose processes take verb, and the verb.
func (r *Registry) verb(name string, fault bool) (*Kind, *Verb) {
	for i := range r.kinds {
		for j := range r.kinds[i].Verbs {
			if v := &r.kinds[i].Verbs[j]; v.Name == name && v.Fault == fault {
				return &r.kinds[i], v
			}
		}
	}
	return nil, nil
}

// verbsTaking lists the kinds whose verb takes key=.
func (r *Registry) verbsTaking(verb, key string) []string {
	var ks []string
	for _, k := range r.kinds {
		if slices.Contains(r.takes[k.Name+" "+verb], key) {
			ks = append(ks, k.Name)
		}
	}
	return ks
}

// faultVerbs lists the fault verbs the kinds take, in order.
func (r *Registry) faultVerbs() []string {
	var vs []string
	for _, k := range r.kinds {
		for _, v := range k.Verbs {
			if v.Fault && !slices.Contains(vs, v.Name) {
				vs = append(vs, v.Name)
			}
		}
	}
	return vs
}

// IsFaultVerb reports whether a kind takes verb as a fault (VERB PROC): with
// the faults every process takes (sim/fault.Verbs), the actions the explorer
// draws and a template loses.
func (r *Registry) IsFaultVerb(verb string) bool { return slices.Contains(r.faultVerbs(), verb) }

// kindVerb finds a kind's own verb.
func (k *Kind) verb(name string, fault bool) (*Verb, bool) {
	for i := range k.Verbs {
		if k.Verbs[i].Name == name && k.Verbs[i].Fault == fault {
			return &k.Verbs[i], true
		}
	}
	return nil, false
}

// hasVerb reports whether k takes the command verb.
func (k *Kind) hasVerb(name string) bool {
	_, ok := k.verb(name, false)
	return ok
}

// lockVerbs lists the verbs every lock client (RoleClient) takes, in order.
func (r *Registry) lockVerbs() []string {
	var common []string
	first := true
	for _, k := range r.kinds {
		if k.Decl != DeclClient || k.Role != RoleClient {
			continue
		}
		if first {
			for _, v := range k.Verbs {
				common = append(common, v.Name)
			}
			first = false
			continue
		}
		common = slices.DeleteFunc(common, func(n string) bool { return !k.hasVerb(n) })
	}
	return common
}

// allVerbs lists every command any client takes.
func (r *Registry) allVerbs() []string {
	var vs []string
	for _, k := range r.kinds {
		for _, v := range k.Verbs {
			if !v.Fault && !slices.Contains(vs, v.Name) {
				vs = append(vs, v.Name)
			}
		}
	}
	return vs
}

// verbGroups lists the commands beyond every lock client's, each with who
// takes it: "redlock clients" (lock clients, by kind) or "coordinators" (by
// role), grouped by who, in the order of the kinds.
func (r *Registry) verbGroups() (who []string, verbs [][]string) {
	common := r.lockVerbs()
	for _, k := range r.kinds {
		for _, v := range k.Verbs {
			if v.Fault || slices.Contains(common, v.Name) || slices.ContainsFunc(verbs, func(vs []string) bool { return slices.Contains(vs, v.Name) }) {
				continue
			}
			var owners []string
			role := ""
			for _, o := range r.kinds {
				if o.hasVerb(v.Name) {
					owners = append(owners, o.Name)
					if role == "" || role == o.Role {
						role = o.Role
					} else {
						role = RoleClient // mixed roles: name the kinds
					}
				}
			}
			w := role + "s"
			if role == RoleClient {
				w = andList(owners) + " clients"
			}
			if i := slices.Index(who, w); i >= 0 {
				verbs[i] = append(verbs[i], v.Name)
				continue
			}
			who, verbs = append(who, w), append(verbs, []string{v.Name})
		}
	}
	return who, verbs
}

// commandsList says which client takes which command, for an unknown one:
// "acquire, release, read, write (and redlock clients: extend; coordinators: begin)".
func (r *Registry) commandsList() string {
	s := strings.Join(r.lockVerbs(), ", ")
	who, verbs := r.verbGroups()
	var more []string
	for i, w := range who {
		more = append(more, w+": "+strings.Join(verbs[i], ", "))
	}
	if len(more) > 0 {
		s += " (and " + strings.Join(more, "; ") + ")"
	}
	return s
}

// commandsHint lists the commands by who takes them, for a command sent to a
// process that is not a client: "acquire, release, read, write; begin
// (coordinators); propose (proposers)". Lock clients' own extras are left out.
func (r *Registry) commandsHint() string {
	s := strings.Join(r.lockVerbs(), ", ")
	who, verbs := r.verbGroups()
	for i, w := range who {
		if !strings.HasSuffix(w, " clients") {
			s += "; " + strings.Join(verbs[i], ", ") + " (" + w + ")"
		}
	}
	return s
}
