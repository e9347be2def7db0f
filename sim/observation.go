package sim

import (
	"fmt"
	"time"
)

// ObsKind names a fact a protocol reports for the checker and the timeline. This is
// the shared vocabulary between protocols and the checker: the checker never imports
// a protocol, it reads only these. New protocols add kinds here rather than teaching
// the checker about themselves.
type ObsKind uint8

const (
	// ObsAttempt: Client starts trying to acquire Lock. Value > 0 says it acquires
	// by majority over Value nodes (Redlock): the nodes' grants to it are votes.
	// Window > 0 says the lock is a once-per-period lock (a time bucket) of that
	// period: the attempt claims the period its clock is in (every-period).
	ObsAttempt ObsKind = iota + 1
	// ObsAttemptFailed: one try failed; Reason says whether the client retries.
	ObsAttemptFailed
	// ObsGiveUp: Client stops trying to acquire Lock without holding it.
	ObsGiveUp
	// ObsBeliefStart: Client concludes it holds Lock (Grant names the acquisition).
	// Window, when non-zero, is the validity the client computed for itself.
	ObsBeliefStart
	// ObsBeliefEnd: Client concludes it no longer holds Lock (Reason says why).
	ObsBeliefEnd
	// ObsGrant: Service grants Lock to Client for Window of true time from now
	// (0 = no expiry). A second report of the same grant (the same Client and
	// Grant) is a renewal, not a new grant: it replaces the window (EXPIRE after
	// SETNX, an extension). Value > 0 says the grant rests on a majority of Value
	// nodes storing Grant under Lock (Redlock): quorum-backed then applies.
	// Token, when HasToken, is the fencing token the grant carries.
	ObsGrant
	// ObsGrantEnd: Service withdraws Client's grant of Lock. By caused it (for an
	// expiry: the process whose clock said it expired); Reason is one of the
	// Reason* constants. Only a release by the owner closes the promise. Value > 0
	// marks the end of a majority grant, as on ObsGrant.
	ObsGrantEnd
	// ObsStored / ObsRemoved: a value owned by Client is stored on / removed from the
	// emitting node under key Lock (for quorum reasoning and restarts).
	ObsStored
	ObsRemoved // see ObsStored
	// ObsResource: the protected resource (the emitting process) accepted (or
	// rejected) operation Op from Client acting under Grant, the acquisition of
	// Lock it believes it holds, with fencing Token (HasToken when it carries
	// one). Name, when set, is the logical update the operation is part of: one
	// update may write to several resources (all-or-nothing judges them).
	ObsResource
	// ObsMetric sets the named metric to Value (its unit is in the name: validity_ms).
	ObsMetric
	// ObsCounter adds Value to the named counter (watch_notifications).
	ObsCounter
	// ObsNote is a sentence for the log and the timeline, judged by nothing.
	ObsNote
	// ObsJobStart: Client starts a run of the periodic job Lock, having claimed
	// its time bucket: Value is the bucket's number by the client's own clock
	// (floor(wall / Window)) and Window the bucket's length, the period. The
	// checker (once-per-bucket) judges the start's bucket in true time instead.
	// Window 0 is a one-shot job's start (a state-transition lock): it should
	// start at most once in the whole run.
	ObsJobStart
	// ObsBegin: Proc starts an agreement on Lock: a transaction among Value
	// participants (2PC, 3PC; Text names them, comma-separated), or a proposal
	// of value Grant (Paxos).
	ObsBegin
	// ObsVote: participant Proc votes on transaction Lock: Name is VoteYes or VoteNo.
	ObsVote
	// ObsDecide: Proc decides transaction Lock: Name is Commit or Abort; Text
	// says how it came to ("the coordinator's decision", "termination protocol").
	ObsDecide
	// ObsAccepted: acceptor Proc accepts value Grant under proposal number Token
	// for decree Lock. A majority of the processes of role RoleAcceptor chooses.
	ObsAccepted
)

