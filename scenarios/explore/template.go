package explore

import (
	"embed"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim/fault"
)

//go:embed presets/*.scn
var presetFS embed.FS

// Template is what the faults are drawn over: a scenario's topology, parameters
// and workload, without its faults, expectations, seed or end.
type Template struct {
	Name     string              // the preset's name, or the file's path
	Header   string              // its opening comment paragraph
	Body     string              // scenario lines
	Procs    []scenarios.Process // its processes: what faults can hit
	Horizon  time.Duration       // faults fall before it: the template's run until=
	Bound    time.Duration       // its liveness bound
	Protocol string              // its protocol
	reg      *scenarios.Registry // the kinds its scenarios are parsed with
}

// Presets lists the preset names.
func Presets() []string {
	entries, _ := presetFS.ReadDir("presets")
	var out []string
	for _, e := range entries {
		out = append(out, strings.TrimSuffix(e.Name(), scenarios.Ext))
	}
	return out
}

// Preset loads a named preset.
func Preset(name string) (*Template, error) {
	src, err := presetFS.ReadFile("presets/" + name + scenarios.Ext)
	if err != nil {
		return nil, fmt.Errorf("no preset %q (presets are: %s)", name, strings.Join(Presets(), ", "))
	}
	return FromSource(name, string(src))
}

// FromSource makes a template of a scenario's text: its lines without faults
// (and the comments just before them), expectations, seed and run line. The
// faults are drawn; the rest is kept as written. Its processes are of the
// built-in kinds.
func FromSource(name, src string) (*Template, error) {
	return FromSourceIn(scenarios.Builtins(), name, src)
}

// FromSourceIn is FromSource for a scenario whose processes are of reg's kinds.
func FromSourceIn(reg *scenarios.Registry, name, src string) (*Template, error) {
	return fromSource(reg, name, src, false)
}

// fromSource reads a template; keepFaults keeps the scenario's own faults
// (an exercise's partitions are part of its topology: the budget's faults
// are added to them, not drawn in their place).
func fromSource(reg *scenarios.Registry, name, src string, keepFaults bool) (*Template, error) {
	src = scenarios.Normalize(src) // its lines are split here too
	s, err := reg.Parse(name, src)
	if err != nil {
		return nil, err
	}
	t := &Template{Name: name, Procs: s.Processes(), Bound: s.Bound, Protocol: s.Protocol, Horizon: s.Until, reg: reg}
	if t.Horizon == 0 {
		t.Horizon = 10 * time.Second
	}
	if t.Horizon < 100*time.Millisecond {
		t.Horizon = 100 * time.Millisecond
	}
	var kept, comments []string
	lines := strings.Split(src, "\n")
	for len(lines) > 0 && (strings.HasPrefix(strings.TrimSpace(lines[0]), "#") || strings.TrimSpace(lines[0]) == "") {
		t.Header += lines[0] + "\n"
		lines = lines[1:]
	}
	for _, ln := range lines {
		f := strings.Fields(ln)
		switch {
		case len(f) == 0 || strings.HasPrefix(f[0], "#"):
			comments = append(comments, ln)
			continue
		case f[0] == "expect" || f[0] == "run" || f[0] == "seed" || f[0] == "limit": // explore sets the run's end
			comments = nil
			continue
		case !keepFaults && (f[0] == "at" && len(f) > 2 && t.isFaultVerb(f[2]) ||
			f[0] == "when" && t.isFaultTrigger(f)):
			comments = nil // the fault and what narrated it go
			continue
		}
		kept = append(kept, comments...)
		kept = append(kept, ln)
		comments = nil
	}
	t.Body = strings.TrimRight(strings.Join(kept, "\n"), "\n") + "\n"
	if !slices.ContainsFunc(kept, func(ln string) bool {
		f := strings.Fields(ln)
		return len(f) > 0 && (f[0] == "at" || f[0] == "when" || f[0] == "every")
	}) {
		return nil, fmt.Errorf("%s has no workload left to put faults on (no at, when or every lines besides faults): add the clients' commands", name)
	}
	return t, nil
}

// isFaultVerb reports whether an action is a fault: one any process suffers
// (sim/fault's verbs), or one a kind declares.
func (t *Template) isFaultVerb(verb string) bool {
	return slices.Contains(fault.Verbs, verb) || t.reg.IsFaultVerb(verb)
}

func (t *Template) isFaultTrigger(f []string) bool {
	i := slices.Index(f, "then")
	return i >= 0 && i+1 < len(f) && t.isFaultVerb(f[i+1])
}

// Targets lists what a fault kind can hit in the template: processes, and for
// link faults the pairs that talk.
func (t *Template) Targets(k fault.Kind) fault.Targets {
	var nodes, clients, resources, failover []string
	for _, p := range t.Procs {
		switch p.Decl {
		case scenarios.DeclNode:
			nodes = append(nodes, p.Name)
		case scenarios.DeclClient:
			clients = append(clients, p.Name)
		case scenarios.DeclResource:
			resources = append(resources, p.Name)
		}
		if slices.Contains(p.Faults, fault.VerbFailover) {
			failover = append(failover, p.Name)
		}
	}
	// Do the nodes talk to each other (a replicated service, peers)?
	talking := slices.ContainsFunc(t.Procs, func(p scenarios.Process) bool {
		return p.Decl == scenarios.DeclNode && slices.ContainsFunc(p.Talks, func(o string) bool { return slices.Contains(nodes, o) })
	})
	switch k {
	case fault.Crash, fault.Pause, fault.ClockJump, fault.Drift, fault.Partition:
		return fault.Targets{Procs: append(slices.Clone(nodes), clients...)}
	case fault.RestartEmpty:
		return fault.Targets{Procs: nodes}
	case fault.Failover:
		return fault.Targets{Procs: failover}
	case fault.Loss, fault.Duplicate, fault.Delay:
		// The pairs that talk: clients with nodes and with the resources they
		// write to, and nodes with each other where they replicate or confer.
		var pairs [][2]string
		for _, c := range clients {
			for _, n := range append(slices.Clone(nodes), resources...) {
				pairs = append(pairs, [2]string{c, n})
			}
		}
		if talking {
			for i, a := range nodes {
				for _, b := range nodes[i+1:] {
					pairs = append(pairs, [2]string{a, b})
				}
			}
		}
		return fault.Targets{Pairs: pairs}
	}
	return fault.Targets{}
}

// Cast is the template's processes as faults name them: a partition cuts a
// process off from every other process but the protected resources (storage
// both sides reach).
func (t *Template) Cast() fault.Cast {
	var c fault.Cast
	for _, p := range t.Procs {
		c.Names = append(c.Names, p.Name)
		if p.Decl != scenarios.DeclResource {
			c.Group = append(c.Group, p.Name)
		}
	}
	return c
}
