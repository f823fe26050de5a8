package filesystem

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/eddy-sql/eddy/internal/format"
	"github.com/eddy-sql/eddy/types"
)

// DefaultPartitionName is the directory name of a NULL or empty partition
// value ('partition.default-name'), as in Flink and Hive.
const DefaultPartitionName = "__DEFAULT_PARTITION__"

// partitionTypeOK reports whether a column type can be a partition column:
// values whose text reads back as the same value.
func partitionTypeOK(t types.Type) bool {
	switch t.ID {
	case types.TypeChar, types.TypeVarChar, types.TypeBoolean, types.TypeTinyInt, types.TypeSmallInt,
		types.TypeInt, types.TypeBigInt, types.TypeDecimal, types.TypeDate, types.TypeTimestamp:
		return true
	}
	return false
}

// escapePathName escapes a partition value for a directory name as Flink
// (and Hive) do: the characters that paths or partition specs give a
// meaning to become %XX.
func escapePathName(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if needsEscape(c) {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

func needsEscape(c byte) bool {
	if c < 0x20 || c == 0x7f {
		return true
	}
	return strings.IndexByte("\"#%'*/:=?\\{[]^", c) >= 0
}

// unescapePathName reverses escapePathName.
func unescapePathName(s string) string {
	if !strings.Contains(s, "%") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && i+2 < len(s) {
			if n, err := strconv.ParseUint(s[i+1:i+3], 16, 8); err == nil {
				b.WriteByte(byte(n))
				i += 2
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// partitionText is the directory text of a partition value: Java's
// toString of the value (as Flink's partition computer writes it), or the
// default name for NULL and ”.
func partitionText(v types.Value, t types.Type, defaultName string) string {
	if v.IsNull() {
		return defaultName
	}
	s := string(format.AppendJava(nil, v, t))
	if s == "" {
		return defaultName
	}
	return s
}

// parsePartition reads a partition directory's value as the column's type
// (the default name is NULL).
func parsePartition(s string, t types.Type, defaultName string) (types.Value, error) {
	if s == defaultName {
		return types.Null, nil
	}
	switch t.ID {
	case types.TypeChar, types.TypeVarChar:
		return types.NewString(s), nil
	case types.TypeBoolean:
		switch strings.ToLower(s) {
		case "true":
			return types.NewBool(true), nil
		case "false":
			return types.NewBool(false), nil
		}
	case types.TypeTinyInt, types.TypeSmallInt, types.TypeInt, types.TypeBigInt:
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return types.NewInt(n), nil
		}
	case types.TypeDecimal:
		if d, err := types.ParseDecimal(s); err == nil {
			if r, err := types.RoundDecimal(d, t.Precision, t.Scale); err == nil {
				return types.NewDecimal(r), nil
			}
		}
	case types.TypeDate:
		if v, err := types.ParseDate(s); err == nil {
			return v, nil
		}
	case types.TypeTimestamp:
		// Java's LocalDateTime.toString: 2024-01-31T10:15[:30[.5]].
		ts := strings.Replace(s, "T", " ", 1)
		if strings.Count(ts, ":") == 1 {
			ts += ":00"
		}
		if v, err := types.ParseTimestamp(ts); err == nil {
			return v, nil
		}
	}
	return types.Null, fmt.Errorf("partition value %q is not a %s", s, t)
}
