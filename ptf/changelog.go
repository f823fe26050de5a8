package ptf

import (
	"strings"

	"github.com/eddy-sql/eddy/types"
)

// ChangelogMode is the set of row kinds a changelog may contain, and whether
// its deletes carry only the key.
type ChangelogMode struct {
	kinds          uint8
	keyOnlyDeletes bool
}

// InsertOnly is the mode of append-only tables: {+I}.
func InsertOnly() ChangelogMode { return ChangelogMode{kinds: 1 << types.Insert} }

// Upsert is {+I, +U, -D} with key-only deletes, as Flink's ChangelogMode.upsert().
func Upsert() ChangelogMode {
	return ChangelogMode{kinds: 1<<types.Insert | 1<<types.UpdateAfter | 1<<types.Delete, keyOnlyDeletes: true}
}

// UpsertFullDeletes is {+I, +U, -D} where deletes carry the full row, as
// Flink's ChangelogMode.upsert(false).
func UpsertFullDeletes() ChangelogMode {
	return ChangelogMode{kinds: 1<<types.Insert | 1<<types.UpdateAfter | 1<<types.Delete}
}

// Retract is {+I, -U, +U, -D}, as Flink's ChangelogMode.all().
func Retract() ChangelogMode {
	return ChangelogMode{kinds: 1<<types.Insert | 1<<types.UpdateBefore | 1<<types.UpdateAfter | 1<<types.Delete}
}

// ModeOf returns the mode with exactly the given kinds (full deletes).
func ModeOf(kinds ...types.RowKind) ChangelogMode {
	var m ChangelogMode
	for _, k := range kinds {
		m.kinds |= 1 << k
	}
	return m
}

// WithKeyOnlyDeletes returns m with key-only (partial) deletes.
func (m ChangelogMode) WithKeyOnlyDeletes(b bool) ChangelogMode { m.keyOnlyDeletes = b; return m }

// Contains reports whether rows of kind k may appear.
func (m ChangelogMode) Contains(k types.RowKind) bool { return m.kinds&(1<<k) != 0 }

// IsInsertOnly reports whether only +I may appear.
func (m ChangelogMode) IsInsertOnly() bool { return m.kinds == 1<<types.Insert }

// IsUpsert reports whether the mode has updates without -U.
func (m ChangelogMode) IsUpsert() bool {
	return !m.Contains(types.UpdateBefore) && (m.Contains(types.UpdateAfter) || m.Contains(types.Delete))
}

// KeyOnlyDeletes reports whether deletes may carry only the key.
func (m ChangelogMode) KeyOnlyDeletes() bool { return m.keyOnlyDeletes && m.Contains(types.Delete) }

// IsZero reports whether m is the zero value (no kinds at all).
func (m ChangelogMode) IsZero() bool { return m.kinds == 0 }

// String lists the kinds as Flink does: [INSERT, UPDATE_AFTER, ~DELETE].
func (m ChangelogMode) String() string {
	var parts []string
	for k := types.Insert; k <= types.Delete; k++ {
		if !m.Contains(k) {
			continue
		}
		if k == types.Delete && m.keyOnlyDeletes {
			parts = append(parts, "~DELETE")
			continue
		}
		parts = append(parts, k.Name())
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// ChangelogContext tells a function's Changelog callback what the planner
// knows: the modes of its table arguments and what downstream requires.
type ChangelogContext struct {
	// Tables holds the input mode of each argument by position; the zero
	// ChangelogMode for scalar arguments.
	Tables []ChangelogMode
	// Required is what the consumer requires; it contains UpdateBefore when
	// a retract changelog is needed and has KeyOnlyDeletes when the consumer
	// accepts partial deletes.
	Required ChangelogMode
	// Args holds the scalar argument values by name (NULL when omitted),
	// as Flink 2.4's getArgumentValue.
	Args map[string]types.Value
	// PartitionBy holds the PARTITION BY column positions of each table
	// argument by position (nil for scalars and unpartitioned tables).
	PartitionBy [][]int
}

// Name names the mode as Flink's tests summarize it: insert-only, retract,
// retract-no-delete, upsert (full deletes), upsert-partial-delete (key-only
// deletes), upsert-no-delete; other sets of kinds print as String does.
func (m ChangelogMode) Name() string {
	ub, ua, d := m.Contains(types.UpdateBefore), m.Contains(types.UpdateAfter), m.Contains(types.Delete)
	if !m.Contains(types.Insert) {
		return m.String()
	}
	switch {
	case m.IsInsertOnly():
		return "insert-only"
	case ub && ua && d:
		return "retract"
	case ub && ua:
		return "retract-no-delete"
	case !ub && ua && d && m.keyOnlyDeletes:
		return "upsert-partial-delete"
	case !ub && ua && d:
		return "upsert"
	case !ub && ua:
		return "upsert-no-delete"
	}
	return m.String()
}

// Without returns m without rows of kind k.
func (m ChangelogMode) Without(k types.RowKind) ChangelogMode {
	m.kinds &^= 1 << k
	if k == types.Delete {
		m.keyOnlyDeletes = false
	}
	return m
}
