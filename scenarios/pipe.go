package scenarios

import "time"

// pipeWait is how long a named pipe (FIFO) may take to get a writer and
// deliver the scenario: opening one blocks until something writes to it, and
// `locksim run FIFO` with nothing writing blocked for ever (issue 32).
var pipeWait = 5 * time.Second
