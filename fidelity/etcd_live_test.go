//go:build realservers

package fidelity

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEtcdLive compares the etcd model with etcd, through etcd's JSON gateway
// (the gRPC API as HTTP: /v3/kv/txn, /v3/lease/grant, /v3/watch ...).
func TestEtcdLive(t *testing.T) {
	bin := need(t, "etcd", "etcd-server", "etcd")
	version := versionOf(t, bin, "--version")
	liveSuite(t, systems[systemIndex("etcd")], "etcd "+version, "etcd-"+version+".txt", func(t *testing.T, c fcase) liveCase {
		members, err := parseEtcdConfig(c.config)
		if err != nil {
			t.Fatal(err)
		}
		lc := &etcdLive{t: t, leases: &leases{}, client: map[string]int{}, procs: map[string]*proc{}}
		var cluster []string
		peer := map[string]int{}
		for _, m := range members {
			lc.client[m.name], peer[m.name] = freePort(t), freePort(t)
			cluster = append(cluster, fmt.Sprintf("%s=http://127.0.0.1:%d", m.name, peer[m.name]))
		}
		for _, m := range members {
			client, peerURL := fmt.Sprintf("http://127.0.0.1:%d", lc.client[m.name]), fmt.Sprintf("http://127.0.0.1:%d", peer[m.name])
			lc.procs[m.name] = &proc{name: m.name, dir: t.TempDir(), argv: []string{bin, "--name", m.name, "--data-dir", "data",
				"--listen-client-urls", client, "--advertise-client-urls", client,
				"--listen-peer-urls", peerURL, "--initial-advertise-peer-urls", peerURL,
				"--initial-cluster", strings.Join(cluster, ","), "--initial-cluster-state", "new",
				"--heartbeat-interval", strconv.FormatInt(m.heartbeat.Milliseconds(), 10),
				"--election-timeout", strconv.FormatInt(m.election.Milliseconds(), 10)}}
			if lc.first == "" {
				lc.first = m.name
			}
		}
		for _, m := range members {
			if err := lc.procs[m.name].start(t); err != nil {
				t.Fatal(err)
			}
		}
		for _, m := range members {
			if err := lc.ready(m.name); err != nil {
				if why := etcdRefusal(lc.procs[m.name]); why != "" {
					lc.refused = append(lc.refused, m.name+": refused to start: "+why)
					continue
				}
				t.Fatal(err)
			}
		}
		if lc.refused == nil && len(members) > 1 {
			if err := lc.lead(lc.first); err != nil {
				t.Fatal(err)
			}
		}
		return lc
	})
}

