package scenarios_test

import (
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/scenarios"
	"github.com/locksim/locksim/sim"
	"github.com/locksim/locksim/sim/simtest"
)

// This file is the worked example of docs/architecture.md, "How to add a
// protocol": a protocol written as a new one would be (here in one file, there
// in protocols/tinylock and scenarios/kinds_tinylock.go), registered from
// outside the scenarios package with the public API only, run, and judged.
// The blocks between "doc:" markers appear word for word in the doc
// (TestArchitectureExampleIsThisCode), so the doc's code compiles.

// doc:begin protocol
// Package tinylock: one server that grants a lock to the first client to ask
// and keeps it until that client releases it (no lease: a paused holder keeps
// it), and its client.

// The messages between client and server.
const (
	opLock    = "LOCK"
	opUnlock  = "UNLOCK"
	opGranted = "GRANTED"
	opBusy    = "BUSY"
)

// ServerConfig configures the server; DefaultServerConfig is its defaults,
// which the scenario language reads (never written twice).
type ServerConfig struct{ Service string }

func DefaultServerConfig() ServerConfig { return ServerConfig{Service: "tiny"} }

// NewServer returns the constructor the world calls at start and after a crash.
func NewServer(cfg ServerConfig) func(sim.Env) sim.Process {
	return func(sim.Env) sim.Process { return &server{cfg: cfg, holder: sim.NoProc} }
}

type server struct {
	cfg    ServerConfig
	holder sim.ProcID
	lock   string
}

func (s *server) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	if in.Kind != sim.InMessage {
		return
	}
	switch m := in.Msg; {
	case m.Op == opLock && s.holder == sim.NoProc:
		s.holder, s.lock = in.From, m.Key
		out.Observe(sim.Observation{Kind: sim.ObsGrant, Service: s.cfg.Service, Client: in.From, By: sim.NoProc, Lock: m.Key})
		out.Send(in.From, sim.Message{Op: opGranted, Key: m.Key})
	case m.Op == opLock:
		out.Send(in.From, sim.Message{Op: opBusy, Key: m.Key})
	case m.Op == opUnlock && in.From == s.holder:
		out.Observe(sim.Observation{Kind: sim.ObsGrantEnd, Service: s.cfg.Service, Client: in.From, By: in.From,
			Lock: s.lock, Reason: sim.ReasonReleased})
		s.holder = sim.NoProc
	}
}

func (s *server) Describe() string { return "holder " + s.lock }

// ClientConfig configures the client.
type ClientConfig struct{ Server sim.ProcID }

func DefaultClientConfig() ClientConfig { return ClientConfig{Server: sim.NoProc} }

func NewClient(cfg ClientConfig) func(sim.Env) sim.Process {
	return func(env sim.Env) sim.Process { return &client{cfg: cfg, env: env} }
}

type client struct {
	cfg    ClientConfig
	env    sim.Env
	belief sim.Belief // what "believes it holds" means, written once in sim
}

// Step takes the scenario's commands (the lock-client kit's verbs) and the
// server's answers.
func (c *client) Step(now sim.LocalTime, in sim.Input, out *sim.Outputs) {
	switch m := in.Msg; {
	case in.Kind == sim.InCommand && m.Op == lockkit.CmdAcquire:
		out.Send(c.cfg.Server, sim.Message{Op: opLock, Key: m.Key})
	case in.Kind == sim.InCommand && m.Op == lockkit.CmdRelease:
		c.belief.End(out, c.env.ID, sim.ReasonReleased)
		out.Send(c.cfg.Server, sim.Message{Op: opUnlock})
	case in.Kind == sim.InMessage && m.Op == opGranted:
		c.belief.Start(out, c.env.ID, m.Key, m.Key, 0, 0, false)
	}
}

func (c *client) Describe() string { return "" }

// doc:end protocol

// doc:begin kinds
// Kinds: what the scenario language knows of tinylock. In locksim itself this
// is scenarios/kinds_tinylock.go; a program of its own registers them with
// scenarios.Builtins().With(TinyKinds()...).
func TinyKinds() []scenarios.Kind {
	return []scenarios.Kind{
		{Name: "tiny", Decl: scenarios.DeclNode, Role: "tiny", Protocol: "tiny",
			// node NAME tiny [service=NAME]
			Build: func(a *scenarios.Args) func(sim.Env) sim.Process {
				cfg := DefaultServerConfig()
				cfg.Service = a.Name("service", cfg.Service, "service")
				return NewServer(cfg)
			}},
		{Name: "tiny-lock", Decl: scenarios.DeclClient, Role: scenarios.RoleClient, Protocol: "tiny",
			// client NAME tiny-lock server=NODE
			Build: func(a *scenarios.Args) func(sim.Env) sim.Process {
				cfg := DefaultClientConfig()
				cfg.Server = a.Ref("server", "tiny")
				return NewClient(cfg)
			},
			Verbs: []scenarios.Verb{
				{Name: lockkit.CmdAcquire, Usage: "LOCK", Parse: func(a *scenarios.Args) sim.Message {
					a.Words(1, 1)
					return sim.Message{Op: lockkit.CmdAcquire, Key: a.Word(0, "lock")}
				}},
				{Name: lockkit.CmdRelease, Parse: func(a *scenarios.Args) sim.Message {
					a.Words(0, 0)
					return sim.Message{Op: lockkit.CmdRelease}
				}},
			}},
	}
}

// doc:end kinds