// Reasons a grant ends or a belief ends.
const (
	ReasonReleased = "released" // the owner released it (DEL, compare-and-delete)
	ReasonExpired  = "expired"  // its TTL ran out on the service's clock
	ReasonDeleted  = "deleted"  // someone other than the owner deleted it
	ReasonValidity = "validity" // the client's own validity timer fired
	ReasonRetry    = "retry"    // an attempt failed and the client will retry
	ReasonNoRetry  = "no-retry" // an attempt failed and the client gives up
	// ReasonReset: a recovery built into the protocol took the grant back from
	// its owner, judging it stuck (a state-transition lock's reaper resetting a
	// job in progress past reap-after). Like a lease's expiry, it ends the
	// grant's promise at the reset; an owner still running is judged by
	// mutex-belief.
	ReasonReset = "reset"
	// ReasonRecovered is on an ObsStored, not an end: a node that restarted found
	// the value on its disk, so a grant it had made survived the restart.
	ReasonRecovered = "recovered"
)

// Roles the checker counts processes by (Trace.Roles; World.AddProcess takes
// each process's role). Other roles ("redis", "client", "coordinator") are only
// shown; these two decide verdicts.
const (
	RoleParticipant = "participant" // a commit protocol's participant: commit-agreement needs every one's yes
	RoleAcceptor    = "acceptor"    // a Paxos acceptor: a value accepted by a majority of them is chosen
	// RoleResource is a protected resource's process: once declared, only the
	// resource invariants decide UNSAFE, even if no operation reaches it.
	RoleResource = "resource"
)

var obsNames = [...]string{
	ObsAttempt: "attempt", ObsAttemptFailed: "attempt-failed", ObsGiveUp: "give-up",
	ObsBeliefStart: "belief-start", ObsBeliefEnd: "belief-end", ObsGrant: "grant",
	ObsGrantEnd: "grant-end", ObsStored: "stored", ObsRemoved: "removed",
	ObsResource: "resource", ObsMetric: "metric", ObsCounter: "counter", ObsNote: "note",
	ObsJobStart: "job-start", ObsBegin: "begin", ObsVote: "vote", ObsDecide: "decide", ObsAccepted: "accepted",
}

// String is the kind's name in the log and the JSON output: "grant", "belief-start".
func (k ObsKind) String() string {
	if int(k) < len(obsNames) && obsNames[k] != "" {
		return obsNames[k]
	}
	return fmt.Sprintf("obs(%d)", uint8(k))
}

// Observation is one reported fact. The kernel stamps At, Event and Proc (the
// emitter); the protocol fills the rest.
type Observation struct {
	Kind     ObsKind       // what is reported
	At       Time          // true time of the step that reported it
	Event    int           // index of the trace event whose step emitted it
	Proc     ProcID        // the emitting process
	Client   ProcID        // the client it is about (NoProc when none)
	By       ProcID        // who caused a withdrawal (NoProc when none)
	Lock     string        // the lock, key or resource name
	Service  string        // the lock service's name (for grants)
	Grant    string        // the acquisition it belongs to ("c1#1")
	Token    int64         // a fencing token (with HasToken), or a proposal number (ObsAccepted)
	HasToken bool          // Token is set (0 is a token too)
	Window   time.Duration // a grant's or a belief's validity; a bucket's period
	Op       string        // resource operation: "read", "write"
	Accepted bool          // ObsResource: the resource accepted the operation
	Reason   string        // why a grant, belief or attempt ended (the Reason* constants)
	Name     string        // metric or counter name; a resource operation's update
	Value    int64         // a metric's value, a counter's increment, a majority's size, a bucket
	Text     string        // a note's sentence, or extra detail
	// Seq orders a replicated service's grant reports: the position of the state
	// change in its log (a Raft index, a zxid). A new leader applies entries its
	// predecessor already applied and reported; the checker ignores a report at or
	// before one it has already read for the same service and lock. 0 = unordered.
	Seq int64
}

// NoProc marks an absent process reference.
const NoProc ProcID = -1
