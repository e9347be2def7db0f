package scenarios

import (
	"slices"
	"strings"
	"testing"

	"github.com/locksim/locksim/sim/check"
)

// Issue 31, item 14: a scenario that declares a protected resource is judged
// by it even when no operation reached it. An engineer's fenced lease lock
// under a link that lost every write to the store (the second telling of
// testdata/regressions/etcd-fenced-no-write-reached-db.scn, on another lock,
// with other names and timings): the beliefs overlap, as they do with any
// lease lock whose holder stops past its lease (Kleppmann 2016), and the data
// lost nothing, because nothing reached it. Without the resource the same
// overlap is the run's verdict.
func TestAResourceNobodyWroteToStillDecides(t *testing.T) {
	story := func(resource string) string {
		return `protocol redis
node lockd redis
client alice redis-lock server=lockd ttl=1500ms fencing=incr validity-timer=off
client bob redis-lock server=lockd ttl=1500ms fencing=incr retry=250ms
` + resource + `
at 50ms alice acquire L
at 300ms pause alice for=3s
at 400ms bob acquire L
at 3200ms bob write ledger
at 3500ms alice write ledger
at 5s bob release L
run until=6s
`
	}
	lossy := "resource ledger fencing=on\nlink alice ledger loss=1\nlink bob ledger loss=1"
	s, err := Parse("lossy.scn", story(lossy))
	if err != nil {
		t.Fatal(err)
	}
	r := Run(s, RunOptions{})
	mutex, _ := r.Report.Result("mutex-belief")
	if len(mutex.Violations) == 0 {
		t.Fatalf("the beliefs do not overlap: the story does not tell what it should")
	}
	if r.Report.Verdict != check.SAFE || !r.Report.Resource || !slices.Equal(r.Report.Unreached, []string{"ledger"}) {
		t.Errorf("verdict %s, resource %v, unreached %v; want SAFE, judged by ledger, which no operation reached",
			r.Report.Verdict, r.Report.Resource, r.Report.Unreached)
	}
	for _, name := range check.ResourceNames() {
		if res, _ := r.Report.Result(name); res.Applicable {
			t.Errorf("%s is %s with nothing to judge", name, res.Status())
		}
	}

	// The same overlap with no resource declared: the lock's promise is all
	// there is to judge, and it is broken.
	bare := strings.NewReplacer("at 3200ms bob write ledger\n", "", "at 3500ms alice write ledger\n", "").Replace(story(""))
	s, err = Parse("bare.scn", bare)
	if err != nil {
		t.Fatal(err)
	}
	if r := Run(s, RunOptions{}); r.Report.Verdict != check.UNSAFE || r.Report.Resource || len(r.Report.Unreached) != 0 {
		t.Errorf("with no resource: verdict %s, resource %v, unreached %v; want UNSAFE by mutex-belief", r.Report.Verdict, r.Report.Resource, r.Report.Unreached)
	}

	// And a write that does reach an unfenced store after the lease ran out is
	// the lost update, whatever rule decides.
	s, err = Parse("reached.scn", story("resource ledger"))
	if err != nil {
		t.Fatal(err)
	}
	if r := Run(s, RunOptions{}); r.Report.Verdict != check.UNSAFE || len(r.Report.Unreached) != 0 {
		t.Errorf("a stale write reached an unfenced store: verdict %s, unreached %v; want UNSAFE by resource-safe", r.Report.Verdict, r.Report.Unreached)
	}
}
