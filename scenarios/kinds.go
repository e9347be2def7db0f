package scenarios

import (
	"time"

	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/sim"
)

// Builtins is the registry of locksim's own kinds, in the order a course takes
// them (which ranks the catalogue): each protocol's kinds are registered in its
// own kinds_<protocol>.go. A registry never changes once made, so every caller
// shares this one; add kinds with With.
func Builtins() *Registry { return builtins }

// builtins is the registry Parse, Load and Catalogue read. It is made once, at
// start, and never changed.
var builtins = newBuiltins()

func newBuiltins() *Registry {
	var ks []Kind
	for _, group := range [][]Kind{redisKinds(), redlockKinds(), zookeeperKinds(), etcdKinds(), dbKinds(), zsetKinds(),
		twopcKinds(), threepcKinds(), paxosKinds(), resourceKinds()} {
		ks = append(ks, group...)
	}
	r, err := NewRegistry(ks...)
	if err != nil {
		panic("scenarios: the built-in kinds: " + err.Error()) // a bug in this package, caught by every test
	}
	return r
}

// The verbs every lock client takes (protocols/lockkit's commands): acquire,
// release, read and write, in that order, then its own.

// lockVerbs is a lock client's verbs: acquire (the kind's own), release, read,
// write, then more.
func lockVerbs(acquire Verb, more ...Verb) []Verb {
	return append([]Verb{acquire, releaseVerb, readVerb, writeVerb}, more...)
}

// acquireVerb is `CLIENT acquire LOCK` for a client whose lease (if any) is set
// where it is declared; hint says where, for an acquire given ttl=.
func acquireVerb(hint string) Verb {
	return Verb{Name: lockkit.CmdAcquire, Usage: "LOCK", Hint: hint, Parse: func(a *Args) sim.Message {
		a.Words(1, 1)
		return sim.Message{Op: lockkit.CmdAcquire, Key: a.Word(0, "lock")}
	}}
}

var releaseVerb = Verb{Name: lockkit.CmdRelease, Usage: "[LOCK]", Parse: func(a *Args) sim.Message {
	m := sim.Message{Op: lockkit.CmdRelease}
	if len(a.Words(0, 1)) == 1 {
		m.Key = a.Word(0, "lock")
	}
	return m
}}

var readVerb = Verb{Name: lockkit.CmdRead, Usage: "RESOURCE", Parse: func(a *Args) sim.Message {
	a.Words(1, 1)
	return sim.Message{Op: lockkit.CmdRead, Key: a.Resource(0), Opts: sim.ResourceOpts("", "")}
}}

var writeVerb = Verb{Name: lockkit.CmdWrite, Usage: "RESOURCE [update=NAME]", Parse: func(a *Args) sim.Message {
	a.Words(1, 1)
	// The logical update this write is part of: writes to several resources
	// under one name are judged together (all-or-nothing).
	update, ok := a.Value("update", "NAME")
	if ok && !nameRE.MatchString(update) {
		a.Fail("update", "update="+a.Text("update")+" is not a name", "name the update like u1: start with a letter; use letters, digits, - and _")
	}
	return sim.Message{Op: lockkit.CmdWrite, Key: a.Resource(0), Opts: sim.ResourceOpts("", update)}
}}

// retryAttempts reads attempts=N, the most attempts per acquire (0: no limit).
func retryAttempts(a *Args, def int) int { return int(a.Int("attempts", int64(def), 0, 1_000_000)) }

// atLeastMs refuses a duration under a millisecond: key is kept in whole
// milliseconds (a Redis TTL, a lease's locked_until).
func atLeastMs(a *Args, key string, d time.Duration, hint string) {
	if a.Given(key) && d < time.Millisecond && !a.Failed() {
		a.Fail(key, key+"="+a.Text(key)+" is less than 1ms", hint)
	}
}
