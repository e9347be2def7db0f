package sessionlock

import "github.com/locksim/locksim/sim"

// tutorial:begin messages
// The messages between client and server (sim.Message.Op). Key is always the
// lock; Value the grant ("c1#1"); the numbers are ArgToken and ArgSession.
const (
	OpAcquire   = "ACQUIRE"   // client: may I hold Key?
	OpGranted   = "GRANTED"   // server: yes, as grant Value, token ArgToken, for a session of ArgSession ms
	OpBusy      = "BUSY"      // server: no, someone holds it (or the server is in its grace period)
	OpKeepalive = "KEEPALIVE" // client: renew grant Value's session (background traffic)
	OpAlive     = "ALIVE"     // server: grant Value's session is renewed for ArgSession ms (with renew-token=on: under the new token ArgToken)
	OpExpired   = "EXPIRED"   // server: grant Value's session is over
	OpRelease   = "RELEASE"   // client: I am done with grant Value
	OpReleased  = "RELEASED"  // server: grant Value is released
	opToken     = "TOKEN"     // the server's disk record: the last token minted, ArgToken
)

// The numbers the messages carry (sim.Message.With, Num).
const (
	ArgToken   = sim.ArgToken // the fencing token a grant carries (the slot the resource reads)
	ArgSession = sim.Num2     // a session's length in whole milliseconds
)

// tutorial:end messages
