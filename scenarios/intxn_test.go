package scenarios

import (
	"strings"
	"testing"

	"github.com/locksim/locksim/sim/check"
)

// Issue 31, item 10b: a resource in the lock's own transaction
// (`resource data in=db`). Bad declarations and misuse are errors with their
// line, column and a hint.
func TestResourceInTransactionErrors(t *testing.T) {
	const head = `protocol db
node db db rows=L
node other db
client c1 db-lock server=db mode=for-update
client c2 db-lock server=db mode=lease ttl=2s
client c3 db-lock server=other mode=for-update
node r1 redis
client c4 redis-lock server=r1
`
	for _, tc := range []parseCase{
		{head + "resource data in=db\nat 1s c1 write data\n", "", ""},
		{head + "resource data in=r1\nat 1s c1 write data\n", "t.scn:9:15: in=r1: r1 is not a db process", "node NAME db"},
		{head + "resource data in=db fencing=on\nat 1s c1 write data\n", "t.scn:9:21: fencing= does not apply to a resource in a transaction", "resource data fencing=on"},
		{head + "resource data in=db\nresource more in=db\nat 1s c1 write data\n", "t.scn:10:1: database db already holds resource data", ""},
		{head + "resource data in=db\nnode data db\n", "t.scn:10:6: process data is declared twice", ""},
		{head + "resource data in=db\nat 1s c2 write data\n", "t.scn:10:7: data lives in db's transaction, and c2 holds no transaction: it does not lock with FOR UPDATE", "mode=for-update"},
		{head + "resource data in=db\nat 1s c3 write data\n", "t.scn:10:7: data lives in db's transaction, and c3's database is another", "server=db"},
		{head + "resource data in=db\nat 1s c4 write data\n", "t.scn:10:7: data lives in db's transaction, and c4 is a redis-lock client", "db-lock"},
		{head + "resource data in=db\nat 1s crash data\n", "t.scn:10:13: unknown process \"data\"", ""},
	} {
		tc.check(t)
	}
}

// The second telling of db-data-in-lock-transaction, in other words and
// timings: a worker stopped by a long GC pause (4 s, from 1.5 s) past the
// database's connection check (conn-timeout=2s), a successor that writes
// twice, and the stopped worker's writes before and after its pause. With
// the ledger in the lock's transaction nothing the stopped worker wrote takes
// effect (PostgreSQL's idle_in_transaction_session_timeout rolls its
// transaction back; its later statement fails); in a store of its own, its
// late write lands after the successor's (Kleppmann 2016).
func TestDataInTheLocksTransactionRefusesAStoppedHolder(t *testing.T) {
	story := func(decl string) *Result {
		t.Helper()
		s, err := Parse("ledger.scn", `protocol db
node pg db rows=job conn-timeout=2s
client worker db-lock server=pg mode=for-update hold=6s
client successor db-lock server=pg mode=for-update hold=2s
`+decl+`
at 200ms worker acquire job
at 400ms worker write ledger
at 600ms worker write ledger
at 800ms successor acquire job
at 1500ms pause worker for=4s
at 3s worker write ledger
when successor acquired job after=50ms then successor write ledger
when successor acquired job after=500ms then successor write ledger
run until=9s
`)
		if err != nil {
			t.Fatal(err)
		}
		return Run(s, RunOptions{})
	}
	accepted := func(r *Result, client string) (yes, no int) {
		for _, o := range r.Trace.Observations() {
			if o.Kind.String() == "resource" && r.Trace.Names[o.Client] == client {
				if o.Accepted {
					yes++
				} else {
					no++
				}
			}
		}
		return yes, no
	}
	in := story("resource ledger in=pg")
	if in.Report.Verdict != check.SAFE {
		t.Errorf("in the transaction: verdict %s, want SAFE", in.Report.Verdict)
	}
	if res, _ := in.Report.Result("resource-safe"); !res.Holds() {
		t.Errorf("in the transaction: resource-safe %s, want holds", res.Status())
	}
	if yes, no := accepted(in, "worker"); yes != 0 || no != 3 {
		t.Errorf("in the transaction: the stopped worker had %d writes take effect and %d refused; want 0 and 3 (two rolled back, one on an ended session)", yes, no)
	}
	if yes, no := accepted(in, "successor"); yes != 2 || no != 0 {
		t.Errorf("in the transaction: the successor had %d writes take effect and %d refused; want 2 and 0", yes, no)
	}
	if g := in.Scenario.ResourceGuard(); g != "in pg's transaction" {
		t.Errorf("the badge's word is %q", g)
	}
	apart := story("resource ledger")
	if res, _ := apart.Report.Result("resource-safe"); apart.Report.Verdict != check.UNSAFE || len(res.Violations) == 0 ||
		!strings.Contains(res.Violations[0].Detail, "worker's write") {
		t.Errorf("in a store of its own: verdict %s, resource-safe %s; want UNSAFE by the worker's late write", apart.Report.Verdict, res.Status())
	}
}
