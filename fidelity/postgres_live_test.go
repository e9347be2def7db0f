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
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/locksim/locksim/protocols/dblock"
)

// TestPostgreSQLLive compares the database model with PostgreSQL, through a
// small client of PostgreSQL's simple-query protocol written here.
func TestPostgreSQLLive(t *testing.T) {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/postgres")
	bin := need(t, "PostgreSQL", "postgresql", append([]string{"postgres"}, bins...)...)
	dir := filepath.Dir(bin)
	need(t, "PostgreSQL's initdb", "postgresql", filepath.Join(dir, "initdb"))
	version := versionOf(t, bin, "--version")
	var as *user.User
	if os.Geteuid() == 0 { // PostgreSQL refuses to run as root: run it as postgres
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Skipf("SKIPPED: running as root and there is no postgres user to run PostgreSQL as: %v", err)
		}
		as = u
	}
	template := tempDir(t, as)
	initdb := &proc{name: "initdb", dir: template, as: as, argv: []string{filepath.Join(dir, "initdb"), "-D", "data",
		"-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"}}
	if err := initdb.start(t); err != nil {
		t.Fatal(err)
	}
	if err := initdb.wait(60 * time.Second); err != nil || initdb.cmd.ProcessState.ExitCode() != 0 {
		t.Fatalf("initdb failed: %v\n%s", err, initdb.log())
	}
	liveSuite(t, systems[systemIndex("postgresql")], "PostgreSQL "+version, "postgresql-"+version+".txt", func(t *testing.T, c fcase) liveCase {
		cfg, err := parsePGConfig(c.config)
		if err != nil {
			t.Fatal(err)
		}
		caseDir := tempDir(t, as)
		if out, err := exec.Command("cp", "-a", filepath.Join(template, "data"), caseDir).CombinedOutput(); err != nil {
			t.Fatalf("copying the database: %v\n%s", err, out)
		}
		lc := &pgLive{t: t, cfg: cfg, port: freePort(t)}
		argv := []string{bin, "-D", "data", "-p", strconv.Itoa(lc.port), "-k", caseDir, "-c", "listen_addresses=127.0.0.1"}
		if cfg.lockTimeout > 0 {
			argv = append(argv, "-c", fmt.Sprintf("lock_timeout=%d", cfg.lockTimeout.Milliseconds()))
		}
		lc.proc = &proc{name: cfg.name, dir: caseDir, as: as, argv: argv}
		if err := lc.boot(); err != nil {
			t.Fatal(err)
		}
		setup := []string{"CREATE TABLE locks (name text PRIMARY KEY, owner text, locked_until timestamptz, " +
			"version bigint NOT NULL DEFAULT 1, value bigint NOT NULL DEFAULT 0)", "CREATE SEQUENCE fence"}
		for _, r := range cfg.rows {
			setup = append(setup, fmt.Sprintf("INSERT INTO locks (name) VALUES ('%s')", r))
		}
		if _, err := lc.exec(setup...); err != nil {
			t.Fatal(err)
		}
		return lc
	})
}

type pgLive struct {
	t    *testing.T
	cfg  pgConfig
	port int
	proc *proc
}

func (p *pgLive) defaultServer() string { return p.cfg.name }

// boot starts the server and waits until it answers a query.
func (p *pgLive) boot() error {
	if err := p.proc.start(p.t); err != nil {
		return err
	}
	return poll(30*time.Second, func() error {
		if !p.proc.running() {
			return stop{fmt.Errorf("postgres exited:\n%s", p.proc.log())}
		}
		_, err := p.exec("SELECT 1")
		return err
	})
}

