// Package opt optimizes the logical plans of package plan and translates
// them into jobs (package jobgraph).
package opt
