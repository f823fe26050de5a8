package datagen

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/eddy-sql/eddy/internal/connector"
	"github.com/eddy-sql/eddy/internal/sqlerr"
	"github.com/eddy-sql/eddy/types"
)

// Identifier is the value of 'connector' for generated tables.
const Identifier = "datagen"

// Option declares one option of the connector ('#' stands for a column
// name in per-column options). The list drives validation and the docs.
type Option = connector.Option

// The keys of the table options.
const (
	OptConnector     = "connector"
	OptRowsPerSecond = "rows-per-second"
	OptNumberOfRows  = "number-of-rows"
	OptParallelism   = "scan.parallelism"
	OptChangelogMode = "changelog.mode"
	// OptCreatedAt is when the table was created, in RFC 3339 with
	// nanoseconds. The engine sets it from its clock when the DDL does not.
	OptCreatedAt = "eddy.created-at"
	// OptExample names a built-in example generator (marketplace.clicks,
	// ...) that generates some columns the way Confluent's examples do.
	OptExample = "eddy.example"
	// OptSnapshotRows caps the rows a snapshot reads from an unbounded
	// table.
	OptSnapshotRows = "eddy.snapshot.max-rows"
)

// The per-column option names (fields.<column>.<name>).
const (
	FieldKind     = "kind"
	FieldMin      = "min"
	FieldMax      = "max"
	FieldMaxPast  = "max-past"
	FieldLength   = "length"
	FieldVarLen   = "var-len"
	FieldStart    = "start"
	FieldEnd      = "end"
	FieldNullRate = "null-rate"
)

// The generator kinds of a column.
const (
	KindRandom   = "random"
	KindSequence = "sequence"
)

// Defaults, as in Flink.
const (
	DefaultRowsPerSecond = 10000
	DefaultLength        = 100
	// DefaultSnapshotRows is the default of 'eddy.snapshot.max-rows'.
	DefaultSnapshotRows = 1000
)

// Options lists every option of the connector.
var Options = []Option{
	{Key: OptConnector, Type: "String", Required: true, Doc: "Must be 'datagen'."},
	{Key: OptRowsPerSecond, Type: "Long", Default: strconv.Itoa(DefaultRowsPerSecond),
		Doc: "Rows per second a continuous job reads. Snapshots of a bounded table read all rows at once."},
	{Key: OptNumberOfRows, Type: "Long",
		Doc: "Total number of rows. By default the table is unbounded (unless a 'sequence' column bounds it)."},
	{Key: OptParallelism, Type: "Integer",
		Doc: "Accepted for compatibility with Flink; Eddy generates a table in one source task."},
	{Key: OptChangelogMode, Type: "String", Default: "append (upsert with a PRIMARY KEY)",
		Doc: "How the generated rows are read: 'append', or 'upsert' by the primary key."},
	{Key: "fields.#." + FieldKind, Type: "String", Default: KindRandom,
		Doc: "Generator of column #: 'random' or 'sequence'."},
	{Key: "fields.#." + FieldMin, Type: "type of the column",
		Doc: "Smallest random value of a numeric column. Default: the smallest value of the type (the smallest positive one for FLOAT and DOUBLE, as in Flink)."},
	{Key: "fields.#." + FieldMax, Type: "type of the column",
		Doc: "Largest random value of a numeric column. Default: the largest value of the type."},
	{Key: "fields.#." + FieldMaxPast, Type: "Duration", Default: "0",
		Doc: "Random timestamps and dates lie up to this long before the row's time (created-at + i/rows-per-second)."},
	{Key: "fields.#." + FieldLength, Type: "Integer", Default: strconv.Itoa(DefaultLength),
		Doc: "Length of random VARCHAR/STRING and VARBINARY/BYTES values (CHAR and BINARY use their declared length)."},
	{Key: "fields.#." + FieldVarLen, Type: "Boolean", Default: "false",
		Doc: "Random VARCHAR/VARBINARY values get a random length from 1 to 'length'."},
	{Key: "fields.#." + FieldStart, Type: "Long", Doc: "First value of a 'sequence' column (required for sequences)."},
	{Key: "fields.#." + FieldEnd, Type: "Long",
		Doc: "Last value of a 'sequence' column (required for sequences); the table ends after it."},
	{Key: "fields.#." + FieldNullRate, Type: "Double", Default: "0",
		Doc: "Fraction of NULL values of a 'random' column, from 0 to 1."},
	{Key: OptCreatedAt, Type: "Timestamp (RFC 3339)", Default: "set by Eddy when the table is created",
		Doc: "When the table was created. Row i's time is created-at + i/rows-per-second; a snapshot of an unbounded table reads the rows whose time has come."},
	{Key: OptSnapshotRows, Type: "Long", Default: strconv.Itoa(DefaultSnapshotRows),
		Doc: "Most rows a snapshot (a SELECT in a script) reads from an unbounded table."},
	{Key: OptExample, Type: "String",
		Doc: "A built-in example generator (marketplace.clicks, marketplace.orders, marketplace.customers, marketplace.products) for the columns Flink's options cannot describe (ids, names, urls)."},
}

