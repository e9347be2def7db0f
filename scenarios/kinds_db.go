package scenarios

import (
	"fmt"
	"strings"
	"time"

	"github.com/locksim/locksim/protocols/dblock"
	"github.com/locksim/locksim/protocols/lockkit"
	"github.com/locksim/locksim/sim"
)

func buildDBNode(a *args, ref refFunc) func(sim.Env) sim.Process {
	cfg := dblock.NodeConfig{LockWaitTimeout: a.dur("lock-wait-timeout", 50*time.Second), ConnTimeout: a.positive("conn-timeout", 3*time.Second, ""),
		MaxLocks: int(a.int("max-locks", 0, 0, 1_000_000))}
	if t, ok := a.take("rows"); ok {
		for _, r := range strings.Split(t.text, ",") {
			if !nameRE.MatchString(r) {
				a.fail(t.col, "rows="+short(t.text)+" is not a list of row names", "write rows=L or rows=L,M")
				break
			}
			cfg.Rows = append(cfg.Rows, r)
		}
	}
	if _, ok := a.kv["peers"]; ok {
		cfg.Peers = ref("peers", "db", true)
	} else {
		a.allowed = append(a.allowed, "peers")
	}
	return dblock.NewNode(cfg)
}

// modeArgs says which client arguments belong to which mode, for clear errors.
var modeArgs = map[string]dblock.Mode{"ttl": dblock.ModeLease, "clock": dblock.ModeLease, "validity-timer": dblock.ModeLease, "compare": dblock.ModeCAS,
	"release": dblock.ModeAdvisory}

func buildDBClient(a *args, ref refFunc) func(sim.Env) sim.Process {
	mode, _ := dblock.ParseMode(a.oneOf("mode", "insert", dblock.ModeNames()...))
	policy := a.oneOf("retry", "fixed", "fixed", "random", "exponential")
	delay := a.positive("retry-delay", 100*time.Millisecond, "a client that retries at once floods the database: write retry-delay=100ms")
	cfg := dblock.ClientConfig{
		Server:      ref("server", "db", false)[0],
		Mode:        mode,
		TTL:         a.dur("ttl", 10*time.Second),
		ClientClock: a.oneOf("clock", "db", "db", "client") == "client",
		NoValidity:  !a.onOff("validity-timer", true),
		// release=commit: the mistake, a session-level advisory lock "released" by COMMIT
		CommitRelease: a.oneOf("release", "unlock", "unlock", "commit") == "commit",
		Compare:       a.oneOf("compare", "version", "version", "none") == "version",
		Fencing:       a.oneOf("fencing", "off", "off", "sequence") == "sequence",
		Hold:          a.dur("hold", 0),
		Timeout:       a.dur("timeout", 0),
		Keepalive:     a.positive("keepalive", time.Second, ""),
		Retry: dbRetry(policy, delay,
			a.dur("retry-max", max(10*time.Second, delay)), // the default cap never falls below the first delay
			int(a.int("attempts", 0, 0, 1_000_000))),
	}
	for _, key := range []string{"ttl", "clock", "validity-timer", "compare", "release"} {
		if t, ok := a.kv[key]; ok && modeArgs[key] != mode && a.first == nil {
			a.fail(t.col, key+"= is for mode="+modeArgs[key].String()+" clients, and this one is mode="+mode.String(),
				"remove "+key+"=, or declare the client with mode="+modeArgs[key].String())
		}
	}
	if t, ok := a.kv["fencing"]; ok && mode == dblock.ModeCAS && cfg.Fencing && a.first == nil {
		a.fail(t.col, "fencing=sequence needs a lock, and mode=cas takes none", "the version a cas client compares is its own fence: remove fencing=")
	}
	if t, ok := a.kv["fencing"]; ok && mode == dblock.ModeAdvisory && cfg.Fencing && a.first == nil {
		a.fail(t.col, "fencing=sequence takes the token with the lock's statement, and an advisory lock has none here",
			"remove fencing=, or lock with mode=insert, lease or for-update")
	}
	if t, ok := a.kv["ttl"]; ok && cfg.TTL < time.Millisecond && a.first == nil {
		a.fail(t.col, "ttl="+short(t.text)+" is less than 1ms", "locked_until is kept in milliseconds: write ttl=10s")
	}
	// retry-max caps exponential backoff only: with a fixed or random delay it
	// would be unused, and an unused argument is an error.
	if t, ok := a.kv["retry-max"]; ok && policy != "exponential" && a.first == nil {
		a.fail(t.col, "retry-max= caps retry=exponential backoff, and this client retries "+policy,
			"remove retry-max=, or write retry=exponential")
	}
	if t, ok := a.kv["retry-max"]; ok && policy == "exponential" && cfg.Retry.Max < cfg.Retry.Delay && a.first == nil {
		a.fail(t.col, fmt.Sprintf("retry-max %s is less than retry-delay %s", sim.FormatDuration(cfg.Retry.Max), sim.FormatDuration(cfg.Retry.Delay)),
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
