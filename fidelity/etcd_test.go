package fidelity

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/locksim/locksim/protocols/etcd"
	"github.com/locksim/locksim/sim"
)

// etcd: leases (the minimum TTL, keepalives, revocation, expiry), revision
// accounting, and the requests of concurrency.Mutex (its Txn, the wait for the
// key created last before mine, the confirming Get, Unlock's delete), on one
// member and across a leader's death in a cluster of three. Sources: etcd's
// API reference, client/v3/concurrency (mutex.go, key.go), and the lessor.
//
// A config lists one cluster's members, ";"-separated, each with optional
// heartbeat= and election-timeout= (etcd's flags; defaults 100ms and 1s).
// Script commands, one per request:
//
//	grant TTL            LeaseGrant (seconds)             -> lease #1 ttl 5s
//	keepalive #1         one LeaseKeepAlive               -> ttl 5s (0s: gone)
//	revoke #1            LeaseRevoke                      -> revoked
//	lock P #1            the Mutex's Txn for key P/<lease in hex>
//	                                                      -> mine P/#1 at 2, oldest at 2
//	before P REV         Range P/ last-create, max-create-rev REV
//	                                                      -> P/#1 at 2, revision 3 (or none)
//	get K                Range K                          -> at 2, revision 3 (or none)
//	delete K             DeleteRange K                    -> revision 4
//	watch K from REV     Watch K for deletes from REV     -> watching; later DELETE K at 4
//
// Leases are named #1, #2, ... in the order they are granted, in requests and
// replies alike, because real lease ids are 64-bit numbers the server picks
// and the model's are its log indexes. #0 is no lease (a key put without one,
// "L/0"), #none a lease never granted.

func init() {
	systems = append(systems, system{name: "etcd", cases: etcdCases(), model: etcdModel})
}

// etcdMember is one member of a config.
type etcdMember struct {
	name                string
	heartbeat, election time.Duration
}

func parseEtcdConfig(config string) ([]etcdMember, error) {
	servers, err := parseConfig(config, "heartbeat", "election-timeout")
	var out []etcdMember
	for _, s := range servers {
		m := etcdMember{name: s.name}
		if m.heartbeat, err = s.dur("heartbeat", 100*time.Millisecond); err == nil {
			m.election, err = s.dur("election-timeout", time.Second)
		}
		if err != nil {
			return nil, fmt.Errorf("config %q: %v", config, err)
		}
		out = append(out, m)
	}
	return out, err
}

// leases names lease ids #1, #2, ... in the order they first appear; a case's
// connections share one.
type leases struct{ ids []int64 }

func (l *leases) name(id int64) string {
	for i, x := range l.ids {
		if x == id {
			return fmt.Sprintf("#%d", i+1)
		}
	}
	l.ids = append(l.ids, id)
	return fmt.Sprintf("#%d", len(l.ids))
}

// unknownLease is the lease a script's #none names: an id no server has
// granted (the model's ids are small log indexes; a real server's are random
// 63-bit numbers, and this one is as unlikely as any).
const unknownLease = 0x7eadbeefcafe0001

// id is the lease a script's #n names; #0 is no lease (etcd's lease 0: a key
// put without one), #none a lease never granted.
func (l *leases) id(name string) (int64, error) {
	switch name {
	case "#0":
		return 0, nil
	case "#none":
		return unknownLease, nil
	}
	n, err := strconv.Atoi(strings.TrimPrefix(name, "#"))
	if err != nil || n < 1 || n > len(l.ids) || !strings.HasPrefix(name, "#") {
		return 0, fmt.Errorf("no lease %s granted yet", name)
	}
	return l.ids[n-1], nil
}

// key is a script's key with its lease in hex: "L/#1" -> "L/694d7b...".
func (l *leases) key(k string) (string, error) {
	i := strings.LastIndexByte(k, '/')
	if i < 0 || !strings.HasPrefix(k[i+1:], "#") {
		return k, nil
	}
	id, err := l.id(k[i+1:])
	return fmt.Sprintf("%s%x", k[:i+1], id), err
}

// show is a key as a script writes it: "L/694d7b..." -> "L/#1".
func (l *leases) show(k string) string {
	i := strings.LastIndexByte(k, '/')
	if i < 0 {
		return k
	}
	for n, id := range l.ids {
		if k[i+1:] == fmt.Sprintf("%x", id) {
			return fmt.Sprintf("%s#%d", k[:i+1], n+1)
		}
	}
	if k[i+1:] == fmt.Sprintf("%x", int64(unknownLease)) {
		return k[:i+1] + "#none"
	}
	return k
}

// An etcdRequest is a script command, parsed.
type etcdRequest struct {
	verb string
	key  string // with the lease in hex
	n    int64  // grant: TTL in s; lease verbs: the lease id; before, watch: the revision
}

