package sim

import (
	"slices"
	"time"
)

// The wall-timer log: with Config.WallTimers, the trace keeps every wall-clock
// timer each process arms and disarms, so that a reader can ask which wall
// deadlines were pending at an instant. An exhaustive search (locksim check)
// sizes a clock jump "just past" each one, because a jump changes the outcome
// exactly where it carries the wall clock over a deadline (a Redis key's
// expiry, Kleppmann's Redlock story). Runs without the flag keep nothing.

// wallTimerOp is one entry of a process's wall-timer log.
type wallTimerOp struct {
	at       Time
	id       TimerID
	deadline time.Duration // the wall deadline, for an arm
	op       uint8         // wallArm, wallDisarm, wallClear
}

const (
	wallArm    uint8 = iota + 1 // timer id armed for deadline
	wallDisarm                  // timer id fired, was cancelled or re-armed
	wallClear                   // the process went down: every timer gone
)

// logWall appends to process p's wall-timer log, when the run keeps one.
func (w *World) logWall(p ProcID, op uint8, id TimerID, deadline time.Duration) {
	if !w.cfg.WallTimers {
		return
	}
	t := &w.trace
	if t.wallLog == nil {
		t.wallLog = make([][]wallTimerOp, len(t.Names))
	}
	t.wallLog[p] = append(t.wallLog[p], wallTimerOp{at: w.now, id: id, deadline: deadline, op: op})
}

// PendingWallDeadlines lists the wall-clock deadlines process p had armed and
// not yet seen fire or cancelled, as of just before true time at (what it armed
// at at itself does not count yet), earliest first. It needs a run recorded with
// Config.WallTimers; otherwise it returns nil.
func (t *Trace) PendingWallDeadlines(p ProcID, at Time) []time.Duration {
	if t.wallLog == nil || p < 0 || int(p) >= len(t.wallLog) {
		return nil
	}
	var ids []TimerID
	var ds []time.Duration
	for _, e := range t.wallLog[p] {
		if e.at >= at {
			break
		}
		switch e.op {
		case wallClear:
			ids, ds = ids[:0], ds[:0]
		case wallDisarm, wallArm:
			if i := slices.Index(ids, e.id); i >= 0 {
				ids, ds = slices.Delete(ids, i, i+1), slices.Delete(ds, i, i+1)
			}
			if e.op == wallArm {
				ids, ds = append(ids, e.id), append(ds, e.deadline)
			}
		}
	}
	slices.Sort(ds)
	return ds
}