// TestEtcdMutexLayout checks the requests the cases send for a lock against
// etcd's own concurrency.Mutex, as etcdctl lock runs it: its key is the lock
// name, "/", the session's lease in hex, and the second locker gets the lock
// when the first lets go.
func TestEtcdMutexLayout(t *testing.T) {
	bin := need(t, "etcd", "etcd-server", "etcd")
	ctl := need(t, "etcdctl", "etcd-client", "etcdctl")
	lc := &etcdLive{t: t, leases: &leases{}, client: map[string]int{"e1": freePort(t)}, procs: map[string]*proc{}}
	client, peer := fmt.Sprintf("http://127.0.0.1:%d", lc.client["e1"]), fmt.Sprintf("http://127.0.0.1:%d", freePort(t))
	lc.procs["e1"] = &proc{name: "e1", dir: t.TempDir(), argv: []string{bin, "--name", "e1", "--data-dir", "data",
		"--listen-client-urls", client, "--advertise-client-urls", client, "--listen-peer-urls", peer,
		"--initial-advertise-peer-urls", peer, "--initial-cluster", "e1=" + peer}}
	if err := lc.procs["e1"].start(t); err != nil {
		t.Fatal(err)
	}
	if err := lc.ready("e1"); err != nil {
		t.Fatal(err)
	}
	// lock starts etcdctl lock L; its printed lines (the key it holds, once
	// it holds it) come on the channel.
	lock := func(name string) (*proc, chan string) {
		p := &proc{name: name, dir: t.TempDir(), argv: []string{ctl, "--endpoints", client, "lock", "L"}}
		p.cmd = exec.Command(p.argv[0], p.argv[1:]...)
		p.cmd.Env = append(p.cmd.Environ(), "ETCDCTL_API=3")
		out, err := p.cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := p.cmd.Start(); err != nil {
			t.Fatal(err)
		}
		p.done = make(chan struct{})
		lines := make(chan string, 16)
		go func() {
			sc := bufio.NewScanner(out)
			for sc.Scan() {
				if s := strings.TrimSpace(sc.Text()); s != "" {
					lines <- s
				}
			}
			p.cmd.Wait()
			close(p.done)
		}()
		t.Cleanup(p.kill)
		return p, lines
	}
	line := func(lines chan string, within time.Duration) (string, error) {
		select {
		case s := <-lines:
			return s, nil
		case <-time.After(within):
			return "", fmt.Errorf("nothing within %s", within)
		}
	}
	first, out1 := lock("lock1")
	key1, err := line(out1, 10*time.Second)
	if err != nil {
		t.Fatalf("etcdctl lock L: %v", err)
	}
	var kvs etcdRangeResp
	if err := lc.post("e1", "/v3/kv/range", map[string]any{"key": b64(key1)}, &kvs); err != nil || len(kvs.Kvs) != 1 {
		t.Fatalf("the lock key %q etcdctl printed is not in the store: %v", key1, err)
	}
	if want := fmt.Sprintf("L/%x", kvs.Kvs[0].Lease); key1 != want {
		t.Errorf("concurrency.Mutex's key is %q; the cases (and the model's client) use the lock name, /, the lease in hex: %q", key1, want)
	}
	_, out2 := lock("lock2")
	if s, err := line(out2, time.Second); err == nil {
		t.Fatalf("a second etcdctl lock L got the lock (%q) while the first held it", s)
	}
	first.signal(syscall.SIGINT) // etcdctl unlocks and closes its session
	key2, err := line(out2, 10*time.Second)
	if err != nil || key2 == key1 || !strings.HasPrefix(key2, "L/") {
		t.Fatalf("the second locker did not get the lock after the first let go: %q, %v", key2, err)
	}
}

// etcdRefusal is why etcd refused to start, from its log, if it did.
func etcdRefusal(p *proc) string {
	if p.wait(5*time.Second) != nil {
		return ""
	}
	m := regexp.MustCompile(`error verifying flags, (.*)\. See 'etcd --help'`).FindStringSubmatch(p.log())
	if m == nil {
		return ""
	}
	return m[1]
}

type etcdLive struct {
	t       *testing.T
	first   string
	leases  *leases
	client  map[string]int
	procs   map[string]*proc
	refused []string
}

func (e *etcdLive) defaultServer() string { return e.first }

func (e *etcdLive) refusals() []string { return e.refused }

func (e *etcdLive) url(member, path string) string {
	return fmt.Sprintf("http://127.0.0.1:%d%s", e.client[member], path)
}

// post sends one JSON request and decodes the answer; an answer with an error
// comes back as an error with etcd's message.
func (e *etcdLive) post(member, path string, body any, into any) error {
	b, _ := json.Marshal(body)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, e.url(member, path), bytes.NewReader(b))
	resp, err := http.DefaultClient.Do(req)
	if errors.Is(err, context.DeadlineExceeded) {
		// etcd holds a request it cannot serve (no leader) until its own
		// request timeout, 5 s plus two election timeouts: ours comes first.
		return etcdError("no answer within 5s")
	}
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	var failed struct {
		Error string `json:"error"`
	}
	if json.Unmarshal(raw, &failed); failed.Error != "" {
		return etcdError(failed.Error)
	}
	return json.Unmarshal(raw, into)
}

type etcdError string

func (e etcdError) Error() string { return string(e) }

type etcdHeader struct {
	Header struct {
		Revision int64  `json:"revision,string"`
		MemberID uint64 `json:"member_id,string"`
	} `json:"header"`
}

type etcdKV struct {
	Key            []byte `json:"key"`
	CreateRevision int64  `json:"create_revision,string"`
	ModRevision    int64  `json:"mod_revision,string"`
	Lease          int64  `json:"lease,string"`
}

