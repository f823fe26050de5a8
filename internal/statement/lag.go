package statement

import "strconv"

// SourceLag returns how many records of a statement's log table inputs
// its last checkpoint has not covered: per input partition, the log's end
// offset minus the position the last checkpoint committed (0 before the
// first checkpoint), summed. It is the consumer lag of Kafka consumer
// groups, measured on Eddy's logs. Inputs that are not Eddy log tables
// (Kafka topics, generated tables) are not counted. ok is false when the
// statement has no running job or no log table input.
func (m *Manager) SourceLag(name string) (lag int64, ok bool) {
	m.mu.Lock()
	e, found := m.stmts[name]
	if !found || e.job == nil || e.outcome == nil || len(e.outcome.Sources) == 0 {
		m.mu.Unlock()
		return 0, false
	}
	job, sources := e.job, e.outcome.Sources
	m.mu.Unlock()
	pos, err := job.CommittedPositions()
	if err != nil {
		return 0, false
	}
	logs := m.eng.Env().Logs
	seen := map[string]bool{}
	for _, log := range sources {
		if seen[log] {
			continue
		}
		seen[log] = true
		ends, err := logs.EndOffsets(log)
		if err != nil {
			continue // not an Eddy log (a Kafka topic), or dropped
		}
		ok = true
		for p, end := range ends {
			lag += max(end-pos[log+"/"+strconv.Itoa(p)], 0)
		}
	}
	return lag, ok
}