// doc:begin scenario
const tinyScenario = `# Two clients take turns on a tiny lock.
node t1 tiny
client c1 tiny-lock server=t1
client c2 tiny-lock server=t1
at 1s c1 acquire L
at 2s c2 acquire L
at 3s c1 release
at 4s c2 acquire L
run until=5s
expect verdict SAFE
expect holds mutex-belief
`

// doc:end scenario

// A kind registered from outside the package parses, runs and is judged like a
// built-in one; its arguments and defaults are listed from its Build.
func TestAKindRegisteredFromOutside(t *testing.T) {
	reg, err := scenarios.Builtins().With(TinyKinds()...)
	if err != nil {
		t.Fatal(err)
	}
	s, err := reg.Parse("tiny.scn", tinyScenario)
	if err != nil {
		t.Fatal(err)
	}
	if s.Protocol != "tiny" {
		t.Errorf("protocol %q, want tiny (from its kinds)", s.Protocol)
	}
	res := scenarios.Run(s, scenarios.RunOptions{})
	if !res.OK() {
		t.Errorf("expectations not met: %+v", res.Expectations)
	}
	beliefs := 0
	for _, ob := range res.Trace.Observations() {
		if ob.Kind == sim.ObsBeliefStart {
			beliefs++
		}
	}
	if beliefs != 2 { // c1 at 1s; c2 is refused at 2s and takes it at 4s
		t.Errorf("%d beliefs, want 2", beliefs)
	}
	args := reg.Args(scenarios.DeclNode, "tiny")
	if len(args) != 1 || args[0].Name != "service" || args[0].Default != DefaultServerConfig().Service {
		t.Errorf("tiny's arguments %+v, want service= with default %q", args, DefaultServerConfig().Service)
	}
	// The built-in parser knows nothing of it, and the registry's hints do.
	if _, err := scenarios.Parse("tiny.scn", tinyScenario); err == nil || !strings.Contains(err.Error(), `unknown node kind "tiny"`) {
		t.Errorf("the built-in registry parsed a tiny kind: %v", err)
	}
	_, err = reg.Parse("t.scn", strings.Replace(tinyScenario, "c2 acquire L", "c2 acquire L ttl=5s", 1))
	if err == nil || !strings.Contains(err.Error(), "acquire takes ttl= only for redis-lock and redlock clients, and c2 is a tiny-lock client") {
		t.Errorf("ttl= on a tiny-lock acquire: %v", err)
	}
	_, err = reg.Parse("t.scn", strings.Replace(tinyScenario, "node t1 tiny", "node t1 tinny", 1))
	if err == nil || !strings.Contains(err.Error(), "did you mean tiny?") {
		t.Errorf("a misspelt kind: %v", err)
	}
}

func TestRegistryRefusesBadKinds(t *testing.T) {
	build := func(*scenarios.Args) func(sim.Env) sim.Process { return nil }
	for _, tc := range []struct {
		k    scenarios.Kind
		want string
	}{
		{scenarios.Kind{Name: "x", Decl: "server", Build: build}, "not node, client or resource"},
		{scenarios.Kind{Name: "x y", Decl: scenarios.DeclNode, Build: build}, "not a name"},
		{scenarios.Kind{Name: "x", Decl: scenarios.DeclNode}, "no Build"},
		{scenarios.Kind{Name: "redis", Decl: scenarios.DeclNode, Build: build}, "registered twice"},
		{scenarios.Kind{Name: "x", Decl: scenarios.DeclNode, Build: build,
			Verbs: []scenarios.Verb{{Name: "poke", Parse: func(*scenarios.Args) sim.Message { return sim.Message{} }}}}, "only clients take commands"},
		{scenarios.Kind{Name: "x", Decl: scenarios.DeclClient, Build: build, Verbs: []scenarios.Verb{{Name: "poke"}}}, "needs a name and a Parse"},
	} {
		if _, err := scenarios.Builtins().With(tc.k); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want an error saying %q", tc.k, err, tc.want)
		}
	}
}

// The code blocks of docs/architecture.md's "How to add a protocol" are this
// file's doc: blocks, word for word and in order: the doc's code compiles and
// runs (TestAKindRegisteredFromOutside).
func TestArchitectureExampleIsThisCode(t *testing.T) {
	doc, err := os.ReadFile("../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	src, err := os.ReadFile("example_kind_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, sec, ok := strings.Cut(string(doc), "\n## How to add a protocol\n")
	if !ok {
		t.Fatal(`docs/architecture.md has no "## How to add a protocol"`)
	}
	sec, _, _ = strings.Cut(sec, "\n## ")
	var inDoc []string
	for _, part := range strings.Split(sec, "```go\n")[1:] {
		code, _, ok := strings.Cut(part, "\n```")
		if !ok {
			t.Fatal("an unclosed code block")
		}
		inDoc = append(inDoc, code)
	}
	var inCode []string
	for _, m := range regexp.MustCompile(`(?ms)^// doc:begin (\w+)\n(.*?)\n// doc:end (\w+)$`).FindAllStringSubmatch(string(src), -1) {
		if m[1] != m[3] {
			t.Fatalf("doc block %s ends as %s", m[1], m[3])
		}
		inCode = append(inCode, strings.Trim(m[2], "\n"))
	}
	if len(inDoc) != len(inCode) || len(inCode) < 3 {
		t.Fatalf("the doc has %d Go blocks, this file %d doc blocks", len(inDoc), len(inCode))
	}
	for i := range inDoc {
		if inDoc[i] != inCode[i] {
			t.Errorf("code block %d of the doc differs from this file's; first difference:\n%s", i+1, simtest.FirstDiff(inCode[i], inDoc[i]))
		}
	}
}
