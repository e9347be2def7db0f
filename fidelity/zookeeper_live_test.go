//go:build realservers

package fidelity

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestZooKeeperLive compares the ZooKeeper model with ZooKeeper, through a
// small client of ZooKeeper's own wire protocol (jute) written here.
func TestZooKeeperLive(t *testing.T) {
	java := need(t, "java (for ZooKeeper)", "zookeeper", "java")
	jar := need(t, "ZooKeeper", "zookeeper", "/usr/share/java/zookeeper.jar")
	version := zkVersion(t, jar)
	liveSuite(t, systems[systemIndex("zookeeper")], "zookeeper "+version, "zookeeper-"+version+".txt", func(t *testing.T, c fcase) liveCase {
		servers, err := parseZKConfig(c.config)
		if err != nil {
			t.Fatal(err)
		}
		lc := &zkLive{t: t, client: map[string]int{}, procs: map[string]*proc{}}
		quorum := map[string][2]int{}
		for _, s := range servers {
			lc.client[s.name] = freePort(t)
			quorum[s.name] = [2]int{freePort(t), freePort(t)}
			if lc.first == "" {
				lc.first = s.name
			}
		}
		for i, s := range servers {
			dir := t.TempDir()
			cfg := fmt.Sprintf("tickTime=%d\ninitLimit=10\nsyncLimit=5\ndataDir=%s\nclientPort=%d\nclientPortAddress=127.0.0.1\n"+
				"admin.enableServer=false\n4lw.commands.whitelist=srvr\n", s.tick.Milliseconds(), filepath.Join(dir, "data"), lc.client[s.name])
			if len(servers) > 1 {
				for j, o := range servers {
					cfg += fmt.Sprintf("server.%d=127.0.0.1:%d:%d\n", j+1, quorum[o.name][0], quorum[o.name][1])
				}
			}
			if err := os.MkdirAll(filepath.Join(dir, "data"), 0o755); err != nil {
				t.Fatal(err)
			}
			os.WriteFile(filepath.Join(dir, "data", "myid"), []byte(strconv.Itoa(i+1)+"\n"), 0o644)
			os.WriteFile(filepath.Join(dir, "zoo.cfg"), []byte(cfg), 0o644)
			lc.procs[s.name] = &proc{name: s.name, dir: dir,
				argv: []string{java, "-Xmx256m", "-cp", jar, "org.apache.zookeeper.server.quorum.QuorumPeerMain", "zoo.cfg"}}
		}
		lc.startAll(servers)
		return lc
	})
}

// zkVersion is the version of the ZooKeeper jar, from the versioned name
// Debian links to it (zookeeper-3.8.0.jar).
func zkVersion(t *testing.T, jar string) string {
	names, _ := filepath.Glob(filepath.Join(filepath.Dir(jar), "zookeeper-[0-9]*.jar"))
	for _, n := range names {
		if target, err := os.Readlink(n); err == nil && target == filepath.Base(jar) {
			return strings.TrimSuffix(strings.TrimPrefix(filepath.Base(n), "zookeeper-"), ".jar")
		}
	}
	t.Fatalf("cannot tell the version of %s: no zookeeper-VERSION.jar links to it", jar)
	return ""
}

type zkLive struct {
	t      *testing.T
	first  string
	client map[string]int
	procs  map[string]*proc
}

func (z *zkLive) defaultServer() string { return z.first }

// startAll starts the ensemble and waits until it serves; with three servers,
// until the one with the highest id leads, as the model's ensemble starts
// (starting them all again when another won the first election).
func (z *zkLive) startAll(servers []zkServer) {
	last := servers[len(servers)-1].name
	for try := 0; try < 3; try++ {
		for _, s := range servers {
			if err := z.procs[s.name].start(z.t); err != nil {
				z.t.Fatal(err)
			}
		}
		ready := true
		for _, s := range servers {
			if err := z.ready(s.name); err != nil {
				z.t.Fatal(err)
			}
		}
		if len(servers) > 1 {
			mode, _ := zkMode(z.client[last])
			ready = mode == "leader"
		}
		if ready {
			return
		}
		for _, s := range servers {
			z.procs[s.name].kill()
		}
	}
	z.t.Fatalf("the ensemble did not elect %s in three tries", last)
}

