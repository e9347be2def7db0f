//go:build realservers

package fidelity

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The live suite: go test -tags realservers ./fidelity [-update]. Each test
// finds its server's binaries (or skips, naming what is missing), starts the
// servers of each case on free loopback ports in t.TempDir(), plays the case
// against them and against the model, and stops them by pid when the case
// ends. It installs nothing.

var update = flag.Bool("update", false, "write what the real servers answer to testdata/fidelity/<server>-<version>.txt")

// A liveMsg is something a real server sent on a connection.
type liveMsg struct {
	conn, kind, text string // kind: opReply or opEvent
}

// A liveConn is one client connection to a real server. send must not block on
// the answer: answers come on the runner's channel.
type liveConn interface {
	send(cmd string) error
	close() // abruptly, as when the client process dies
}

// A liveCase is a case's real servers, running.
type liveCase interface {
	connect(conn, server string, msgs chan<- liveMsg) (liveConn, error)
	act(verb, proc string) error // crash, restart, shutdown, pause, resume
	defaultServer() string
}

// A refuser is a liveCase some of whose servers refused to start.
type refuser interface{ refusals() []string }

// runLive plays the steps against real servers, with the model's timing.
func runLive(t *testing.T, lc liveCase, steps []step) transcript {
	t.Helper()
	if r, ok := lc.(refuser); ok && len(r.refusals()) > 0 {
		return refusedTranscript(r.refusals(), steps)
	}
	msgs := make(chan liveMsg, 4096)
	conns := map[string]liveConn{}
	t.Cleanup(func() {
		for _, c := range conns {
			c.close()
		}
	})
	opened := map[string]bool{} // connections used so far, closed ones included
	var tr transcript
	for _, s := range steps {
		a := arrival{own: s.conn}
		// collect takes what arrives until the deadline, or until the
		// stepping connection's own answer when own is set.
		collect := func(d time.Duration, own bool) bool {
			timer := time.NewTimer(d)
			defer timer.Stop()
			for {
				select {
				case m := <-msgs:
					a.add(m.conn, m.text)
					if own && m.kind == opReply && m.conn == s.conn {
						return true
					}
				case <-timer.C:
					return false
				}
			}
		}
		switch {
		case s.conn != "":
			c, ok := conns[s.conn]
			if !ok {
				var err error
				if c, err = lc.connect(s.conn, s.server(lc.defaultServer()), msgs); err != nil {
					t.Fatalf("%s: connecting: %v", s.text, err)
				}
				conns[s.conn] = c
			}
			opened[s.conn] = true
			if err := c.send(s.cmd); err != nil {
				t.Fatalf("%s: %v", s.text, err)
			}
			if collect(blockWait, true) && len(opened) > 1 {
				collect(grace, false) // what the command set off at the others
			}
		case s.verb == "sleep":
			collect(s.dur, false)
		case s.verb == "close":
			if c, ok := conns[s.arg]; ok {
				c.close()
				delete(conns, s.arg)
			}
			collect(grace, false) // what the action sets off comes during it
		default:
			if err := lc.act(s.verb, s.arg); err != nil {
				t.Fatalf("%s: %v", s.text, err)
			}
			collect(grace, false)
		}
		collect(stepGap, false)
		tr = append(tr, result{step: s.text, replies: a.replies()})
	}
	return tr
}

// liveSuite runs every case of sys against real servers and the model; with
// -update it writes the recording.
func liveSuite(t *testing.T, sys system, version, file string, start func(t *testing.T, c fcase) liveCase) {
	t.Logf("live fidelity suite: %s against the model", version)
	got := make([]transcript, len(sys.cases))
	for i, c := range sys.cases {
		t.Run(c.name, func(t *testing.T) {
			steps, err := parseScript(c.script)
			if err != nil {
				t.Fatal(err)
			}
			got[i] = runLive(t, start(t, c), steps)
			model, err := sys.model(c, steps)
			if err != nil {
				t.Fatal(err)
			}
			var msg string
			if want, err := expected(c, got[i].String()); err != nil {
				msg = fmt.Sprintf("%s: %v\nthe recording:\n%s", version, err, got[i])
			} else if model.String() != want {
				msg = fmt.Sprintf("the model differs from %s:\n%s", version, diff(want, model.String()))
			}
			switch {
			case msg == "":
			case c.timing:
				t.Logf("a timing case, recorded but not held to one run: %s", msg)
			default:
				t.Error(msg)
			}
		})
	}
	for _, tr := range got {
		if tr == nil {
			t.Logf("not every case ran: %s is not rewritten", file)
			return
		}
	}
	if *update {
		path := filepath.Join(fixtureDir, file)
		if err := writeFixture(path, version, sys.cases, got); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s", path)
	}
}

// writeFixture writes what a server answered, with a header that says how it
// was recorded.
func writeFixture(path, version string, cases []fcase, got []transcript) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s on loopback: what it answered to each case of package fidelity.\n", version)
	b.WriteString("# Recorded by `scripts/fidelity -update`; `go test ./fidelity` replays every case on the\n")
	b.WriteString("# model and compares. Lines under a step are what came back during it, the sender's first.\n")
	for i, c := range cases {
		fmt.Fprintf(&b, "\n== %s\nconfig: %s\n%s", c.name, c.config, got[i])
	}
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

// need finds a server's binary on PATH (or at one of paths), or skips the test
// loudly, naming what is missing.
func need(t *testing.T, what, pkg string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if filepath.IsAbs(n) {
			if _, err := os.Stat(n); err == nil {
				return n
			}
			continue
		}
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("SKIPPED: %s is not installed (looked for %s); the live fidelity suite did not run against it. "+
		"Install it with: apt-get install -y %s", what, strings.Join(names, ", "), pkg)
	fmt.Fprintln(os.Stderr, "fidelity: "+msg)
	t.Skip(msg)
	return ""
}

