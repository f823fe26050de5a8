// Package jobgraph is the plain data a planned statement compiles to and
// the runtime executes. The planner (package plan) builds a Job; the
// runtime (package runtime) runs it. Neither side's internals leak through:
// jobgraph holds only types, compiled expressions and function definitions.
//
// A Job has the shape
//
//	inputs (log tables) -> [changelog normalize] -> calc
//	    -> [hash exchange on the PARTITION BY key -> PTF] -> calc -> sink
//
// which covers SELECT/INSERT/CTAS over tables and one process table
// function call with any number of co-partitioned table arguments.
package jobgraph