// zkMode asks a server for its mode (srvr): leader, follower or standalone.
func zkMode(port int) (string, error) {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(2 * time.Second))
	c.Write([]byte("srvr"))
	b, _ := io.ReadAll(c)
	for _, line := range strings.Split(string(b), "\n") {
		if m, ok := strings.CutPrefix(line, "Mode: "); ok {
			return strings.TrimSpace(m), nil
		}
	}
	return "", fmt.Errorf("no mode in %q", b)
}

// ready waits until the server serves clients.
func (z *zkLive) ready(name string) error {
	return poll(30*time.Second, func() error {
		if !z.procs[name].running() {
			return stop{fmt.Errorf("%s exited:\n%s", name, z.procs[name].log())}
		}
		mode, err := zkMode(z.client[name])
		if err != nil || (mode != "leader" && mode != "follower" && mode != "standalone") {
			return fmt.Errorf("%s is not serving yet (%q, %v)", name, mode, err)
		}
		return nil
	})
}

func (z *zkLive) act(verb, name string) error {
	p, ok := z.procs[name]
	if !ok {
		return fmt.Errorf("no server %s", name)
	}
	return p.act(verb, func() error {
		if err := p.start(z.t); err != nil {
			return err
		}
		return z.ready(name)
	}, nil)
}

func (z *zkLive) connect(name, server string, msgs chan<- liveMsg) (liveConn, error) {
	port, ok := z.client[server]
	if !ok {
		return nil, fmt.Errorf("no server %s", server)
	}
	c := &zkLiveConn{name: name, addr: fmt.Sprintf("127.0.0.1:%d", port), msgs: msgs, stop: make(chan struct{}),
		watches: map[string]int32{}}
	return c, nil
}

// The jute wire protocol: op codes, error codes and event types.
const (
	zkOpCreate      = 1
	zkOpDelete      = 2
	zkOpExists      = 3
	zkOpGetChildren = 8
	zkOpPing        = 11
	zkOpSetWatches  = 101
	zkOpClose       = -11

	zkXidWatch = -1
	zkXidPing  = -2
	zkXidSet   = -8
)

var zkErrors = map[int32]string{-101: "NONODE", -110: "NODEEXISTS", -103: "BADVERSION", -111: "NOTEMPTY",
	-112: "SESSIONEXPIRED", -108: "NOCHILDRENFOREPHEMERALS"}

var zkEvents = map[int32]string{1: "NodeCreated", 2: "NodeDeleted", 3: "NodeDataChanged", 4: "NodeChildrenChanged"}

// Watch kinds, as SetWatches sends them again after a reconnect.
const (
	zkDataWatch  = 1 // exists on a node that exists
	zkExistWatch = 2 // exists on a node that does not
	zkChildWatch = 4
)

// zkLiveConn is a ZooKeeper client: one session, its pings, its reconnects
// with the same session (re-setting its watches), one request at a time.
type zkLiveConn struct {
	name, addr string
	msgs       chan<- liveMsg
	stop       chan struct{}

	mu       sync.Mutex
	c        net.Conn
	session  int64
	passwd   []byte
	timeout  int32
	lastZxid int64
	xid      int32
	pending  map[int32]zkRequest
	watches  map[string]int32 // path -> watch kinds set and not yet fired
	closed   bool
}

func (z *zkLiveConn) reply(kind, text string) {
	z.msgs <- liveMsg{conn: z.name, kind: kind, text: text}
}

func (z *zkLiveConn) close() {
	z.mu.Lock()
	defer z.mu.Unlock()
	if !z.closed {
		z.closed = true
		close(z.stop)
	}
	if z.c != nil {
		z.c.Close()
	}
}

