// Package examples holds the Go ports of the process table functions shown
// in Confluent's PTF quickstart and the upserting-changelog tutorial. The
// default eddy binary registers each under the id "examples.<Name>":
//
//	CREATE FUNCTION OrderStatusTracker AS 'examples.OrderStatusTracker';
//
// Each function is a *ptf.Definition; Register adds all of them to a
// registry. They double as worked examples of the ptf SDK: value state
// (OrderStatusTracker, Median), TTL (TtlCountdown), timers
// (InactivityAlert), several tables (MtControlStream), pass-through columns
// (ThresholdFilter, PassThroughEnrich), updating input (ChangelogAuditor)
// and updating output (OrderStatusTracker, RunningMax). IdleAlert, not in
// the seed, shows processing-time timers (an Eddy extension).
package examples

import "github.com/eddy-sql/eddy/ptf"

// All maps each example's name to its definition.
func All() map[string]*ptf.Definition {
	return map[string]*ptf.Definition{
		"OrderStatusTracker": OrderStatusTracker,
		"ThresholdFilter":    ThresholdFilter,
		"Median":             Median,
		"InactivityAlert":    InactivityAlert,
		"TtlCountdown":       TtlCountdown,
		"MtControlStream":    MtControlStream,
		"PassThroughEnrich":  PassThroughEnrich,
		"ChangelogAuditor":   ChangelogAuditor,
		"RunningMax":         RunningMax,
		"IdleAlert":          IdleAlert,
	}
}

// Register adds every example to r under "examples.<Name>".
func Register(r *ptf.Registry) error {
	for name, def := range All() {
		if err := r.Register("examples."+name, def); err != nil {
			return err
		}
	}
	return nil
}
