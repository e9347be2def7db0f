//go:build unix

package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A named pipe nothing writes to is refused after pipeWait, not waited on for
// ever (`locksim run FIFO` blocked in open()); one that is written is read.
func TestANamedPipeIsReadOrRefusedNeverWaitedOnForEver(t *testing.T) {
	old := pipeWait
	pipeWait = 200 * time.Millisecond // the refusal is what is tested, not the wait
	defer func() { pipeWait = old }()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo\x1b[2J")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	_, err := Load(fifo)
	if err == nil || !strings.Contains(err.Error(), "is a named pipe (FIFO), and nothing wrote to it within 200ms") || strings.Contains(err.Error(), "\x1b") {
		t.Fatalf("a FIFO nobody writes: %v", err)
	}
	fifo = filepath.Join(dir, "written") // a pipe of its own: the refused one's open may linger a moment
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	src, _ := CatalogueSource("redis-happy")
	go func() { // the writer opens after the reader: it blocks until then
		if w, err := os.OpenFile(fifo, os.O_WRONLY, 0); err == nil {
			w.WriteString(src)
			w.Close()
		}
	}()
	pipeWait = time.Minute // generous: the writer is there at once
	s, err := Load(fifo)
	if err != nil || s.Protocol != "redis" {
		t.Fatalf("a FIFO written to: %v", err)
	}
}
