package runtime

// procTimeOperator is an operator that acts when processing time passes
// (proctime OVER frames, proctime temporal sorts, proctime interval
// joins). The subtask calls OnProcessingTime from its goroutine with the
// injected clock's time in nanoseconds: after every batch of input and
// before every checkpoint, and once with MaxWatermark when a bounded input
// ends, so that everything still buffered is emitted. Processing time
// therefore advances only with input or checkpoints, never on a timer of
// its own, and tests drive it with a ManualClock. A job with such
// operators checkpoints at every tick of an idle input (Options'
// CheckpointInterval), so that processing-time windows fire and commit
// while no data arrives.
type procTimeOperator interface {
	OnProcessingTime(now int64) error
}

// procTimeSometimes is implemented by operators that implement
// procTimeOperator but work on processing time only in some
// configurations (a window operator on processing-time windows): the
// others get no callbacks.
type procTimeSometimes interface {
	usesProcTime() bool
}

// onProcTime reports whether op wants processing-time callbacks.
func onProcTime(op Operator) (procTimeOperator, bool) {
	p, ok := op.(procTimeOperator)
	if !ok {
		return nil, false
	}
	if s, ok := op.(procTimeSometimes); ok && !s.usesProcTime() {
		return nil, false
	}
	return p, true
}

// procTime calls OnProcessingTime(now) on every operator of the subtask
// that has it, in DAG order.
func (st *subtask) procTime(now int64) error {
	for _, op := range st.procOps {
		if err := op.OnProcessingTime(now); err != nil {
			return err
		}
	}
	return nil
}

// clockNanos returns the processing time of the subtask's clock.
func (st *subtask) clockNanos() int64 { return st.job.env.Clock.Now().UnixNano() }
