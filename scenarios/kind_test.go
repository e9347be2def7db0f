package scenarios

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/dblock"
	"github.com/locksim/locksim/protocols/etcd"
	"github.com/locksim/locksim/protocols/redis"
	"github.com/locksim/locksim/protocols/redlock"
	"github.com/locksim/locksim/protocols/twopc"
	"github.com/locksim/locksim/protocols/zookeeper"
)

// The parser knows kinds only through the registry: parse.go names none of
// them, nor a protocol (issue 18's acceptance). A word in a comment counts too.
func TestParserNamesNoKind(t *testing.T) {
	src, err := os.ReadFile("parse.go")
	if err != nil {
		t.Fatal(err)
	}
	reg := Builtins()
	words := reg.Protocols()
	for _, k := range reg.Kinds() {
		if k.Decl != DeclResource {
			words = append(words, k.Name)
		}
	}
	for _, w := range words {
		re := regexp.MustCompile(`(^|[^A-Za-z0-9_-])` + regexp.QuoteMeta(w) + `($|[^A-Za-z0-9_-])`)
		for i, ln := range strings.Split(string(src), "\n") {
			if re.MatchString(ln) {
				t.Errorf("parse.go:%d names %q: %s", i+1, w, strings.TrimSpace(ln))
			}
		}
	}
}

// A default is written once, in the protocol's DefaultConfig: the registry's
// arguments show what the kinds read from it.
func TestDefaultsComeFromTheProtocols(t *testing.T) {
	reg := Builtins()
	def := func(decl, kind, arg string) string {
		for _, a := range reg.Args(decl, kind) {
			if a.Name == arg {
				return a.Default
			}
		}
		t.Fatalf("%s %s takes no %s=", decl, kind, arg)
		return ""
	}
	for _, tc := range []struct {
		decl, kind, arg string
		want            time.Duration
	}{
		{DeclClient, "redis-lock", "ttl", redis.DefaultClientConfig().TTL},
		{DeclClient, "redis-lock", "wait-timeout", redis.DefaultClientConfig().WaitTimeout},
		{DeclClient, "redlock", "ttl", redlock.DefaultConfig().TTL},
		{DeclClient, "redlock", "retry", redlock.DefaultConfig().Retry.Max},
		{DeclNode, "zookeeper", "tick", zookeeper.DefaultServerConfig().Tick},
		{DeclClient, "zk-lock", "session-timeout", zookeeper.DefaultClientConfig().SessionTimeout},
		{DeclNode, "etcd", "election-timeout", etcd.DefaultMemberConfig().ElectionTimeout},
		{DeclClient, "etcd-lock", "ttl", etcd.DefaultClientConfig().TTL},
		{DeclNode, "db", "lock-wait-timeout", dblock.DefaultNodeConfig().LockWaitTimeout},
		{DeclClient, "db-lock", "retry-delay", dblock.DefaultClientConfig().Retry.Delay},
		{DeclClient, "2pc-coordinator", "log-delay", twopc.DefaultCoordinatorConfig().LogDelay},
	} {
		if got := def(tc.decl, tc.kind, tc.arg); got != durText(tc.want) {
			t.Errorf("%s %s %s= defaults to %s, its protocol's DefaultConfig says %s", tc.decl, tc.kind, tc.arg, got, durText(tc.want))
		}
	}
	if got := def(DeclClient, "db-lock", "mode"); got != dblock.DefaultClientConfig().Mode.String() {
		t.Errorf("db-lock mode= defaults to %s", got)
	}
	if got := def(DeclNode, "redis", "persistence"); got != redis.DefaultNodeConfig().Persistence.String() {
		t.Errorf("redis persistence= defaults to %s", got)
	}
}

// Every built-in kind's arguments have a form, and those that name processes
// name a registered kind: a mistyped kind in a Build's Ref would otherwise
// make every scenario using it fail to parse.
func TestKindArgumentsAreDescribed(t *testing.T) {
	reg := Builtins()
	for _, k := range reg.Kinds() {
		for _, a := range reg.Args(k.Decl, k.Name) {
			if a.Form == "" {
				t.Errorf("%s %s: %s= has no form", k.Decl, k.Name, a.Name)
			}
			if _, ok := reg.Lookup(reg.declOf(a.Refers), a.Refers); a.Refers != "" && !ok {
				t.Errorf("%s %s: %s= names %s, not a kind", k.Decl, k.Name, a.Name, a.Refers)
			}
		}
	}
}

// A kind says whether its processes send background traffic (Kind.Background),
// and the protocol marks it as it sends it: over the whole catalogue, the kinds
// whose processes sent a background message or fired a background timer are
// exactly those that say so.
func TestBackgroundTrafficIsDeclared(t *testing.T) {
	seen := map[string]bool{}
	ran := map[string]bool{}
	for _, res := range allCatalogueRuns(t) {
		s := res.Scenario
		for _, d := range s.procs {
			ran[d.kind.Name] = true
		}
		for i := range res.Trace.Len() {
			e := res.Trace.Event(i)
			if e.Proc >= 0 && int(e.Proc) < len(s.procs) && res.Trace.Background(e) {
				seen[s.procs[e.Proc].kind.Name] = true
			}
		}
	}
	for _, k := range Builtins().Kinds() {
		switch {
		case !ran[k.Name]:
			t.Errorf("no catalogue scenario declares a %s", k.Name)
		case seen[k.Name] && k.Background == "":
			t.Errorf("%s sends background traffic, and its Kind.Background does not say so", k.Name)
		case !seen[k.Name] && k.Background != "":
			t.Errorf("%s says it sends background traffic (%s), and no catalogue run shows any", k.Name, k.Background)
		}
	}
}
