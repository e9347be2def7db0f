package scenarios

import (
	"errors"
	"strings"
	"testing"
	"time"
)

const base = `# A test scenario.
protocol redis
node r1 redis
client c1 redis-lock server=r1
`

const etcdBase = `# An etcd test scenario.
node e1 etcd cluster=e1
client c1 etcd-lock members=e1
#
`

const agreeBase = `# An agreement test scenario.
client co 2pc-coordinator participants=p1
node p1 2pc-participant coordinator=co
node a1 paxos-acceptor
`

const dbBase = `# A database test scenario.
node db db
node r1 redis
client c1 redis-lock server=r1
`

// Strict parsing: every mistake is an error with file:line:column, what was
// expected, and a hint (docs/scenario-language.md, "Errors").
func TestParseErrorsNamePositionAndHint(t *testing.T) {
	for _, tc := range []parseCase{
		{base + "at 1s c1 aquire L\n", "t.scn:5:10: unknown client command \"aquire\"", "acquire"},
		{base + "nodee r2 redis\n", "t.scn:5:1: unknown command \"nodee\"", "did you mean node?"},
		{base + "at 1s c1 acquire L tll=5s\n", "t.scn:5:20: unknown argument tll for acquire", "did you mean ttl=?"},
		{base + "at 1x crash r1\n", "t.scn:5:4: \"1x\" is not a time", "10s"},
		{base + "at 1s crash r9\n", "t.scn:5:13: unknown process \"r9\"", "declared processes: r1, c1"},
		{base + "at 1s crash r1 now\n", "t.scn:5:16: unexpected \"now\"", "crash PROC"},
		{base + "node r2 redis persistence=sometimes\n", "t.scn:5:15: persistence=sometimes is not a choice", "none, everysec, always, no"},
		{base + "client c2 redis-lock\n", "t.scn:5:1: client needs server=", "declared redis process"},
		{base + "client c2 redis-lock server=c1\n", "t.scn:5:22: server=c1: c1 is not a redis process", "node NAME redis"},
		{base + "when c1 acquired L aftr=1s then crash r1\n", "t.scn:5:20: unknown argument aftr for when", "did you mean after=?"},
		{base + "client c2 redis-lock server=r1 ttl=-1s\n", "t.scn:5:32: ttl=-1s is not a duration", ""},
		{base + "node c1 redis\n", "t.scn:5:6: process c1 is declared twice", ""},
		{base + "expect violated mutex-beleif\n", "t.scn:5:17: unknown invariant \"mutex-beleif\"", "did you mean mutex-belief?"},
		{base + "expect verdict MAYBE\n", "t.scn:5:16: unknown verdict \"MAYBE\"", "SAFE, UNSAFE and STUCK"},
		{base + "seed 1\nseed 2\n", "t.scn:6:1: seed is given twice (first on line 5)", ""},
		{base + "when c1 acquired L pause c1\n", "t.scn:5:28: when needs then and an action", ""},
		{base + "when c1 wins L then crash r1\n", "t.scn:5:9: unknown event \"wins\"", "acquired"},
		{base + "at 1s r1 acquire L\n", "t.scn:5:7: r1 is not a client", ""},
		{base + "at 1s c1 write r1\n", "t.scn:5:16: r1 is not a resource", ""},
		{base + "at 1s clock-jump r1 soon\n", "t.scn:5:21: \"soon\" is not a clock jump", "+15s"},
		{base + "at 1s partition r1 c1\n", "t.scn:5:22: partition needs two sides", ""},
		{base + "network loss=2\n", "t.scn:5:9: loss=2 is not a probability", ""},
		{base + "run until=5s\nrun\n", "t.scn:6:1: run is given twice", ""},
		{base + "at 1s c1 acquire \"L\n", "t.scn:5:18: unterminated quoted string", ""},
		{"# nothing\nseed 1\n", "t.scn:1:1: the scenario declares no processes", ""},
		{base + "limit time=48h\n", "t.scn:5:7: time=48h is out of range", ""},
		{base + "protocol paxos\n", "t.scn:5:1: protocol is given twice", ""},
		{base + "when c1 granted L then crash r1\n", "t.scn:5:9: c1 is a client: it is never granted", "only a node"},
		{base + "run until=0\n", "t.scn:5:5: until=0 ends the run before it starts", ""},
		{base + "at 1s partition c1 | r1,c1\n", "t.scn:5:22: c1 is on both sides", ""},
		{base + "at 1s c1 acquire \"\"\n", "t.scn:5:18: the lock has no name", ""},
		{etcdBase + "node e4 etcd cluster=e1\n", "t.scn:5:14: cluster=e1 does not name e4 itself", "this one included"},
		// etcd refuses an election timeout under five heartbeats (etcd 3.4, embed.Config.Validate).
		{etcdBase + "node e4 etcd cluster=e1,e4 heartbeat=300ms\n", "t.scn:5:28: etcd refuses to start with --election-timeout[1000ms] should be at least as 5 times as --heartbeat-interval[300ms]", "10 heartbeats"},
		{etcdBase + "node e4 etcd cluster=e1,e4 election-timeout=60s\n", "t.scn:5:28: etcd refuses to start with --election-timeout[60000ms] is too long, and should be set less than 50000ms", "10 heartbeats"},
		{etcdBase + "client c2 etcd-lock members=e1 ttl=1500ms\n", "t.scn:5:32: ttl=1500ms is not a whole number of seconds", "whole seconds"},
		{etcdBase + "client c2 etcd-lock members=e1 timeout=0\n", "t.scn:5:32: timeout must be more than 0", ""},
		{dbBase + "client c2 db-lock server=db mode=insert ttl=5s\n", "t.scn:5:41: ttl= is for mode=lease clients, and this one is mode=insert", "mode=lease"},
		{dbBase + "client c2 db-lock server=db mode=lease compare=none\n", "t.scn:5:40: compare= is for mode=cas clients, and this one is mode=lease", "mode=cas"},
		{dbBase + "client c2 db-lock server=db mode=cas fencing=sequence\n", "t.scn:5:38: fencing=sequence needs a lock, and mode=cas takes none", "own fence"},
		{dbBase + "client c2 db-lock server=db mode=rows\n", "t.scn:5:29: mode=rows is not a choice", "insert, lease, for-update, cas"},
		{dbBase + "client c2 db-lock server=db retry=linear\n", "t.scn:5:29: retry=linear is not a choice", "fixed, random, exponential"},
		{dbBase + "client c2 db-lock server=db retry-delay=0\n", "t.scn:5:29: retry-delay must be more than 0", "floods"},
		{dbBase + "at 1s link r1 r1 loss=0.5\n", "t.scn:5:15: a link joins two processes", "two different"},
		{agreeBase + "at 1s co acquire L\n", "t.scn:5:10: co is a 2pc-coordinator: it takes no acquire", "co begin TXN"},
		{agreeBase + "node a2 paxos-acceptor\nclient pr2 paxos-proposer acceptors=a1 value=B\n", "t.scn:6:27: acceptors=a1 is not every acceptor", "acceptors=a1,a2"},
		{agreeBase + "node p2 2pc-participant coordinator=co peers=p1,p2\n", "t.scn:5:40: peers=p1,p2 names p2 itself", "other participants"},
		{agreeBase + "client pr paxos-proposer acceptors=a1 value=A\nat 1s pr begin T\n", "t.scn:6:10: pr is not a coordinator", "only 2pc and 3pc coordinators begin"},
		{agreeBase + "at 1s p1 begin T\n", "t.scn:5:7: p1 is not a client", "begin (coordinators)"},
		{agreeBase + "at 1s co begin\n", "t.scn:5:15: missing argument", "co begin TXN"},
		{agreeBase + "client pr2 paxos-proposer acceptors=a1\n", "t.scn:5:1: client needs value=", "the value it proposes"},
		{agreeBase + "node p2 2pc-participant coordinator=co termination=cooperative\n", "t.scn:5:40: termination=cooperative needs peers=", "peers=p2,p3"},
		{agreeBase + "client co2 2pc-coordinator participants=p1 timeout=0\n", "t.scn:5:44: timeout must be more than 0", "1.000s"},
		{agreeBase + "node a2 paxos-acceptor persistence=sometimes\n", "t.scn:5:24: persistence=sometimes is not a choice", "always, none"},
		{dbBase + "client c2 db-lock server=db retry=exponential retry-max=50ms\n", "t.scn:5:47: retry-max 0.050s is less than retry-delay 0.100s", "doubles"},
		{dbBase + "node db2 db rows=L,2x\n", "t.scn:5:13: rows=L,2x is not a list of row names", "rows=L,M"},
		{dbBase + "at 1s c1 update L\n", "t.scn:5:10: c1 is not a db-lock client", "mode=cas"},
		{etcdBase + "client c2 etcd-lock members=c1\n", "t.scn:5:21: members=c1: c1 is not an etcd process", "node NAME etcd"},
		{etcdBase + "at 1s c1 acquire L ttl=2s\n", "t.scn:5:20: acquire takes ttl= only for redis-lock and redlock clients, and c1 is an etcd-lock client", "declared: ttl=5s"},
		{"# k\nclient c1 redis-lock server=r1\nnode r1 persistence=always redis\nat 0 c1 acquire L\n", "", ""},
		// retry-max caps exponential backoff only: a fixed delay longer than its
		// default is fine, and retry-max with a fixed delay is unused.
		{dbBase + "client c2 db-lock server=db retry=fixed retry-delay=60s\n", "", ""},
		{dbBase + "client c2 db-lock server=db retry=exponential retry-delay=60s\n", "", ""},
		{dbBase + "client c2 db-lock server=db retry=fixed retry-max=2s\n", "t.scn:5:41: retry-max= caps retry=exponential backoff, and this client retries fixed", "retry=exponential"},
		{base + "resource db\nat 1s c1 write db update=u1\n", "", ""},
		{base + "resource db\nat 1s c1 write db update=1u\n", "t.scn:6:19: update=1u is not a name", "u1"},
		{base + "resource db\nat 1s c1 read db update=u1\n", "t.scn:6:18: unknown argument update for read", ""},
	} {
		tc.check(t)
	}
}

