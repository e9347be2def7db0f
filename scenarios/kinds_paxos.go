package scenarios

import (
	"strings"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/protocols/paxos"
	"github.com/locksim/locksim/sim"
)

// Paxos: acceptors (nodes, role "acceptor", a majority of which chooses) and
// proposers (clients: told to propose).
func paxosKinds() []Kind {
	return []Kind{
		{Name: "paxos-acceptor", Decl: DeclNode, Role: sim.RoleAcceptor, Protocol: "paxos", Build: buildPaxosAcceptor},
		{Name: "paxos-proposer", Decl: DeclClient, Role: "proposer", Protocol: "paxos", Build: buildPaxosProposer,
			Verbs: []Verb{proposeVerb}},
	}
}

// proposeVerb is `PROPOSER propose [VALUE]`: with no value, the one in value=.
var proposeVerb = Verb{Name: paxos.CmdPropose, Usage: "[VALUE]", Who: "a proposer",
	Only: "only 2pc and 3pc coordinators begin a transaction; only paxos proposers propose",
	Parse: func(a *Args) sim.Message {
		m := sim.Message{Op: paxos.CmdPropose}
		if w := a.Words(0, 1); len(w) == 1 && w[0] != "" {
			m.Key = a.Word(0, "value")
		}
		return m
	}}

func buildPaxosAcceptor(a *Args) func(sim.Env) sim.Process {
	cfg := paxos.DefaultAcceptorConfig()
	def := "always"
	if !cfg.Persist {
		def = "none"
	}
	// after-reply: the mistake, an acceptor that answers before it writes
	persist := a.OneOf("persistence", def, "always", "none", "after-reply")
	cfg.Persist, cfg.WriteAfterReply = persist != "none", persist == "after-reply"
	cfg.WriteDelay = a.Positive("write-delay", cfg.WriteDelay, "")
	if a.Given("write-delay") && persist != "after-reply" && !a.Failed() {
		a.Fail("write-delay", "write-delay= is for persistence=after-reply", "remove write-delay=, or write persistence=after-reply")
	}
	cfg.Nack = a.OnOff("nack", cfg.Nack)
	return paxos.NewAcceptor(cfg)
}

func buildPaxosProposer(a *Args) func(sim.Env) sim.Process {
	cfg := paxos.DefaultProposerConfig()
	cfg.Acceptors = a.Refs("acceptors", "paxos-acceptor")
	// Paxos counts a majority of the one set of acceptors: every proposer uses all.
	if all := a.Declared("paxos-acceptor"); a.Given("acceptors") && len(strings.Split(a.kv["acceptors"].text, ",")) != len(all) {
		a.BadRef("acceptors", "acceptors="+a.Text("acceptors")+" is not every acceptor",
			"Paxos needs one set of acceptors, the same for every proposer: acceptors="+short(strings.Join(all, ",")))
	}
	cfg.Timeout = a.Positive("timeout", cfg.Timeout, "")
	// backoff=B waits uniformly in [0, 2B) (retry=fixed: exactly B), for ever.
	backoff := a.Positive("backoff", paxos.DefaultBackoff, "")
	cfg.Retry = paxos.RandomBackoff(backoff)
	if a.OneOf("retry", "random", "random", "fixed") == "fixed" {
		cfg.Retry = lockkit.Retry{Backoff: lockkit.Fixed, Delay: backoff}
	}
	if _, ok := a.Required("value", "the value it proposes"); ok {
		cfg.Value = a.Name("value", "", "value")
	}
	return paxos.NewProposer(cfg)
}