func parseEtcdCommand(l *leases, cmd string) (etcdRequest, error) {
	w := strings.Fields(cmd)
	bad := fmt.Errorf("%q: not an etcd script command (see etcd_test.go)", cmd)
	if len(w) == 0 {
		return etcdRequest{}, bad
	}
	r := etcdRequest{verb: w[0]}
	var err error
	switch {
	case r.verb == "grant" && len(w) == 2:
		r.n, err = strconv.ParseInt(w[1], 10, 64)
	case (r.verb == "keepalive" || r.verb == "revoke") && len(w) == 2:
		r.n, err = l.id(w[1])
	case r.verb == "lock" && len(w) == 3:
		r.key, err = l.key(w[1] + "/" + w[2])
		if err == nil {
			r.n, err = l.id(w[2])
		}
	case r.verb == "before" && len(w) == 3:
		r.key = w[1] + "/"
		r.n, err = strconv.ParseInt(w[2], 10, 64)
	case (r.verb == "get" || r.verb == "delete") && len(w) == 2:
		r.key, err = l.key(w[1])
	case r.verb == "watch" && len(w) == 4 && w[2] == "from":
		r.key, err = l.key(w[1])
		if err == nil {
			r.n, err = strconv.ParseInt(w[3], 10, 64)
		}
	default:
		return r, bad
	}
	return r, err
}

func etcdModel(c fcase, steps []step) (transcript, error) {
	members, err := parseEtcdConfig(c.config)
	if err != nil {
		return nil, err
	}
	mw := newModelWorld()
	ids := make([]sim.ProcID, len(members))
	for i := range members {
		ids[i] = sim.ProcID(i) // the members come first, in order
	}
	var refused []string
	for _, m := range members {
		if err := etcd.CheckTimeouts(m.heartbeat, m.election); err != nil {
			refused = append(refused, m.name+": refused to start: "+err.Error())
			continue
		}
		mw.addServer(m.name, "etcd", etcd.NewMember(etcd.MemberConfig{Members: ids, Heartbeat: m.heartbeat, ElectionTimeout: m.election}))
	}
	if refused != nil {
		return refusedTranscript(refused, steps), nil
	}
	l := &leases{}
	mw.newConn = func(string) conn { return &etcdConn{leases: l} }
	return mw.run(steps)
}

// startStep heads the transcript of a case whose servers refused to start:
// what they said, then the script's steps, which nothing answered.
const startStep = "(start)"

func refusedTranscript(refused []string, steps []step) transcript {
	tr := transcript{{step: startStep, replies: refused}}
	for _, s := range steps {
		tr = append(tr, result{step: s.text})
	}
	return tr
}

// etcdConn is a client's connection to a model member: one request at a time.
type etcdConn struct {
	leases  *leases
	reqID   uint64
	pending etcdRequest
}

func (e *etcdConn) do(d *driver, _ sim.LocalTime, cmd string, out *sim.Outputs) {
	r, err := parseEtcdCommand(e.leases, cmd)
	if err != nil {
		d.answer(out, "error: "+err.Error())
		return
	}
	e.reqID++
	e.pending = r
	m := sim.Message{ID: e.reqID}
	switch r.verb {
	case "grant":
		m.Op = etcd.OpGrant
		m = m.Carrying(etcd.ArgTTL, r.n*1000)
	case "keepalive":
		m.Op = etcd.OpKeepAlive
		m = m.Carrying(etcd.ArgLease, r.n)
	case "revoke":
		m.Op = etcd.OpRevoke
		m = m.Carrying(etcd.ArgLease, r.n)
	case "lock":
		m.Op, m.Key = etcd.OpTxn, r.key
		m = m.Carrying(etcd.ArgLease, r.n)
	case "before":
		m.Op, m.Key, m.Opts = etcd.OpRange, r.key, "LAST-CREATE"
		m = m.Carrying(etcd.ArgMaxCreateRev, r.n)
	case "get":
		m.Op, m.Key = etcd.OpRange, r.key
	case "delete":
		m.Op, m.Key = etcd.OpDelete, r.key
	case "watch":
		m.Op, m.Key = etcd.OpWatch, r.key
		m = m.Carrying(etcd.ArgFromRev, r.n)
		d.answer(out, "watching") // a member takes a watch without a word
	}
	out.Send(d.server, m)
}

