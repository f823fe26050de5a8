package runtime

// procTimeOperator is an operator with work on processing time: windows
// on processing time fire when the clock passes their end. A subtask calls
// OnProcessingTime with its Clock's time (engine nanoseconds, never
// decreasing) at the start of every batch of events it handles; a job with
// such operators also checkpoints at every tick of an idle input, so that
// the results of windows that fire while no data arrives are committed.
// The operator takes now as the processing time of the rows that follow,
// until the next call: a fake clock makes tests deterministic.
type procTimeOperator interface {
	OnProcessingTime(now int64) error
}

// procTimeSometimes is implemented by operators that implement
// procTimeOperator but work on processing time only in some
// configurations (a window operator on processing-time windows).
type procTimeSometimes interface {
	usesProcTime() bool
}

// procTimeOps returns the operators of ops that work on processing time.
func procTimeOps(ops []Operator) []procTimeOperator {
	var out []procTimeOperator
	for _, op := range ops {
		p, ok := op.(procTimeOperator)
		if !ok {
			continue
		}
		if s, ok := op.(procTimeSometimes); ok && !s.usesProcTime() {
			continue
		}
		out = append(out, p)
	}
	return out
}

// onProcessingTime passes the clock's time to the subtask's
// processing-time operators.
func (st *subtask) onProcessingTime() error {
	if len(st.procOps) == 0 {
		return nil
	}
	now := st.job.env.Clock.Now().UnixNano()
	for _, op := range st.procOps {
		if err := op.OnProcessingTime(now); err != nil {
			return err
		}
	}
	return nil
}
