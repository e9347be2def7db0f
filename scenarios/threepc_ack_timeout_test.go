package scenarios

import (
	"strings"
	"testing"
)

// Issue 31, item 9c told in the scenario language with message loss instead of
// a partition: 3PC as Wikipedia ("Three-phase commit protocol") states it, a
// coordinator that aborts when a PreCommit acknowledgement times out, beside
// Skeen's and Bernstein et al.'s (section 7.5), which commits. Here the
// participants are a, b and c, c is 15 ms from the coordinator tm, and from
// 0.09 s on every message sent to or by c is lost (loss=1 on each of its links):
// PreCommit, sent at 0.080 s, reaches c at 0.095 s, and c's ACK is lost. The
// verdicts are the checker's.
func TestTextbookAckTimeoutToldWithMessageLoss(t *testing.T) {
	src := `protocol 3pc
seed 5
bound 10s
network delay=2ms
client tm 3pc-coordinator participants=a,b,c timeout=500ms ack-timeout=%MODE%
node a 3pc-participant coordinator=tm peers=b,c timeout=1500ms
node b 3pc-participant coordinator=tm peers=a,c timeout=1500ms
node c 3pc-participant coordinator=tm peers=a,b timeout=1500ms
link tm c delay=15ms
at 50ms tm begin X
at 90ms link c tm loss=1
at 90ms link c a loss=1
at 90ms link c b loss=1
run until=10s
`
	for mode, want := range map[string]string{"abort": "UNSAFE", "commit": "SAFE"} {
		s, err := Parse("telling.scn", strings.ReplaceAll(src, "%MODE%", mode))
		if err != nil {
			t.Fatal(err)
		}
		r := Run(s, RunOptions{})
		agree, _ := r.Report.Result("commit-agreement")
		if string(r.Report.Verdict) != want || agree.Holds() != (want == "SAFE") {
			t.Errorf("ack-timeout=%s: verdict %s, commit-agreement %s; want %s", mode, r.Report.Verdict, agree.Status(), want)
		}
	}
}
