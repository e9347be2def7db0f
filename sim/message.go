package sim

import (
	"strconv"
	"strings"
)

// Message is what processes send each other, what a client is commanded to do, and
// what a process writes to its disk. It is one flat value type rather than an
// interface, so sending one allocates nothing (boxing a struct in an interface would),
// and so every message has one text form. Protocols pick Op names as their sources
// spell them ("SET", "(nil)", "EVAL").
type Message struct {
	Op    string // command or reply name: "SET", "+OK", "(integer)"
	Key   string // the key, lock or resource it is about
	Value string // a value: the lock owner's random value, a read result
	Opts  string // option words as the protocol's docs write them: "NX PX"
	N     int64  // one numeric argument (a TTL in ms, a token), shown when HasN
	HasN  bool
	M     int64 // a second numeric argument, shown when HasM
	HasM  bool
	ID    uint64 // request id: pairs a reply with its request; not part of the text
	Body  any    // rare structured payloads (lists); nil on every hot path
	// Background marks traffic that keeps something alive rather than moving the
	// story on: heartbeats, pings and their acks, keepalives, lease renewals. The
	// protocol that sends the message declares it (InBackground); the trace keeps
	// it with the message, and viewers fold such rows on request (the TUI's quiet
	// mode). It changes nothing in the run and is not part of the text form.
	Background bool
}

// String is the message's one text form: "SET L c1#1 NX PX 10000".
func (m Message) String() string {
	var b strings.Builder
	add := func(s string) {
		if s == "" {
			return
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(s)
	}
	add(m.Op)
	add(m.Key)
	add(m.Value)
	add(m.Opts)
	if m.HasN {
		add(strconv.FormatInt(m.N, 10))
	}
	if m.HasM {
		add(strconv.FormatInt(m.M, 10))
	}
	if s, ok := m.Body.(interface{ String() string }); ok {
		add(s.String())
	}
	return b.String()
}

// WithN returns m carrying the number n.
func (m Message) WithN(n int64) Message { m.N, m.HasN = n, true; return m }

// WithM returns m carrying the second number n.
func (m Message) WithM(n int64) Message { m.M, m.HasM = n, true; return m }

// InBackground returns m marked as background traffic (see Message.Background).
func (m Message) InBackground() Message { m.Background = true; return m }
