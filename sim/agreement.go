package sim

import "strings"

// Agreement reports, written once for 2PC and 3PC (and any commit protocol):
// the checker's commit-agreement and nonblocking read them.

// Votes and decisions, as ObsVote and ObsDecide name them.
const (
	VoteYes = "yes"
	VoteNo  = "no"
	Commit  = "commit"
	Abort   = "abort"
)

// BeginTxn reports that the coordinator env begins transaction txn among
// participants (named in Text, so the checker knows whose votes it needs).
func BeginTxn(out *Outputs, env Env, txn string, participants []ProcID) {
	names := make([]string, len(participants))
	for i, p := range participants {
		names[i] = env.Names[p]
	}
	out.Observe(Observation{Kind: ObsBegin, Client: NoProc, By: NoProc, Lock: txn,
		Value: int64(len(participants)), Text: strings.Join(names, ",")})
}

// Decide reports a process's decision of txn (Commit or Abort) and how it
// came to it.
func Decide(out *Outputs, txn, decision, how string) {
	out.Observe(Observation{Kind: ObsDecide, Client: NoProc, By: NoProc, Lock: txn, Name: decision, Text: how})
}

// Vote reports a participant's vote on txn (VoteYes or VoteNo).
func Vote(out *Outputs, txn, vote string) {
	out.Observe(Observation{Kind: ObsVote, Client: NoProc, By: NoProc, Lock: txn, Name: vote})
}