// freePort is a TCP port on 127.0.0.1 nobody listens on now.
func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// A proc is one server process we started: we stop it by its pid.
type proc struct {
	name string
	argv []string
	dir  string // its working directory (its log goes there)
	as   *user.User
	cmd  *exec.Cmd
	done chan struct{}
}

// start runs the process, logging to dir/<name>.log; t.Cleanup kills it.
func (p *proc) start(t *testing.T) error {
	log, err := os.OpenFile(filepath.Join(p.dir, p.name+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	p.cmd = exec.Command(p.argv[0], p.argv[1:]...)
	p.cmd.Dir, p.cmd.Stdout, p.cmd.Stderr = p.dir, log, log
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if p.as != nil {
		uid, _ := strconv.Atoi(p.as.Uid)
		gid, _ := strconv.Atoi(p.as.Gid)
		p.cmd.SysProcAttr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	if err := p.cmd.Start(); err != nil {
		log.Close()
		return err
	}
	p.done = make(chan struct{})
	cmd, done := p.cmd, p.done
	go func() { cmd.Wait(); log.Close(); close(done) }()
	t.Cleanup(func() { p.kill() })
	return nil
}

func (p *proc) running() bool {
	if p.done == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

// signal sends sig to the process by its pid.
func (p *proc) signal(sig syscall.Signal) error {
	if !p.running() {
		return fmt.Errorf("%s is not running", p.name)
	}
	return syscall.Kill(p.cmd.Process.Pid, sig)
}

// kill stops the process at once (kill -9 by its pid) and waits for it.
func (p *proc) kill() {
	if p.running() {
		syscall.Kill(p.cmd.Process.Pid, syscall.SIGCONT) // a paused process dies too
		syscall.Kill(p.cmd.Process.Pid, syscall.SIGKILL)
	}
	p.wait(10 * time.Second)
}

// wait waits up to d for the process to exit.
func (p *proc) wait(d time.Duration) error {
	if p.done == nil {
		return nil
	}
	select {
	case <-p.done:
		return nil
	case <-time.After(d):
		return fmt.Errorf("%s did not exit within %s", p.name, d)
	}
}

// act does a script's action to the process: crash is a kill -9, pause and
// resume are SIGSTOP and SIGCONT, restart calls boot (start it and wait until
// it serves), shutdown calls stop (the server's own clean shutdown) and waits
// for it to exit.
func (p *proc) act(verb string, boot, stop func() error) error {
	switch {
	case verb == "crash":
		p.kill()
		return nil
	case verb == "restart":
		return boot()
	case verb == "shutdown" && stop != nil:
		if err := stop(); err != nil {
			return err
		}
		return p.wait(30 * time.Second)
	case verb == "pause":
		return p.signal(syscall.SIGSTOP)
	case verb == "resume":
		return p.signal(syscall.SIGCONT)
	}
	return fmt.Errorf("no action %s for %s", verb, p.name)
}

// log is the tail of the process's log, for failure messages.
func (p *proc) log() string {
	b, _ := os.ReadFile(filepath.Join(p.dir, p.name+".log"))
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}

// A redialer holds a client's connection to a server and dials again on the
// next send once the server dropped it (a restart), as client libraries do.
type redialer struct {
	mu sync.Mutex
	c  net.Conn
}

// conn returns the connection, dialling a new one (and reading it in its own
// goroutine) when there is none; fresh says it is new. The lock is held.
func (r *redialer) conn(dial func() (net.Conn, error), read func(net.Conn)) (c net.Conn, fresh bool, err error) {
	if r.c != nil {
		return r.c, false, nil
	}
	if c, err = dial(); err != nil {
		return nil, false, err
	}
	r.c = c
	go read(c)
	return c, true, nil
}

// broken forgets c, if it is still the connection, when its reader found it
// broken. The lock is held.
func (r *redialer) broken(c net.Conn) {
	if r.c == c {
		r.c = nil
	}
	c.Close()
}

// close drops the connection without a word, as a killed client does.
func (r *redialer) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.c != nil {
		r.c.Close()
		r.c = nil
	}
}

// poll calls f until it succeeds, fails for good (a stop error), or d has passed.
func poll(d time.Duration, f func() error) error {
	deadline := time.Now().Add(d)
	for {
		err := f()
		var s stop
		if err == nil || errors.As(err, &s) || time.Now().After(deadline) {
			return err
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// stop is an error poll does not retry: the server has exited.
type stop struct{ error }

// tempDir is a directory for a server's data, writable by the user it runs as.
func tempDir(t *testing.T, as *user.User) string {
	dir := t.TempDir()
	if as != nil {
		uid, _ := strconv.Atoi(as.Uid)
		gid, _ := strconv.Atoi(as.Gid)
		for d := dir; d != "/" && d != os.TempDir(); d = filepath.Dir(d) {
			os.Chmod(d, 0o755) // let the server's user reach its directory
		}
		os.Chown(dir, uid, gid)
	}
	return dir
}

// versionOf runs a binary with args and returns the first match of the
// version in its output (the first word that starts with a digit).
func versionOf(t *testing.T, bin string, args ...string) string {
	out, err := exec.Command(bin, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out)
	}
	for _, w := range strings.FieldsFunc(string(out), func(r rune) bool { return r == ' ' || r == '\n' || r == '=' || r == ',' }) {
		w = strings.TrimPrefix(w, "v")
		if w != "" && w[0] >= '0' && w[0] <= '9' && strings.Contains(w, ".") {
			return w
		}
	}
	t.Fatalf("no version in the output of %s %s:\n%s", bin, strings.Join(args, " "), out)
	return ""
}
