//go:build realservers

package fidelity

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/redis"
)

// TestRedisLive compares the Redis node with redis-server.
func TestRedisLive(t *testing.T) {
	bin := need(t, "redis-server", "redis-server", "redis-server")
	version := versionOf(t, bin, "--version")
	sys := systems[systemIndex("redis")]
	liveSuite(t, sys, "redis-server "+version, "redis-"+version+".txt", func(t *testing.T, c fcase) liveCase {
		servers, err := redisConfig(c.config)
		if err != nil {
			t.Fatal(err)
		}
		lc := &redisLive{t: t, bin: bin, ports: map[string]int{}, procs: map[string]*proc{}}
		for _, s := range servers {
			lc.ports[s.name] = freePort(t)
			p := &proc{name: s.name, dir: t.TempDir(), argv: lc.argv(s)}
			lc.procs[s.name] = p
			if lc.first == "" {
				lc.first = s.name
			}
			if err := lc.boot(s.name); err != nil {
				t.Fatal(err)
			}
		}
		for _, s := range servers {
			if s.set["replica-of"] != "" {
				if err := lc.synced(s.name); err != nil {
					t.Fatal(err)
				}
			}
		}
		return lc
	})
}

func systemIndex(name string) int {
	for i, s := range systems {
		if s.name == name {
			return i
		}
	}
	panic("no system " + name)
}

type redisLive struct {
	t     *testing.T
	bin   string
	first string
	ports map[string]int
	procs map[string]*proc
}

func (r *redisLive) argv(s configServer) []string {
	argv := []string{r.bin, "--port", strconv.Itoa(r.ports[s.name]), "--bind", "127.0.0.1", "--dir", ".",
		"--save", "", "--daemonize", "no", "--appendonly", "no", "--repl-diskless-sync-delay", "0",
		// The master pings its replicas through the replication stream every 10 s;
		// the model's stream carries writes only, and a ping landing in a case
		// would move what a WAIT waits for. One an hour keeps them out.
		"--repl-ping-replica-period", "3600"}
	if fsync := s.set["appendfsync"]; fsync != "" {
		argv = append(argv, "--appendonly", "yes", "--appendfsync", fsync)
	}
	if of := s.set["replica-of"]; of != "" {
		argv = append(argv, "--replicaof", "127.0.0.1", strconv.Itoa(r.ports[of]))
	}
	return argv
}

func (r *redisLive) defaultServer() string { return r.first }

// boot starts a server and waits until it answers PING.
func (r *redisLive) boot(name string) error {
	p := r.procs[name]
	if err := p.start(r.t); err != nil {
		return err
	}
	err := poll(10*time.Second, func() error {
		_, err := r.call(name, "PING")
		return err
	})
	if err != nil {
		return fmt.Errorf("%s did not answer PING: %v\n%s", name, err, p.log())
	}
	return nil
}

// synced waits until a replica's link to its master is up, and then until the
// master streams writes to it: after a diskless full sync, Redis 7.0 puts the
// replica online but starts the stream only at the replica's first REPLCONF
// ACK, which its once-a-second cron may send up to a second later
// (repl_start_cmd_stream_on_ack). Until then a write, or a WAIT's GETACK,
// waits in the master's buffer; the model's replica is streamed to at once.
func (r *redisLive) synced(name string) error {
	defer time.Sleep(1100 * time.Millisecond)
	return poll(10*time.Second, func() error {
		info, err := r.call(name, "INFO", "replication")
		if err != nil {
			return err
		}
		if !strings.Contains(info, "master_link_status:up") {
			return fmt.Errorf("%s is not in sync with its master yet", name)
		}
		return nil
	})
}

// call sends one command on a fresh connection and returns the reply's text.
func (r *redisLive) call(server string, argv ...string) (string, error) {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", r.ports[server]), time.Second)
	if err != nil {
		return "", err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Write(respCommand(argv)); err != nil {
		return "", err
	}
	return readRESP(bufio.NewReader(c))
}

func (r *redisLive) act(verb, name string) error {
	p, ok := r.procs[name]
	if !ok {
		return fmt.Errorf("no server %s", name)
	}
	return p.act(verb, func() error { return r.boot(name) }, func() error {
		r.call(name, "SHUTDOWN") // the server exits without answering
		return nil
	})
}

func (r *redisLive) connect(name, server string, msgs chan<- liveMsg) (liveConn, error) {
	if _, ok := r.ports[server]; !ok {
		return nil, fmt.Errorf("no server %s", server)
	}
	return &respConn{name: name, addr: fmt.Sprintf("127.0.0.1:%d", r.ports[server]), msgs: msgs}, nil
}

// respConn is a Redis connection: a RESP client that reconnects once its
// server has gone away, as client libraries do.
type respConn struct {
	redialer
	name, addr string
	msgs       chan<- liveMsg
	sent       []string // commands awaiting replies, in order
}

func (r *respConn) send(cmd string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	c, fresh, err := r.conn(func() (net.Conn, error) { return net.DialTimeout("tcp", r.addr, time.Second) }, r.read)
	if err != nil {
		return err
	}
	if fresh {
		r.sent = nil
	}
	r.sent = append(r.sent, cmd)
	_, err = c.Write(respCommand(redisArgv(cmd)))
	return err
}

func (r *respConn) read(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		text, err := readRESP(br)
		r.mu.Lock()
		if err != nil {
			r.broken(c)
			r.mu.Unlock()
			return
		}
		cmd := ""
		if len(r.sent) > 0 {
			cmd, r.sent = r.sent[0], r.sent[1:]
		}
		r.mu.Unlock()
		r.msgs <- liveMsg{conn: r.name, kind: opReply, text: normalizeRedis(cmd, text)}
	}
}

func respCommand(argv []string) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "*%d\r\n", len(argv))
	for _, a := range argv {
		fmt.Fprintf(&b, "$%d\r\n%s\r\n", len(a), a)
	}
	return []byte(b.String())
}

// readRESP reads one reply and writes it as the model writes its replies:
// +OK, (nil), (integer) 1, (bulk) v, (error) ERR ...
func readRESP(br *bufio.Reader) (string, error) {
	line, err := br.ReadString('\n')
	if err != nil {
		return "", err
	}
	line = strings.TrimSuffix(line, "\r\n")
	if line == "" {
		return "", fmt.Errorf("an empty RESP line")
	}
	switch body := line[1:]; line[0] {
	case '+':
		return line, nil
	case '-':
		return redis.ReplyErr + " " + body, nil
	case ':':
		return redis.ReplyInt + " " + body, nil
	case '$':
		n, err := strconv.Atoi(body)
		if err != nil {
			return "", err
		}
		if n < 0 {
			return redis.ReplyNil, nil
		}
		buf := make([]byte, n+2)
		if _, err := io.ReadFull(br, buf); err != nil {
			return "", err
		}
		return redis.ReplyBulk + " " + string(buf[:n]), nil
	case '*':
		n, err := strconv.Atoi(body)
		if err != nil || n < 0 {
			return redis.ReplyNil, err
		}
		parts := make([]string, n)
		for i := range parts {
			if parts[i], err = readRESP(br); err != nil {
				return "", err
			}
		}
		return "(array) [" + strings.Join(parts, ", ") + "]", nil
	}
	return "", fmt.Errorf("unknown RESP reply %q", line)
}
