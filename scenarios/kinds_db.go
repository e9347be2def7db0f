package scenarios

import (
	"fmt"
	"strings"
	"time"

	"github.com/locksim/locksim/protocols/dblock"
	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/sim"
)

// Databases: a SQL database with a locks table (one region, or regions of a
// replicated table: peers=), and its lock clients (insert, lease, for-update,
// cas, advisory).
func dbKinds() []Kind {
	return []Kind{
		{Name: "db", Decl: DeclNode, Role: "db", Protocol: "db", Build: buildDBNode,
			Background: "the answers to a client's keepalive pings"},
		{Name: "db-lock", Decl: DeclClient, Role: RoleClient, Protocol: "db", Build: buildDBClient,
			Background: "keepalive pings while a statement waits, a FOR UPDATE transaction is open, or an advisory session holds its locks",
			Verbs:      lockVerbs(acquireVerb("set the lease where the client is declared: ttl=10s (mode=lease)"), updateVerb)},
	}
}

var updateVerb = Verb{Name: dblock.CmdUpdate, Usage: "ROW", Who: "a db-lock client", Only: "only db-lock clients with mode=cas update a row",
	Parse: func(a *Args) sim.Message {
		a.Words(1, 1)
		return sim.Message{Op: dblock.CmdUpdate, Key: a.Word(0, "row")}
	}}

func buildDBNode(a *Args) func(sim.Env) sim.Process {
	cfg := dblock.DefaultNodeConfig()
	cfg.LockWaitTimeout = a.Dur("lock-wait-timeout", cfg.LockWaitTimeout)
	cfg.ConnTimeout = a.Positive("conn-timeout", cfg.ConnTimeout, "")
	cfg.MaxLocks = int(a.Int("max-locks", int64(cfg.MaxLocks), 0, 1_000_000))
	cfg.Peers, _ = a.OptPeers("peers", "db")
	if text, ok := a.Value("rows", "NAME,..."); ok {
		for _, r := range strings.Split(text, ",") {
			if !nameRE.MatchString(r) {
				a.Fail("rows", "rows="+a.Text("rows")+" is not a list of row names", "write rows=L or rows=L,M")
				break
			}
			cfg.Rows = append(cfg.Rows, r)
		}
	}
	return dblock.NewNode(cfg)
}

// modeArgs says which client arguments belong to which mode, for clear errors.
var modeArgs = map[string]dblock.Mode{"ttl": dblock.ModeLease, "clock": dblock.ModeLease, "validity-timer": dblock.ModeLease,
	"compare": dblock.ModeCAS, "release": dblock.ModeAdvisory}

// retryPolicies are db-lock's retry= choices, as lockkit's backoffs.
var retryPolicies = map[lockkit.Backoff]string{lockkit.Fixed: "fixed", lockkit.Uniform: "random", lockkit.Exponential: "exponential"}

func buildDBClient(a *Args) func(sim.Env) sim.Process {
	cfg := dblock.DefaultClientConfig()
	mode, _ := dblock.ParseMode(a.OneOf("mode", cfg.Mode.String(), dblock.ModeNames()...))
	cfg.Mode = mode
	policy := a.OneOf("retry", retryPolicies[cfg.Retry.Backoff], "fixed", "random", "exponential")
	delay := a.Positive("retry-delay", cfg.Retry.Delay, "a client that retries at once floods the database: write retry-delay=100ms")
	cfg.Server = a.Ref("server", "db")
	cfg.TTL = a.Dur("ttl", cfg.TTL)
	cfg.ClientClock = a.Switch("clock", cfg.ClientClock, "db", "client")
	cfg.NoValidity = !a.OnOff("validity-timer", !cfg.NoValidity)
	// release=commit: the mistake, a session-level advisory lock "released" by COMMIT
	cfg.CommitRelease = a.Switch("release", cfg.CommitRelease, "unlock", "commit")
	cfg.Compare = !a.Switch("compare", !cfg.Compare, "version", "none")
	cfg.Fencing = a.Switch("fencing", cfg.Fencing, "off", "sequence")
	cfg.Hold = a.Dur("hold", cfg.Hold)
	cfg.Timeout = a.Dur("timeout", cfg.Timeout)
	cfg.Keepalive = a.Positive("keepalive", cfg.Keepalive, "")
	cfg.Retry = dbRetry(policy, delay,
		a.Dur("retry-max", max(dblock.DefaultRetryMax, delay)), // the default cap never falls below the first delay
		retryAttempts(a, cfg.Retry.Attempts))
	for _, key := range []string{"ttl", "clock", "validity-timer", "compare", "release"} {
		if a.Given(key) && modeArgs[key] != mode && !a.Failed() {
			a.Fail(key, key+"= is for mode="+modeArgs[key].String()+" clients, and this one is mode="+mode.String(),
				"remove "+key+"=, or declare the client with mode="+modeArgs[key].String())
		}
	}
	if a.Given("fencing") && mode == dblock.ModeCAS && cfg.Fencing && !a.Failed() {
		a.Fail("fencing", "fencing=sequence needs a lock, and mode=cas takes none", "the version a cas client compares is its own fence: remove fencing=")
	}
	if a.Given("fencing") && mode == dblock.ModeAdvisory && cfg.Fencing && !a.Failed() {
		a.Fail("fencing", "fencing=sequence takes the token with the lock's statement, and an advisory lock has none here",
			"remove fencing=, or lock with mode=insert, lease or for-update")
	}
	atLeastMs(a, "ttl", cfg.TTL, "locked_until is kept in milliseconds: write ttl=10s")
	// retry-max caps exponential backoff only: with a fixed or random delay it
	// would be unused, and an unused argument is an error.
	if a.Given("retry-max") && policy != "exponential" && !a.Failed() {
		a.Fail("retry-max", "retry-max= caps retry=exponential backoff, and this client retries "+policy,
			"remove retry-max=, or write retry=exponential")
	}
	if a.Given("retry-max") && policy == "exponential" && cfg.Retry.Max < cfg.Retry.Delay && !a.Failed() {
		a.Fail("retry-max", fmt.Sprintf("retry-max %s is less than retry-delay %s", sim.FormatDuration(cfg.Retry.Max), sim.FormatDuration(cfg.Retry.Delay)),
			"exponential backoff doubles the delay up to retry-max: write retry-max="+sim.FormatDuration(cfg.Retry.Delay)+" or more")
	}
	return dblock.NewClient(cfg)
}

// dbRetry reads db-lock's retry=fixed|random|exponential: retry-delay every
// time; uniform in [retry-delay/2, 3 retry-delay/2); or retry-delay doubled
// after each failure up to retry-max, plus up to 10% jitter.
func dbRetry(policy string, delay, maxWait time.Duration, attempts int) lockkit.Retry {
	switch policy {
	case "random":
		return lockkit.Retry{Backoff: lockkit.Uniform, Delay: delay / 2, Max: delay/2 + delay - 1, Attempts: attempts}
	case "exponential":
		return lockkit.Retry{Backoff: lockkit.Exponential, Delay: delay, Max: maxWait, JitterPercent: 10, Attempts: attempts}
	}
	return lockkit.Retry{Backoff: lockkit.Fixed, Delay: delay, Attempts: attempts}
}