// exec runs statements on a fresh connection and returns the last one's result.
func (p *pgLive) exec(sql ...string) (pgResult, error) {
	c, err := dialPG(p.port)
	if err != nil {
		return pgResult{}, err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReader(c)
	var last pgResult
	for _, q := range sql {
		c.Write(pgQuery(q))
		rs, err := readPGResults(br)
		if err != nil {
			return last, err
		}
		last = rs[len(rs)-1]
		if last.errCode != "" {
			return last, fmt.Errorf("%s: ERROR %s %s", q, last.errCode, last.errMsg)
		}
	}
	return last, nil
}

func (p *pgLive) act(verb, name string) error {
	if name != p.cfg.name {
		return fmt.Errorf("no database %s", name)
	}
	if verb == "crash" { // immediate shutdown: no checkpoint, crash recovery at the restart
		if err := p.proc.signal(syscall.SIGQUIT); err != nil {
			return err
		}
		return p.proc.wait(30 * time.Second)
	}
	// shutdown is the fast shutdown: a checkpoint, then exit.
	return p.proc.act(verb, p.boot, func() error { return p.proc.signal(syscall.SIGINT) })
}

func (p *pgLive) connect(name, server string, msgs chan<- liveMsg) (liveConn, error) {
	if server != p.cfg.name {
		return nil, fmt.Errorf("no database %s", server)
	}
	return &pgLiveConn{name: name, port: p.port, msgs: msgs}, nil
}

// pgLiveConn is one client connection, made again after the server restarted.
type pgLiveConn struct {
	redialer
	name    string
	port    int
	msgs    chan<- liveMsg
	pending []*dblock.Stmt // statements sent, awaiting their results
}

func (p *pgLiveConn) send(cmd string) error {
	s, err := parsePGCommand(cmd)
	if err != nil {
		p.msgs <- liveMsg{conn: p.name, kind: opReply, text: "error: " + err.Error()}
		return nil
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	c, fresh, err := p.conn(func() (net.Conn, error) { return dialPG(p.port) }, p.read)
	if err != nil {
		return err
	}
	if fresh {
		p.pending = nil
	}
	p.pending = append(p.pending, s)
	_, err = c.Write(pgQuery(strings.Join(s.SQL(), "; ")))
	return err
}

func (p *pgLiveConn) read(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		rs, err := readPGResults(br)
		p.mu.Lock()
		if err != nil {
			p.broken(c)
			p.mu.Unlock()
			return
		}
		var s *dblock.Stmt
		if len(p.pending) > 0 {
			s, p.pending = p.pending[0], p.pending[1:]
		}
		p.mu.Unlock()
		if s != nil {
			p.msgs <- liveMsg{conn: p.name, kind: opReply, text: pgLiveReply(s, rs)}
		}
	}
}

// pgLiveReply is a statement's results as the model's replies read: the tag of
// the statement itself (not BEGIN), and the values the last statement returned
// (a fence, a row read) unless that is the FOR UPDATE, whose row is not read.
func pgLiveReply(s *dblock.Stmt, rs []pgResult) string {
	last := rs[len(rs)-1]
	if last.errCode != "" {
		return fmt.Sprintf("ERROR %s %s", last.errCode, last.errMsg)
	}
	main := rs[0]
	if main.tag == "BEGIN" && len(rs) > 1 {
		main = rs[1]
	}
	text := main.tag
	if len(s.SQL()) == len(rs) && (s.Kind != dblock.StForUpdate || s.Fence) && len(last.rows) == 1 {
		text += " [" + strings.Join(last.rows[0], " ") + "]"
	}
	return text
}

// pgResult is one statement's result: its tag and rows, or its error.
type pgResult struct {
	tag             string
	rows            [][]string
	errCode, errMsg string
}

func dialPG(port int) (net.Conn, error) {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), time.Second)
	if err != nil {
		return nil, err
	}
	body := binary.BigEndian.AppendUint32(nil, 196608) // protocol 3.0
	for _, kv := range []string{"user", "postgres", "database", "postgres"} {
		body = append(append(body, kv...), 0)
	}
	body = append(body, 0)
	c.SetDeadline(time.Now().Add(5 * time.Second))
	c.Write(append(binary.BigEndian.AppendUint32(nil, uint32(4+len(body))), body...))
	br := bufio.NewReader(c)
	for { // authentication (trust), parameters, until ready for a query
		typ, msg, err := readPGMessage(br)
		if err != nil {
			c.Close()
			return nil, err
		}
		switch typ {
		case 'E':
			c.Close()
			code, m := pgError(msg)
			return nil, fmt.Errorf("ERROR %s %s", code, m)
		case 'R':
			if binary.BigEndian.Uint32(msg) != 0 {
				c.Close()
				return nil, errors.New("the server asks for a password: trust authentication expected")
			}
		case 'Z':
			c.SetDeadline(time.Time{})
			if br.Buffered() > 0 {
				c.Close()
				return nil, errors.New("unexpected bytes after ReadyForQuery")
			}
			return c, nil
		}
	}
}

func pgQuery(q string) []byte {
	b := []byte{'Q'}
	b = binary.BigEndian.AppendUint32(b, uint32(4+len(q)+1))
	return append(append(b, q...), 0)
}

// readPGResults reads one simple query's results, up to ReadyForQuery.
func readPGResults(br *bufio.Reader) ([]pgResult, error) {
	var rs []pgResult
	cur := pgResult{}
	for {
		typ, msg, err := readPGMessage(br)
		if err != nil {
			return nil, err
		}
		switch typ {
		case 'D':
			n := int(binary.BigEndian.Uint16(msg))
			row, off := make([]string, n), 2
			for i := range row {
				l := int(int32(binary.BigEndian.Uint32(msg[off:])))
				off += 4
				if l >= 0 {
					row[i] = string(msg[off : off+l])
					off += l
				}
			}
			cur.rows = append(cur.rows, row)
		case 'C':
			cur.tag = strings.TrimRight(string(msg), "\x00")
			rs = append(rs, cur)
			cur = pgResult{}
		case 'E':
			cur.errCode, cur.errMsg = pgError(msg)
			rs = append(rs, cur)
			cur = pgResult{}
		case 'Z':
			if len(rs) == 0 {
				rs = append(rs, pgResult{tag: "EMPTY"})
			}
			return rs, nil
		}
	}
}

func readPGMessage(br *bufio.Reader) (byte, []byte, error) {
	typ, err := br.ReadByte()
	if err != nil {
		return 0, nil, err
	}
	var n uint32
	if err := binary.Read(br, binary.BigEndian, &n); err != nil {
		return 0, nil, err
	}
	if n < 4 || n > 1<<24 {
		return 0, nil, fmt.Errorf("a message of %d bytes", n)
	}
	msg := make([]byte, n-4)
	_, err = io.ReadFull(br, msg)
	return typ, msg, err
}

// pgError reads an ErrorResponse's SQLSTATE and message.
func pgError(msg []byte) (code, text string) {
	for _, f := range strings.Split(string(msg), "\x00") {
		if len(f) < 2 {
			continue
		}
		switch f[0] {
		case 'C':
			code = f[1:]
		case 'M':
			text = f[1:]
		}
	}
	return code, text
}