func lastLine(s string) string {
	ls := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return ls[len(ls)-1]
}

func TestParseReadsTheWholeLanguage(t *testing.T) {
	src := `# Summary line.
# More teaching.
#
# Source: somewhere.

protocol redis
seed 42
limit events=5000 time=90s queue=300
bound 20s
network delay=2ms jitter=1ms loss=0.01 dup=0.02 reorder=0.1
link c1 r1 delay=5ms
link c1 -> res delay=7ms dist=exp

node r1 redis persistence=always service=locks drift=100 offset=2s
client c1 redis-lock server=r1 acquire=setnx-expire release=del validity-timer=on ttl=3s retry=100ms jitter=50ms attempts=4 timeout=200ms
resource res fencing=on

# c1 takes it.
# On two lines.
at 0 c1 acquire L ttl=4s
when c1 acquired L after=1s then pause c1 for=2s
at 5s partition c1,res | r1
at 6s partition c1 -> r1
at 7s heal
at 8s clock-jump r1 -3s
at 9s clock-drift r1 -500
at 10s power-loss r1
at 11s restart r1 after=1s
at 12s c1 write res
at 13s c1 release L
run until=20s
expect verdict SAFE
expect holds mutex-belief
expect n/a fencing-monotonic
expect metric acquisitions 1
`
	s, err := Parse("dir/full.scn", src)
	if err != nil {
		t.Fatal(err)
	}
	if s.ID != "full" || s.Summary != "Summary line." || s.Protocol != "redis" || s.Seed != 42 {
		t.Errorf("header: id %q summary %q protocol %q seed %d", s.ID, s.Summary, s.Protocol, s.Seed)
	}
	if s.Teaching != "Summary line. More teaching.\n\nSource: somewhere." {
		t.Errorf("teaching %q", s.Teaching)
	}
	if s.Limits.MaxEvents != 5000 || s.Limits.MaxTime != 90*time.Second || s.Limits.MaxQueue != 300 || s.Bound != 20*time.Second {
		t.Errorf("limits %+v bound %v", s.Limits, s.Bound)
	}
	if s.net.Delay != 2*time.Millisecond || s.net.Loss != 0.01 || s.net.Dup != 0.02 || s.net.Reorder != 0.1 {
		t.Errorf("network %+v", s.net)
	}
	if len(s.links) != 3 {
		t.Errorf("links: %d, want 3 (one both ways, one one way)", len(s.links))
	}
	if len(s.steps) != 11 || s.steps[0].action.Narration != "c1 takes it. On two lines." {
		t.Errorf("%d steps; first narration %q", len(s.steps), s.steps[0].action.Narration)
	}
	if s.steps[1].when == nil || s.steps[1].after != time.Second || s.steps[1].action.Dur != 2*time.Second {
		t.Errorf("trigger step %+v", s.steps[1])
	}
	if s.Until != 20*time.Second || len(s.Expects) != 4 || s.ExpectedVerdict() != "SAFE" {
		t.Errorf("until %v expects %d verdict %q", s.Until, len(s.Expects), s.ExpectedVerdict())
	}
	// And it runs to its end without a panic.
	if r := Run(s, RunOptions{}); r.Trace.Len() == 0 {
		t.Fatal("no events")
	}
}

// parseCase is a script and the error it must give: file:line:col: message, and
// a word of the hint ("" want for a valid script that an earlier parser rejected).
type parseCase struct {
	src  string
	want string
	hint string
}

func (tc parseCase) check(t *testing.T) {
	t.Helper()
	_, err := Parse("t.scn", tc.src)
	if tc.want == "" {
		if err != nil {
			t.Errorf("%q: %v", lastLine(tc.src), err)
		}
		return
	}
	var pe *Error
	if !errors.As(err, &pe) {
		t.Errorf("%q: got %v, want a positioned error", lastLine(tc.src), err)
		return
	}
	if !strings.HasPrefix(err.Error(), tc.want) {
		t.Errorf("%q:\n got: %v\nwant: %s", lastLine(tc.src), err, tc.want)
	}
	if !strings.Contains(pe.Hint, tc.hint) {
		t.Errorf("%q: hint %q does not mention %q", lastLine(tc.src), pe.Hint, tc.hint)
	}
}