func (z *zkLiveConn) send(cmd string) error {
	r, err := parseZKCommand(cmd)
	if err != nil {
		z.reply(opReply, "error: "+err.Error())
		return nil
	}
	if r.verb == "connect" {
		z.timeout = int32(r.n)
		if err := z.dial(); err != nil {
			return err
		}
		z.reply(opReply, fmt.Sprintf("connected, timeout %d", z.timeout))
		go z.pinger()
		return nil
	}
	var body []byte
	var op int32
	switch r.verb {
	case "create":
		op = zkOpCreate
		flags := int32(0)
		if r.ephemeral {
			flags |= 1
		}
		if r.sequential {
			flags |= 2
		}
		body = juteString(nil, r.path)
		body = juteBuffer(body, nil)
		body = binary.BigEndian.AppendUint32(body, 1) // one ACL: world:anyone, every permission
		body = binary.BigEndian.AppendUint32(body, 31)
		body = juteString(juteString(body, "world"), "anyone")
		body = binary.BigEndian.AppendUint32(body, uint32(flags))
	case "delete":
		op = zkOpDelete
		body = binary.BigEndian.AppendUint32(juteString(nil, r.path), uint32(int32(r.n)))
	case "exists", "children":
		op = zkOpExists
		if r.verb == "children" {
			op = zkOpGetChildren
		}
		body = juteBool(juteString(nil, r.path), r.watch)
	case "close":
		op = zkOpClose
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.c == nil {
		return errors.New("not connected")
	}
	z.xid++
	z.pending[z.xid] = r
	return z.write(z.xid, op, body)
}

// write sends one request (the lock held).
func (z *zkLiveConn) write(xid, op int32, body []byte) error {
	b := binary.BigEndian.AppendUint32(nil, uint32(8+len(body)))
	b = binary.BigEndian.AppendUint32(b, uint32(xid))
	b = binary.BigEndian.AppendUint32(b, uint32(op))
	z.c.SetWriteDeadline(time.Now().Add(2 * time.Second))
	_, err := z.c.Write(append(b, body...))
	return err
}

// dial opens a connection and a session (a new one, or the one it has), then
// reads answers until the connection breaks, when it dials again.
func (z *zkLiveConn) dial() error {
	c, err := net.DialTimeout("tcp", z.addr, time.Second)
	if err != nil {
		return err
	}
	req := binary.BigEndian.AppendUint32(nil, 0) // protocol version
	req = binary.BigEndian.AppendUint64(req, uint64(z.lastZxid))
	req = binary.BigEndian.AppendUint32(req, uint32(z.timeout))
	req = binary.BigEndian.AppendUint64(req, uint64(z.session))
	passwd := z.passwd
	if passwd == nil {
		passwd = make([]byte, 16)
	}
	req = juteBool(juteBuffer(req, passwd), false)
	c.SetDeadline(time.Now().Add(3 * time.Second))
	if _, err := c.Write(append(binary.BigEndian.AppendUint32(nil, uint32(len(req))), req...)); err != nil {
		c.Close()
		return err
	}
	br := bufio.NewReader(c)
	resp, err := readFrame(br)
	if err != nil || len(resp) < 20 {
		c.Close()
		return fmt.Errorf("no session from %s: %v", z.addr, err)
	}
	timeout := int32(binary.BigEndian.Uint32(resp[4:]))
	if timeout <= 0 {
		c.Close()
		return errors.New("session expired")
	}
	c.SetDeadline(time.Time{})
	z.mu.Lock()
	z.timeout, z.session = timeout, int64(binary.BigEndian.Uint64(resp[8:]))
	n := binary.BigEndian.Uint32(resp[16:])
	z.passwd = append([]byte(nil), resp[20:20+n]...)
	z.c, z.pending = c, map[int32]zkRequest{}
	if len(z.watches) > 0 { // the old connection's watches are gone: set them again
		var kinds [3][]string
		for p, k := range z.watches {
			for i, bit := range []int32{zkDataWatch, zkExistWatch, zkChildWatch} {
				if k&bit != 0 {
					kinds[i] = append(kinds[i], p)
				}
			}
		}
		body := binary.BigEndian.AppendUint64(nil, uint64(z.lastZxid))
		for _, ps := range kinds {
			body = binary.BigEndian.AppendUint32(body, uint32(len(ps)))
			for _, p := range ps {
				body = juteString(body, p)
			}
		}
		z.write(zkXidSet, zkOpSetWatches, body)
	}
	z.mu.Unlock()
	go z.read(c, br)
	return nil
}

// pinger pings every third of the session timeout, and reconnects a broken
// connection with the same session, until the connection is closed.
func (z *zkLiveConn) pinger() {
	for {
		select {
		case <-z.stop:
			return
		case <-time.After(time.Duration(z.timeout) * time.Millisecond / 3):
		}
		z.mu.Lock()
		c := z.c
		if c != nil {
			z.write(zkXidPing, zkOpPing, nil)
		}
		z.mu.Unlock()
		if c == nil {
			for z.dial() != nil {
				select {
				case <-z.stop:
					return
				case <-time.After(100 * time.Millisecond):
				}
			}
		}
	}
}

func (z *zkLiveConn) read(c net.Conn, br *bufio.Reader) {
	defer func() {
		z.mu.Lock()
		if z.c == c {
			z.c = nil
		}
		z.mu.Unlock()
		c.Close()
	}()
	for {
		b, err := readFrame(br)
		if err != nil || len(b) < 16 {
			return
		}
		xid, zxid, code := int32(binary.BigEndian.Uint32(b)), int64(binary.BigEndian.Uint64(b[4:])), int32(binary.BigEndian.Uint32(b[12:]))
		body := b[16:]
		z.mu.Lock()
		if zxid > 0 {
			z.lastZxid = max(z.lastZxid, zxid)
		}
		switch xid {
		case zkXidPing, zkXidSet:
			z.mu.Unlock()
			continue
		case zkXidWatch:
			typ, path := int32(binary.BigEndian.Uint32(body)), juteReadString(body[8:])
			delete(z.watches, path) // one-shot: every kind on the path has fired or is gone
			z.mu.Unlock()
			z.reply(opEvent, "WATCH "+zkEvents[typ]+" "+path)
			continue
		}
		r, ok := z.pending[xid]
		delete(z.pending, xid)
		text := "closed"
		switch {
		case !ok:
		case code != 0:
			name, known := zkErrors[code]
			if !known {
				name = strconv.Itoa(int(code))
			}
			text = "error " + name
			if r.watch && r.verb == "exists" && code == -101 {
				z.watches[r.path] |= zkExistWatch
			}
		case r.verb == "create":
			text = "created " + juteReadString(body)
		case r.verb == "delete":
			text = "deleted"
		case r.verb == "exists":
			text = "exists"
			if r.watch {
				z.watches[r.path] |= zkDataWatch
			}
		case r.verb == "children":
			n := int(binary.BigEndian.Uint32(body))
			var kids []string
			for i, off := 0, 4; i < n; i++ {
				s := juteReadString(body[off:])
				kids = append(kids, s)
				off += 4 + len(s)
			}
			text = "[" + strings.Join(kids, " ") + "]"
			if r.watch {
				z.watches[r.path] |= zkChildWatch
			}
		}
		z.mu.Unlock()
		if ok {
			z.reply(opReply, text)
		}
	}
}

func readFrame(br *bufio.Reader) ([]byte, error) {
	var n uint32
	if err := binary.Read(br, binary.BigEndian, &n); err != nil {
		return nil, err
	}
	if n > 1<<20 {
		return nil, fmt.Errorf("a frame of %d bytes", n)
	}
	b := make([]byte, n)
	_, err := io.ReadFull(br, b)
	return b, err
}

func juteString(b []byte, s string) []byte {
	return append(binary.BigEndian.AppendUint32(b, uint32(len(s))), s...)
}

func juteBuffer(b, data []byte) []byte {
	if data == nil {
		return binary.BigEndian.AppendUint32(b, ^uint32(0)) // -1: no buffer
	}
	return append(binary.BigEndian.AppendUint32(b, uint32(len(data))), data...)
}

func juteBool(b []byte, v bool) []byte {
	if v {
		return append(b, 1)
	}
	return append(b, 0)
}

func juteReadString(b []byte) string {
	n := int(int32(binary.BigEndian.Uint32(b)))
	if n < 0 {
		return ""
	}
	return string(b[4 : 4+n])
}