type etcdRangeResp struct {
	etcdHeader
	Kvs []etcdKV `json:"kvs"`
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// prefixEnd is the end of a prefix's range, as clientv3.WithPrefix makes it.
func prefixEnd(p string) string { return p[:len(p)-1] + string(p[len(p)-1]+1) }

// ready waits until the member has a leader.
func (e *etcdLive) ready(member string) error {
	return poll(10*time.Second, func() error {
		if !e.procs[member].running() {
			return stop{fmt.Errorf("%s exited:\n%s", member, e.procs[member].log())}
		}
		var st struct {
			Leader uint64 `json:"leader,string"`
		}
		if err := e.post(member, "/v3/maintenance/status", map[string]any{}, &st); err != nil {
			return err
		}
		if st.Leader == 0 {
			return fmt.Errorf("%s has no leader yet", member)
		}
		return nil
	})
}

// lead makes member the leader (the model's first member leads a fresh
// cluster; a real cluster elects whoever times out first).
func (e *etcdLive) lead(member string) error {
	return poll(10*time.Second, func() error {
		var st struct {
			etcdHeader
			Leader uint64 `json:"leader,string"`
		}
		if err := e.post(member, "/v3/maintenance/status", map[string]any{}, &st); err != nil {
			return err
		}
		if st.Leader == st.Header.MemberID {
			return nil
		}
		for name := range e.client { // ask the leader to hand over
			var other struct {
				etcdHeader
			}
			if e.post(name, "/v3/maintenance/status", map[string]any{}, &other) == nil && other.Header.MemberID == st.Leader {
				var ignored map[string]any
				e.post(name, "/v3/maintenance/transfer-leadership", map[string]any{"targetID": strconv.FormatUint(st.Header.MemberID, 10)}, &ignored)
			}
		}
		return fmt.Errorf("%s does not lead yet", member)
	})
}

func (e *etcdLive) act(verb, member string) error {
	p, ok := e.procs[member]
	if !ok {
		return fmt.Errorf("no member %s", member)
	}
	return p.act(verb, func() error {
		if err := p.start(e.t); err != nil {
			return err
		}
		return e.ready(member)
	}, nil)
}

func (e *etcdLive) connect(name, member string, msgs chan<- liveMsg) (liveConn, error) {
	if _, ok := e.client[member]; !ok {
		return nil, fmt.Errorf("no member %s", member)
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &etcdLiveConn{e: e, name: name, member: member, msgs: msgs, ctx: ctx, cancel: cancel}, nil
}

// etcdLiveConn is one client: each request in its own goroutine, its answer on
// the runner's channel; a watch streams its events until the connection closes.
type etcdLiveConn struct {
	e            *etcdLive
	name, member string
	msgs         chan<- liveMsg
	ctx          context.Context
	cancel       func()
}

func (c *etcdLiveConn) close() { c.cancel() }

func (c *etcdLiveConn) reply(kind, text string) {
	c.msgs <- liveMsg{conn: c.name, kind: kind, text: text}
}

func (c *etcdLiveConn) send(cmd string) error {
	r, err := parseEtcdCommand(c.e.leases, cmd)
	if err != nil {
		c.reply(opReply, "error: "+err.Error())
		return nil
	}
	if r.verb == "watch" {
		go c.watch(r)
		return nil
	}
	go func() { c.reply(opReply, c.request(r)) }()
	return nil
}

func (c *etcdLiveConn) request(r etcdRequest) string {
	l, post := c.e.leases, func(path string, body any, into any) error { return c.e.post(c.member, path, body, into) }
	id := strconv.FormatInt(r.n, 10)
	switch r.verb {
	case "grant":
		var g struct {
			ID  int64 `json:"ID,string"`
			TTL int64 `json:"TTL,string"`
		}
		if err := post("/v3/lease/grant", map[string]any{"TTL": id}, &g); err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("lease %s ttl %ds", l.name(g.ID), g.TTL)
	case "keepalive":
		var k struct {
			Result struct {
				TTL int64 `json:"TTL,string"`
			} `json:"result"`
		}
		if err := post("/v3/lease/keepalive", map[string]any{"ID": id}, &k); err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("ttl %ds", k.Result.TTL)
	case "revoke":
		var ignored map[string]any
		if err := post("/v3/lease/revoke", map[string]any{"ID": id}, &ignored); err != nil {
			return "error: " + err.Error()
		}
		return "revoked"
	case "lock":
		// concurrency.Mutex's tryAcquire: put my key if it has no create
		// revision, and read the oldest key under the prefix either way.
		pfx := r.key[:strings.LastIndexByte(r.key, '/')+1]
		owner := map[string]any{"request_range": map[string]any{"key": b64(pfx), "range_end": b64(prefixEnd(pfx)),
			"sort_order": "ASCEND", "sort_target": "CREATE", "limit": "1"}}
		var tx struct {
			etcdHeader
			Succeeded bool `json:"succeeded"`
			Responses []struct {
				Range etcdRangeResp `json:"response_range"`
			} `json:"responses"`
		}
		err := post("/v3/kv/txn", map[string]any{
			"compare": []any{map[string]any{"target": "CREATE", "key": b64(r.key), "create_revision": "0"}},
			"success": []any{map[string]any{"request_put": map[string]any{"key": b64(r.key), "value": "", "lease": id}}, owner},
			"failure": []any{map[string]any{"request_range": map[string]any{"key": b64(r.key)}}, owner},
		}, &tx)
		if err != nil {
			return "error: " + err.Error()
		}
		mine := tx.Header.Revision
		if !tx.Succeeded {
			mine = tx.Responses[0].Range.Kvs[0].CreateRevision
		}
		return fmt.Sprintf("mine %s at %d, oldest at %d", l.show(r.key), mine, tx.Responses[1].Range.Kvs[0].CreateRevision)
	case "before", "get":
		body := map[string]any{"key": b64(r.key)}
		if r.verb == "before" { // waitDeletes: WithLastCreate, WithMaxCreateRev
			body = map[string]any{"key": b64(r.key), "range_end": b64(prefixEnd(r.key)), "sort_order": "DESCEND",
				"sort_target": "CREATE", "limit": "1", "max_create_revision": id}
		}
		var rr etcdRangeResp
		if err := post("/v3/kv/range", body, &rr); err != nil {
			return "error: " + err.Error()
		}
		if len(rr.Kvs) == 0 {
			return etcdRange(l, false, "", 0, rr.Header.Revision)
		}
		return etcdRange(l, r.verb == "before", string(rr.Kvs[0].Key), rr.Kvs[0].CreateRevision, rr.Header.Revision)
	case "delete":
		var d etcdHeader
		if err := post("/v3/kv/deleterange", map[string]any{"key": b64(r.key)}, &d); err != nil {
			return "error: " + err.Error()
		}
		return fmt.Sprintf("revision %d", d.Header.Revision)
	}
	return "error: unknown request " + r.verb
}

// watch streams a watch's answers: "watching" once etcd created it, then its
// first deletion, as concurrency's waitDelete takes it: it filters out puts
// (NOPUT) and returns, closing the watch, at the first DELETE.
func (c *etcdLiveConn) watch(r etcdRequest) {
	b, _ := json.Marshal(map[string]any{"create_request": map[string]any{"key": b64(r.key),
		"start_revision": strconv.FormatInt(r.n, 10), "filters": []string{"NOPUT"}}})
	ctx, cancel := context.WithCancel(c.ctx)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, c.e.url(c.member, "/v3/watch"), bytes.NewReader(b))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.reply(opReply, "error: "+err.Error())
		return
	}
	defer resp.Body.Close()
	dec := json.NewDecoder(resp.Body)
	for {
		var w struct {
			Result struct {
				Created bool `json:"created"`
				Events  []struct {
					Type string `json:"type"`
					KV   etcdKV `json:"kv"`
				} `json:"events"`
			} `json:"result"`
		}
		if dec.Decode(&w) != nil {
			return
		}
		if w.Result.Created {
			c.reply(opReply, "watching")
		}
		for _, ev := range w.Result.Events {
			c.reply(opEvent, fmt.Sprintf("%s %s at %d", ev.Type, c.e.leases.show(string(ev.KV.Key)), ev.KV.ModRevision))
			if ev.Type == "DELETE" {
				return // waitDelete's return: the watch is cancelled
			}
		}
	}
}
