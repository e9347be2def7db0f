//go:build !js

package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A Go runtime fatal error (out of memory, a stack overflow, a panic on a
// worker goroutine that no recover sees) ends a process with exit status 2,
// which locksim documents as "bad input". So Main runs the command line in a
// child process of the same binary, which reports its exit code on a pipe as
// it exits; a child that ends without reporting it crashed, and the parent says
// so and exits 3, a bug (issue 32). A child killed by a signal someone sent
// (Ctrl-C, a closed pipe, a timeout's SIGTERM) ends the parent by that signal.

// supervisedEnv names the pipe's file descriptor in the child's environment.
const supervisedEnv = "LOCKSIM_SUPERVISED"

// supervise runs the command line in a child process and returns its exit
// code; ok is false when the command line is to run in this process: in the
// child itself, or when no child could be started.
func supervise() (code int, ok bool) {
	if os.Getenv(supervisedEnv) != "" || os.Getenv("LOCKSIM_NO_SUPERVISOR") != "" {
		return 0, false
	}
	exe, err := os.Executable()
	if err != nil {
		return 0, false
	}
	r, w, err := os.Pipe()
	if err != nil {
		return 0, false
	}
	cmd := exec.Command(exe, os.Args[1:]...)
	cmd.Args[0] = os.Args[0]
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	cmd.ExtraFiles = []*os.File{w} // fd 3 in the child
	cmd.Env = append(os.Environ(), supervisedEnv+"=3")
	// The terminal sends Ctrl-C and Ctrl-\ to the child as well; the parent
	// waits for it. A signal sent to the parent alone is passed on.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, os.Interrupt, syscall.SIGQUIT, syscall.SIGTERM, syscall.SIGHUP)
	err = cmd.Start()
	// A binary just written may be busy for a moment while another process
	// that forked meanwhile still holds it open (golang.org/issue/22315).
	for try := 1; errors.Is(err, syscall.ETXTBSY) && try < 10; try++ {
		time.Sleep(time.Duration(try) * 10 * time.Millisecond)
		err = cmd.Start()
	}
	if err != nil {
		signal.Stop(sigs)
		r.Close()
		w.Close()
		return 0, false
	}
	w.Close()
	go func() {
		for s := range sigs {
			if s == syscall.SIGTERM || s == syscall.SIGHUP {
				cmd.Process.Signal(s)
			}
		}
	}()
	said, _ := io.ReadAll(r) // until the child exits: its end of the pipe closes
	r.Close()
	err = cmd.Wait()
	signal.Stop(sigs)
	if n, err := strconv.Atoi(strings.TrimSpace(string(said))); err == nil {
		return n, true
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			switch sig := ws.Signal(); sig {
			case syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP, syscall.SIGPIPE:
				signal.Reset(sig)
				syscall.Kill(os.Getpid(), sig)
				return 128 + int(sig), true
			default:
				fmt.Fprintf(os.Stderr, "%s: stopped by %v before it finished (SIGKILL is often the system running out of memory)\n  this is a bug in locksim, or the machine ran out of memory: exit 3\n", cmdName(), sig)
				return exitInternal, true
			}
		}
	}
	fmt.Fprintf(os.Stderr, "%s: crashed before it finished (%v): a Go runtime error, above\n  this is a bug in locksim. Please report it with the scenario file and this command: %s %s\n",
		cmdName(), err, cmdName(), strings.Join(os.Args[1:], " "))
	return exitInternal, true
}

// reportExit tells a supervising parent the exit code, as the child's last act.
func reportExit(code int) {
	if fd, err := strconv.Atoi(os.Getenv(supervisedEnv)); err == nil && fd > 2 {
		f := os.NewFile(uintptr(fd), "supervisor")
		fmt.Fprintln(f, code)
		f.Close()
	}
}

func cmdName() string {
	if len(os.Args) > 0 {
		return strings.TrimSuffix(lastElem(os.Args[0]), ".exe")
	}
	return "locksim"
}

func lastElem(p string) string {
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		return p[i+1:]
	}
	return p
}