// fieldOptions are the per-column option names, in the order of Options.
var fieldOptions = []string{FieldKind, FieldMin, FieldMax, FieldMaxPast, FieldLength, FieldVarLen, FieldStart, FieldEnd, FieldNullRate}

// OptionError is an invalid option. Key names the option ("" for the
// table as a whole).
type OptionError struct {
	Key     string
	Message string
	Hint    string
}

func (e *OptionError) Error() string {
	if e.Hint == "" {
		return e.Message
	}
	return e.Message + " (" + e.Hint + ")"
}

func optErr(key, hint, format string, args ...any) *OptionError {
	return &OptionError{Key: key, Message: fmt.Sprintf(format, args...), Hint: hint}
}

// tableOptionKeys are the keys allowed besides fields.*.
func tableOptionKeys() []string {
	var out []string
	for _, o := range Options {
		if !strings.HasPrefix(o.Key, "fields.") {
			out = append(out, o.Key)
		}
	}
	return out
}

func isTableOption(key string) bool {
	for _, k := range tableOptionKeys() {
		if k == key {
			return true
		}
	}
	return false
}

// splitFieldOption splits "fields.<column>.<name>" (column names may
// contain dots; the name is after the last one).
func splitFieldOption(key string) (column, name string, ok bool) {
	rest, ok := strings.CutPrefix(key, "fields.")
	if !ok {
		return "", "", false
	}
	i := strings.LastIndexByte(rest, '.')
	if i <= 0 || i == len(rest)-1 {
		return "", "", false
	}
	return rest[:i], rest[i+1:], true
}

func supportedKeys() string {
	keys := tableOptionKeys()
	for _, f := range fieldOptions {
		keys = append(keys, "fields.#."+f)
	}
	return "'" + strings.Join(keys, "', '") + "'"
}

func parseLong(key, s string, min int64) (int64, error) {
	n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
	if err != nil {
		return 0, optErr(key, "", "Invalid value '%s' for option '%s': expected a whole number", s, key)
	}
	if n < min {
		return 0, optErr(key, "", "Invalid value '%s' for option '%s': it must be at least %d", s, key, min)
	}
	return n, nil
}

func parseBool(key, s string) (bool, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, optErr(key, "", "Invalid value '%s' for option '%s': expected 'true' or 'false'", s, key)
}

func parseRate(key, s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	if err != nil || math.IsNaN(f) || f < 0 || f > 1 {
		return 0, optErr(key, "", "Invalid value '%s' for option '%s': expected a number from 0 to 1", s, key)
	}
	return f, nil
}

// parseDuration parses Flink's duration syntax: a whole number with an
// optional unit ("5 s", "10 min", "2 days"; no unit means milliseconds).
func parseDuration(key, s string) (time.Duration, error) {
	bad := func(why string) error {
		return optErr(key, "write a number with a unit, such as '5 s', '10 min' or '1 d'", "Invalid duration '%s' for option '%s': %s", s, key, why)
	}
	d, err := types.ParseDuration(s)
	if err != nil {
		_, why, _ := strings.Cut(err.Error(), ": ")
		return 0, bad(why)
	}
	return d, nil
}

// suggestKey returns "; did you mean 'x'?" for a misspelled key.
func suggestKey(key string, candidates []string) string {
	best := sqlerr.Closest(key, candidates, 4)
	if best == "" {
		return ""
	}
	return "did you mean '" + best + "'?"
}

func sortedOptionKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
