//go:build unix

package scenarios

import (
	"os"
	"syscall"
	"time"
)

// openPipe opens a named pipe for reading, waiting at most pipeWait for a
// writer. The open runs on its own goroutine because the system call blocks;
// when no writer comes, opening the pipe for writing ourselves releases it.
func openPipe(path string) (*os.File, error) {
	type opened struct {
		f   *os.File
		err error
	}
	done := make(chan opened, 1)
	go func() {
		f, err := os.Open(path)
		done <- opened{f, err}
	}()
	select {
	case o := <-done:
		if o.err == nil {
			o.f.SetReadDeadline(time.Now().Add(pipeWait))
		}
		return o.f, o.err
	case <-time.After(pipeWait):
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		go func() { // the open, released, returns a pipe nobody reads
			if o := <-done; o.err == nil {
				o.f.Close()
			}
		}()
		return nil, errNoWriter
	}
}
