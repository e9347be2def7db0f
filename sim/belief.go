package sim

import (
	"fmt"
	"time"
)

// Belief is a lock client's belief that it holds a lock, and the reporting of its
// changes in the shared vocabulary. Every lock client (Redis, Redlock, ZooKeeper,
// etcd, ...) keeps one, so that what "believes" means is written once.
type Belief struct {
	holds bool
	lock  string
	grant string
}

// Holds reports whether the client believes it holds a lock.
func (b *Belief) Holds() bool { return b.holds }

// Start reports that client concludes it holds lock as grant. A non-zero window
// is the validity it computed for itself; a token, if it has one, is its fencing
// token.
func (b *Belief) Start(out *Outputs, client ProcID, lock, grant string, window time.Duration, token int64, hasToken bool) {
	b.holds, b.lock, b.grant = true, lock, grant
	out.Observe(Observation{Kind: ObsBeliefStart, Client: client, By: NoProc, Lock: lock, Grant: grant,
		Window: window, Token: token, HasToken: hasToken})
}

// End reports that the client no longer believes it holds its lock, if it did.
func (b *Belief) End(out *Outputs, client ProcID, reason string) bool {
	if !b.holds {
		return false
	}
	b.holds = false
	out.Observe(Observation{Kind: ObsBeliefEnd, Client: client, By: NoProc, Lock: b.lock, Grant: b.grant, Reason: reason})
	return true
}

// Note is a sentence for the log from process p, judged by nothing.
func Note(p ProcID, format string, args ...any) Observation {
	return Observation{Kind: ObsNote, Client: p, By: NoProc, Text: fmt.Sprintf(format, args...)}
}