func (e *etcdConn) step(d *driver, _ sim.LocalTime, in sim.Input, out *sim.Outputs) {
	if in.Kind != sim.InMessage || in.From != d.server {
		return
	}
	m := in.Msg
	switch m.Op {
	case etcd.RepEvent:
		d.event(out, fmt.Sprintf("DELETE %s at %d", e.leases.show(m.Key), m.Num(etcd.ArgRevision)))
		return
	case etcd.RepTTL: // keepalive answers carry no request id
	default:
		if m.ID != e.reqID {
			return
		}
	}
	var text string
	switch m.Op {
	case etcd.RepError:
		text = "error: " + m.Value
	case etcd.RepGranted:
		text = fmt.Sprintf("lease %s ttl %ds", e.leases.name(m.Num(etcd.ArgLease)), m.Num(etcd.ArgLeaseTTL)/1000)
	case etcd.RepTTL:
		text = fmt.Sprintf("ttl %ds", m.Num(etcd.ArgLeaseTTL)/1000)
	case etcd.RepRevoked:
		text = "revoked"
	case etcd.RepTxn:
		text = fmt.Sprintf("mine %s at %d, oldest at %d", e.leases.show(m.Key), m.Num(etcd.ArgMyRev), m.Num(etcd.ArgOwnerRev))
	case etcd.RepRange:
		text = etcdRange(e.leases, e.pending.verb == "before", m.Key, m.Num(etcd.ArgCreateRev), m.Num(etcd.ArgRevision))
	case etcd.RepDeleted:
		text = fmt.Sprintf("revision %d", m.Num(etcd.ArgRevision))
	default:
		text = "unexpected " + m.String()
	}
	d.answer(out, text)
}

// etcdRange is a Range's answer: for before, the key found; for get, only its
// create revision.
func etcdRange(l *leases, before bool, key string, create, rev int64) string {
	switch {
	case create == 0:
		return fmt.Sprintf("none, revision %d", rev)
	case before:
		return fmt.Sprintf("%s at %d, revision %d", l.show(key), create, rev)
	}
	return fmt.Sprintf("at %d, revision %d", create, rev)
}

