package sim

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Belief is a lock client's belief that it holds a lock, and the reporting of its
// changes in the shared vocabulary. Every lock client (Redis, Redlock, ZooKeeper,
// etcd, ...) keeps one, so that what "believes" means is written once.
type Belief struct {
	holds bool
	lock  string
	grant string
	// What the client's application remembers of the last grant it held (and its
	// token, with fencing). It outlives the belief on purpose: an operation the
	// application decided earlier goes out under it, even after a pause the
	// client has not noticed yet.
	last     string
	lastLock string
	token    int64
	fenced   bool
}

// Holds reports whether the client believes it holds a lock.
func (b *Belief) Holds() bool { return b.holds }

// Start reports that client concludes it holds lock as grant. A non-zero window
// is the validity it computed for itself; a token, if it has one, is its fencing
// token.
func (b *Belief) Start(out *Outputs, client ProcID, lock, grant string, window time.Duration, token int64, hasToken bool) {
	b.holds, b.lock, b.grant = true, lock, grant
	b.last, b.lastLock, b.token, b.fenced = grant, lock, token, hasToken
	out.Observe(Observation{Kind: ObsBeliefStart, Client: client, By: NoProc, Lock: lock, Grant: grant,
		Window: window, Token: token, HasToken: hasToken})
}

// Renew reports that the client renewed the grant it believes it holds and was
// given a new fencing token with it: a lock whose token advances with each
// heartbeat (a record's version number, bumped by every renewal) fences with
// the current one, and every operation from now on carries it. Start's token
// was the grant's first; a client whose token never changes need not call
// Renew. It does nothing when the client holds no lock, so a renewal answered
// after the belief ended cannot arm an old grant with a new token; the token
// is taken as given, so a client whose answers may arrive out of order keeps
// only a newer one. The log shows the new token.
func (b *Belief) Renew(out *Outputs, client ProcID, token int64) {
	if !b.holds || (b.fenced && b.token == token) {
		return
	}
	b.token, b.fenced = token, true
	out.Observe(Note(client, "renewed %s as %s: its fencing token is now %d", b.lock, b.grant, token))
}

// Token is the fencing token the client's operations carry, and whether they
// carry one: Start's, or the last Renew's.
func (b *Belief) Token() (int64, bool) { return b.token, b.fenced }

// End reports that the client no longer believes it holds its lock, if it did.
func (b *Belief) End(out *Outputs, client ProcID, reason string) bool {
	if !b.holds {
		return false
	}
	b.holds = false
	out.Observe(Observation{Kind: ObsBeliefEnd, Client: client, By: NoProc, Lock: b.lock, Grant: b.grant, Reason: reason})
	return true
}

// Operate sends a read or write command m to the resource it names, under the
// last grant held (with its token when fencing), or notes that there is none.
// The operation says which lock its grant is of, so that the resource's report
// does (the checker orders grants per lock), and carries the command's update
// name, if any (see ResourceOpts).
func (b *Belief) Operate(out *Outputs, env Env, m Message) {
	if b.last == "" {
		out.Observe(Note(env.ID, "%s has never held a lock; %s not sent", env.Name, m.Op))
		return
	}
	target := env.Lookup(m.Key)
	if target == NoProc {
		out.Observe(Note(env.ID, "%s: no process %s to %s", env.Name, m.Key, m.Op))
		return
	}
	_, update := ParseResourceOpts(m.Opts)
	op := Message{Op: m.Op, Key: m.Key, Value: b.last, Opts: ResourceOpts(b.lastLock, update)}
	if b.fenced {
		op = op.With(ArgToken, b.token)
	}
	out.Send(target, op)
}

// ResourceOpts is the option text of an operation on a protected resource: the
// lock its grant is of ("lock=L") and the logical update it is part of
// ("update=u1"), each when set.
func ResourceOpts(lock, update string) string {
	s := ""
	if lock != "" {
		s = "lock=" + lock
	}
	if update != "" {
		if s != "" {
			s += " "
		}
		s += "update=" + update
	}
	return s
}

// ParseResourceOpts reads what ResourceOpts wrote.
func ParseResourceOpts(opts string) (lock, update string) {
	for _, w := range strings.Fields(opts) {
		if v, ok := strings.CutPrefix(w, "lock="); ok {
			lock = v
		} else if v, ok := strings.CutPrefix(w, "update="); ok {
			update = v
		}
	}
	return lock, update
}

// Note is a sentence for the log from process p, judged by nothing.
func Note(p ProcID, format string, args ...any) Observation {
	return Observation{Kind: ObsNote, Client: p, By: NoProc, Text: fmt.Sprintf(format, args...)}
}

// AcquisitionValue is the unique value of a client's n-th acquisition: "c1#2" is
// c1's second; after c1's first restart its values read "c1@2#1", so they never
// repeat across its own crashes (a counter alone would start again at 1).
func AcquisitionValue(env Env, n int) string {
	if env.Incarnation == 0 { // every acquisition makes one: no fmt on this path
		return env.Name + "#" + strconv.Itoa(n)
	}
	return env.Name + "@" + strconv.Itoa(env.Incarnation+1) + "#" + strconv.Itoa(n)
}
