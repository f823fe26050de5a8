package runtime

// procTimeOperator is an operator that acts when processing time passes
// (proctime OVER frames, proctime temporal sorts, proctime interval
// joins). The subtask calls OnProcessingTime from its goroutine with the
// injected clock's time in nanoseconds: after every batch of input and
// before every checkpoint, and once with MaxWatermark when a bounded input
// ends, so that everything still buffered is emitted. Processing time
// therefore advances only with input or checkpoints, never on a timer of
// its own, and tests drive it with a ManualClock.
type procTimeOperator interface {
	OnProcessingTime(now int64) error
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