func etcdCases() []fcase {
	var cases []fcase
	// etcd's minimum lease TTL: 3/2 of the election timeout in whole heartbeat
	// ticks, rounded up to seconds (etcdserver: minTTL, lessor's minLeaseTTL).
	for _, t := range []struct{ hb, el string }{
		{"100ms", "1s"}, {"300ms", "2100ms"}, {"100ms", "500ms"}, {"250ms", "1300ms"}, {"400ms", "2200ms"}, {"150ms", "1s"},
	} {
		cases = append(cases, fcase{
			name:   "min-ttl-" + t.hb + "-" + t.el,
			config: "e1 heartbeat=" + t.hb + " election-timeout=" + t.el,
			script: "c1> grant 1\nc1> grant 2\nc1> grant 3\nc1> grant 4\nc1> grant 5",
		})
	}
	return append(cases,
		fcase{name: "refuses-short-election-timeout", config: "e1 heartbeat=500ms election-timeout=2000ms", script: "c1> grant 5"},
		fcase{name: "refuses-long-election-timeout", config: "e1 heartbeat=100ms election-timeout=60s", script: "c1> grant 5"},
		fcase{name: "revisions", config: "e1", script: `
c1> grant 10
c1> get L/#1
c1> lock L #1
c1> lock L #1
c1> get L/#1
c1> delete L/#1
c1> delete L/#1
c1> get L/#1
c1> lock L #1
c1> revoke #1
c1> get L/#1
c1> revoke #1
c1> keepalive #1
c1> lock L #1
c2> grant 10
c2> revoke #2
c2> get L/#1`},
		fcase{name: "mutex-queue", config: "e1", script: `
c1> grant 10
c1> lock L #1
c2> grant 10
c2> lock L #2
c2> before L 2
c2> watch L/#1 from 3
c3> grant 10
c3> lock L #3
c3> before L 3
c3> watch L/#2 from 4
c1> delete L/#1
c2> before L 2
c2> get L/#2
c2> delete L/#2
c3> before L 3
c3> get L/#3
c3> revoke #3
c1> before L 10`},
		fcase{name: "lease-revoke-deletes-keys", config: "e1", script: `
c1> grant 10
c1> lock L #1
c1> lock M #1
c2> grant 10
c2> lock L #2
c2> watch L/#1 from 2
c1> revoke #1
c1> get L/#1
c1> get M/#1
c2> before L 3
c1> keepalive #1`},
		// Every request, option, error reply and read path the model accepts
		// (protocols/etcd: member.go's client, store.go's apply, the watch),
		// each against etcd (issue 31).
		//
		// LeaseGrant's TTL bounds: 0 and a negative TTL are raised to the
		// minimum (the lessor's minLeaseTTL), the largest etcd allows
		// (MaxLeaseTTL, 9,000,000,000 s) is granted as asked, one more is
		// refused, and a keepalive answers the TTL granted.
		fcase{name: "lease-ttl-bounds", config: "e1", script: `
c1> grant 0
c1> grant -5
c1> grant 9000000000
c1> keepalive #3
c1> grant 9000000001
c1> grant 60
c1> keepalive #4
c1> keepalive #1`},
		// The lease errors: a keepalive, a revoke and the Mutex's Txn naming a
		// lease never granted, and a Txn with no lease at all (lease 0: the key
		// is put without one, and a revoke cannot delete it).
		fcase{name: "lease-errors", config: "e1", script: `
c1> keepalive #none
c1> revoke #none
c1> lock L #none
c1> get L/#none
c1> lock L #0
c1> get L/0
c1> lock L #0
c1> grant 10
c1> lock L #1
c1> revoke #1
c1> get L/0
c1> get L/#1
c1> delete L/0
c1> get L/0`},
		// Range's forms: one key; the last created under a prefix at or before a
		// revision (waitDeletes' WithLastCreate, WithMaxCreateRev), where 0 means
		// no bound; a prefix is a byte prefix ("L/" holds "L/x/#3" and not
		// "LL/#2"); the Mutex's oldest under a prefix with nested keys.
		fcase{name: "range-forms", config: "e1", script: `
c1> grant 10
c1> before L 0
c1> lock L #1
c2> grant 10
c2> lock LL #2
c3> grant 10
c3> lock L/x #3
c1> before L 0
c1> before L 1
c1> before L 2
c1> before L 3
c1> before L 4
c1> before L 100
c1> before LL 0
c1> before L/x 0
c1> get L
c1> get L/
c1> get LL/#2
c3> lock L/x #3
c1> delete L/#1
c1> before L 0
c3> lock L #3
c1> get L/#3`},
		// Watch's forms (for deletions, as concurrency's waitDelete asks): a
		// deletion at or after the start revision fires at once from the history,
		// one before it does not; start revision 0 is "from now", no history; a
		// future start revision ignores deletions before it; a put does not fire
		// (NOPUT); a key that never existed never fires; from a revision before
		// several deletions, the first of them fires.
		fcase{name: "watch-forms", config: "e1", script: `
c1> grant 10
c1> lock L #1
c1> delete L/#1
c2> watch L/#1 from 3
c3> watch L/#1 from 4
c4> watch L/#1 from 0
c5> watch L/#1 from 9
c6> watch M/#1 from 1
c1> lock L #1
c1> delete L/#1
c1> lock L #1
c1> delete L/#1
c1> lock L #1
c1> delete L/#1
c1> get L/#1
c7> watch L/#1 from 1
c8> watch L/#1 from 6`},
		// A member whose leader and the third member are dead has no leader
		// after an election timeout. The model answers etcd's "no leader" at
		// once; etcd holds the request until its request timeout (a deliberate
		// difference, etcd-no-leader in docs/fidelity.md).
		fcase{name: "no-leader", config: "e1; e2; e3", timing: true, script: `
c1@e3> get L
crash e1
crash e2
sleep 3s
c1@e3> get L
sleep 6s
c1@e3> get L`,
			differs: []difference{{
				real:  "sleep 3s\nc1@e3> get L\nsleep 6s\n  c1@e3: error: no answer within 5s\nc1@e3> get L\n",
				model: "sleep 3s\nc1@e3> get L\n  c1@e3: error: etcdserver: no leader\nsleep 6s\nc1@e3> get L\n  c1@e3: error: etcdserver: no leader\n",
				why:   "etcd-no-leader",
			}}},
		// The lessor revokes an expired lease on its own: here 2 s, the minimum
		// with etcd's defaults. etcd checks every 500 ms (the model at each
		// heartbeat): both have revoked it 600 ms after it ran out.
		fcase{name: "lease-expiry", config: "e1", timing: true, script: `
c1> grant 1
c1> lock L #1
c2> grant 10
c2> lock L #2
c2> watch L/#1 from 2
sleep 1500ms
c1> get L/#1
sleep 1100ms
c1> get L/#1
c1> keepalive #1
c2> before L 2`},
		// The leader dies holding every lease's clock; the next leader gives
		// each lease its TTL again plus an election timeout (Promote), so c1,
		// which keeps its lease alive through a follower, still holds the lock.
		fcase{name: "leader-failover", config: "e1; e2; e3", timing: true, script: `
c1@e2> grant 5
c1@e2> lock L #1
c2@e3> grant 5
c2@e3> lock L #2
c2@e3> before L 2
c2@e3> watch L/#1 from 3
crash e1
sleep 3s
c1@e2> keepalive #1
c2@e3> keepalive #2
c2@e3> get L/#1
sleep 3s
c1@e2> keepalive #1
c2@e3> keepalive #2
c1@e2> get L/#1
c1@e2> delete L/#1
c2@e3> before L 2
c2@e3> get L/#2`},
	)
}
