package cli

import (
	"fmt"
	"io"
	"runtime"
	"sync"
	"sync/atomic"
)

// maxWorkers is the most workers explore and check run: four per core, and at
// least 64. More only share the same cores, while each holds its own memory for
// its runs: --workers 1000000 ran the machine out of memory (issue 32).
func maxWorkers() int { return max(64, 4*runtime.NumCPU()) }

// clampWorkers is n, or maxWorkers when n is more, said on stderr: the result
// is the same on any number of workers, so running fewer changes nothing but
// the time.
func clampWorkers(cmd string, n int, stderr io.Writer) int {
	if m := maxWorkers(); n > m {
		fmt.Fprintf(stderr, "%s %s: --workers %d is more than this machine can use (%d cores); running %d\n", app.name, cmd, n, runtime.NumCPU(), m)
		return m
	}
	return n
}

// inOrder runs job(w, 0), job(w, 1), job(w, 2), ... on workers goroutines (w,
// from 0, names the goroutine: what a job keeps between runs is per worker) and
// hands the results to each in index order, one at a time, on the caller's goroutine, until
// each returns false. It is how `explore --workers N` runs seeds on every core
// while reporting exactly what one worker would: each run is independent and
// deterministic (the kernel and the models are single-threaded; only whole runs
// go in parallel), the first failure by seed order is the first each sees, and
// runs a worker finished beyond the stop are discarded unseen.
//
// Workers run ahead of each by at most 4 jobs per worker, so a stop wastes
// little and memory stays bounded. With workers <= 1 it is a plain loop.
//
// This is the one place in the module that starts goroutines (layers_test.go).
func inOrder[T any](workers int, job func(worker int, i uint64) T, each func(T) bool) {
	if workers <= 1 {
		for i := uint64(0); each(job(0, i)); i++ {
		}
		return
	}
	type result struct {
		i uint64
		v T
	}
	window := 4 * workers
	tokens := make(chan struct{}, window) // one per job started and not yet seen by each
	for range window {
		tokens <- struct{}{}
	}
	results := make(chan result, window)
	done := make(chan struct{})
	var next atomic.Uint64
	var wg sync.WaitGroup
	for worker := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				case <-tokens:
				}
				i := next.Add(1) - 1
				r := result{i, job(worker, i)}
				select {
				case <-done:
					return
				case results <- r:
				}
			}
		}()
	}
	pending := map[uint64]T{} // finished ahead of their turn (at most window)
	for want := uint64(0); ; {
		r := <-results
		pending[r.i] = r.v
		for {
			v, ok := pending[want]
			if !ok {
				break
			}
			delete(pending, want)
			want++
			if !each(v) {
				close(done)
				wg.Wait()
				return
			}
			tokens <- struct{}{}
		}
	}
}
