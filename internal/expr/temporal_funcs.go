package expr

import (
	"strings"
	"sync/atomic"
	"time"

	"github.com/eddy-sql/eddy/types"
)

// Temporal functions. The session time zone (Env.Zone, UTC by default)
// gives the wall clock of the local-time functions and of TIMESTAMP_LTZ
// values: LOCALTIMESTAMP is CURRENT_TIMESTAMP's instant in that zone.

func init() {
	register("temporal", []funcDef{
		nondet(fdef("CURRENT_TIMESTAMP", 0, 0, "CURRENT_TIMESTAMP -> TIMESTAMP_LTZ(3)",
			"The current time, read from the statement's clock for each row.", nowFunc(types.TimestampLTZ(3)))),
		nondet(fdef("NOW", 0, 0, "NOW() -> TIMESTAMP_LTZ(3)", "Same as CURRENT_TIMESTAMP.", nowFunc(types.TimestampLTZ(3)))),
		nondet(fdef("CURRENT_ROW_TIMESTAMP", 0, 0, "CURRENT_ROW_TIMESTAMP() -> TIMESTAMP_LTZ(3)",
			"The current time for each row.", nowFunc(types.TimestampLTZ(3)))),
		nondet(fdef("LOCALTIMESTAMP", 0, 0, "LOCALTIMESTAMP -> TIMESTAMP(3)",
			"The current wall-clock time in the session time zone ('table.local-time-zone', UTC by default).", nowFunc(types.Timestamp(3)))),
		nondet(fdef("CURRENT_DATE", 0, 0, "CURRENT_DATE -> DATE", "The current date in the session time zone.", nowFunc(types.Date))),
		nondet(fdef("CURRENT_TIME", 0, 0, "CURRENT_TIME -> TIME(0)", "The current time of day in the session time zone.", nowFunc(types.Time(0)))),
		nondet(fdef("LOCALTIME", 0, 0, "LOCALTIME -> TIME(0)", "Same as CURRENT_TIME.", nowFunc(types.Time(0)))),
		nondet(fdef("UNIX_TIMESTAMP", 0, 2, "UNIX_TIMESTAMP() -> BIGINT; UNIX_TIMESTAMP(string1 [, string2]) -> BIGINT",
			"Without arguments the current epoch seconds; else string1 parsed in the pattern string2 (default 'yyyy-MM-dd HH:mm:ss') in the session time zone as epoch seconds, -9223372036854775808 when it does not parse.",
			newUnixTimestamp)),
		fdef("EXTRACT", 2, 2, "EXTRACT(timeintervalunit FROM temporal) -> BIGINT",
			"A field of a date, time or timestamp: MILLENNIUM, CENTURY, DECADE, YEAR, ISOYEAR, QUARTER, MONTH, WEEK (ISO), DAY, DOY, DOW (1 = Sunday), ISODOW (1 = Monday), HOUR, MINUTE, SECOND, MILLISECOND, MICROSECOND, NANOSECOND, EPOCH.",
			newExtract),
		extractFn("YEAR", "YEAR", "The year."),
		extractFn("QUARTER", "QUARTER", "The quarter, 1 to 4."),
		extractFn("MONTH", "MONTH", "The month, 1 to 12."),
		extractFn("WEEK", "WEEK", "The ISO week of the year, 1 to 53."),
		extractFn("DAYOFYEAR", "DOY", "The day of the year, 1 to 366."),
		extractFn("DAYOFMONTH", "DAY", "The day of the month, 1 to 31."),
		extractFn("DAYOFWEEK", "DOW", "The day of the week, 1 (Sunday) to 7 (Saturday)."),
		extractFn("HOUR", "HOUR", "The hour of the day, 0 to 23."),
		extractFn("MINUTE", "MINUTE", "The minute of the hour, 0 to 59."),
		extractFn("SECOND", "SECOND", "The second of the minute, 0 to 59."),
		fdef("DATE_FORMAT", 2, 2, "DATE_FORMAT(timestamp, string) -> STRING; DATE_FORMAT(string, string) -> STRING",
			"The timestamp (a TIMESTAMP_LTZ in the session time zone, or a string 'yyyy-MM-dd HH:mm:ss') rendered in the pattern (Java letters: yyyy-MM-dd HH:mm:ss.SSS).",
			newDateFormat),
		fdef("TO_TIMESTAMP", 1, 2, "TO_TIMESTAMP(string1 [, string2]) -> TIMESTAMP(3)",
			"string1 parsed in the pattern string2 (default 'yyyy-MM-dd HH:mm:ss'); NULL when it does not parse.", newToTimestamp(types.Timestamp(3))),
		fdef("TO_DATE", 1, 2, "TO_DATE(string1 [, string2]) -> DATE",
			"string1 parsed in the pattern string2 (default 'yyyy-MM-dd'); NULL when it does not parse.", newToTimestamp(types.Date)),
		fdef("TO_TIMESTAMP_LTZ", 1, 3, "TO_TIMESTAMP_LTZ(numeric [, precision]) -> TIMESTAMP_LTZ(3 | 6 | 9); TO_TIMESTAMP_LTZ(string1 [, string2 [, string3]]) -> TIMESTAMP_LTZ(3)",
			"An epoch number in units of 10^-precision seconds (precision 0, 3, 6 or 9; default 3), or string1 parsed in pattern string2 in time zone string3 (default 'UTC').",
			newToTimestampLTZ),
		fdef("FROM_UNIXTIME", 1, 2, "FROM_UNIXTIME(numeric [, string]) -> STRING",
			"Epoch seconds rendered in the pattern (default 'yyyy-MM-dd HH:mm:ss') in the session time zone.", newFromUnixtime),
		fdef("CONVERT_TZ", 3, 3, "CONVERT_TZ(string1, string2, string3) -> STRING",
			"The timestamp string1 ('yyyy-MM-dd HH:mm:ss') in time zone string2 converted to time zone string3.", newConvertTZ),
		fdef("TIMESTAMPADD", 3, 3, "TIMESTAMPADD(timeintervalunit, interval, timepoint)",
			"timepoint plus interval units (SECOND, MINUTE, HOUR, DAY, WEEK, MONTH, QUARTER, YEAR); the type of timepoint.", newTimestampAdd),
		fdef("TIMESTAMPDIFF", 3, 3, "TIMESTAMPDIFF(timepointunit, timepoint1, timepoint2) -> INT",
			"The number of whole units from timepoint1 to timepoint2 (negative when timepoint2 is earlier).", newTimestampDiff),
	})
}

func nowFunc(t types.Type) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		now := c.env.Now
		if now == nil {
			return nil, typeErrorf("%s needs the statement clock, which this context does not provide", c.name)
		}
		local := t.ID != types.TypeTimestampLTZ // LOCALTIMESTAMP, CURRENT_DATE, ...
		zone := c.zone()
		e := c.strictFn(t, true, func([maxFixedArgs]types.Value) (types.Value, error) {
			ns := now()
			if local {
				ns = instantToWall(ns, zone)
			}
			switch t.ID {
			case types.TypeDate:
				return types.NewDate(floorDiv(ns, nanosPerDay)), nil
			case types.TypeTime:
				return types.NewTime(truncateNanos(floorMod(ns, nanosPerDay), 0)), nil
			}
			return types.NewTimestamp(truncateNanos(ns, 3)), nil
		})
		if c.name != "NOW" && c.name != "CURRENT_ROW_TIMESTAMP" {
			e.render = func() string { return c.name }
		}
		return e, nil
	}
}

// tsNanos returns the wall-clock nanoseconds of a DATE, TIMESTAMP or
// TIMESTAMP_LTZ value of type t.
func tsNanos(v types.Value, t types.Type) int64 {
	if t.ID == types.TypeDate {
		return v.Int() * nanosPerDay
	}
	return v.Int()
}

// patternArg returns the compiled pattern of args[i] (def when absent): a
// literal is compiled once, here; a column per row, caching the last one.
func patternArg(c *call, i int, def string) (func(a [maxFixedArgs]types.Value) (dtPattern, error), error) {
	if i >= len(c.args) {
		p, err := compileDatePattern(def)
		return func([maxFixedArgs]types.Value) (dtPattern, error) { return p, err }, err
	}
	if v, ok := c.literal(i); ok && !v.IsNull() {
		p, err := compileDatePattern(v.Str())
		return func([maxFixedArgs]types.Value) (dtPattern, error) { return p, nil }, err
	}
	type cached struct {
		src string
		p   dtPattern
	}
	var last atomic.Pointer[cached]
	return func(a [maxFixedArgs]types.Value) (dtPattern, error) {
		s := a[i].Str()
		if l := last.Load(); l != nil && l.src == s {
			return l.p, nil
		}
		p, err := compileDatePattern(s)
		if err != nil {
			return nil, runtimeErrorf("%v", err)
		}
		last.Store(&cached{src: s, p: p})
		return p, nil
	}, nil
}

func newUnixTimestamp(c *call) (Expr, error) {
	if len(c.args) == 0 {
		now := c.env.Now
		if now == nil {
			return nil, typeErrorf("%s() needs the statement clock, which this context does not provide", c.name)
		}
		return c.strictFn(types.BigInt, true, func([maxFixedArgs]types.Value) (types.Value, error) {
			return types.NewInt(floorDiv(now(), 1e9)), nil
		}), nil
	}
	if err := c.want(aStr); err != nil {
		return nil, err
	}
	pat, err := patternArg(c, 1, "yyyy-MM-dd HH:mm:ss")
	if err != nil {
		return nil, err
	}
	custom := len(c.args) == 2
	zone := c.zone()
	return c.strictFn(types.BigInt, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		var ns int64
		var ok bool
		if custom {
			p, err := pat(a)
			if err != nil {
				return types.Null, err
			}
			ns, ok = p.parse(a[0].Str())
			if ok && p.hasOffset() {
				return types.NewInt(floorDiv(ns, 1e9)), nil // the string gives its offset
			}
		} else {
			var err error
			ns, _, err = parseTimestamp(a[0].Str())
			ok = err == nil
		}
		if !ok {
			return types.NewInt(-1 << 63), nil
		}
		return types.NewInt(floorDiv(wallToInstant(ns, zone), 1e9)), nil
	}), nil
}

// extractField computes EXTRACT(unit FROM x) of wall-clock nanoseconds.
func extractField(unit string, ns int64) int64 {
	days, tod := floorDiv(ns, nanosPerDay), floorMod(ns, nanosPerDay)
	y, m, d := civilFromDays(days)
	switch unit {
	case "MILLENNIUM":
		return (y + 999) / 1000
	case "CENTURY":
		return (y + 99) / 100
	case "DECADE":
		return floorDiv(y, 10)
	case "YEAR":
		return y
	case "ISOYEAR":
		iy, _ := isoWeek(days)
		return iy
	case "QUARTER":
		return (m + 2) / 3
	case "MONTH":
		return m
	case "WEEK":
		_, w := isoWeek(days)
		return w
	case "DAY":
		return d
	case "DOY":
		return days - daysFromCivil(y, 1, 1) + 1
	case "DOW":
		return isoDayOfWeek(days)%7 + 1
	case "ISODOW":
		return isoDayOfWeek(days)
	case "HOUR":
		return tod / (3600 * 1e9)
	case "MINUTE":
		return tod / (60 * 1e9) % 60
	case "SECOND":
		return tod / 1e9 % 60
	case "MILLISECOND":
		return tod / 1e6 % 60000
	case "MICROSECOND":
		return tod / 1e3 % 60000000
	case "NANOSECOND":
		return tod % 60000000000
	case "EPOCH":
		return floorDiv(ns, 1e9)
	}
	return 0
}

// isoWeek returns the ISO week-numbering year and week of a date.
func isoWeek(days int64) (int64, int64) {
	thursday := days - isoDayOfWeek(days) + 4
	y, _, _ := civilFromDays(thursday)
	return y, (thursday-daysFromCivil(y, 1, 1))/7 + 1
}

var dateUnits = map[string]bool{"MILLENNIUM": true, "CENTURY": true, "DECADE": true, "YEAR": true, "ISOYEAR": true,
	"QUARTER": true, "MONTH": true, "WEEK": true, "DAY": true, "DOY": true, "DOW": true, "ISODOW": true, "EPOCH": true}

var timeUnits = map[string]bool{"HOUR": true, "MINUTE": true, "SECOND": true, "MILLISECOND": true,
	"MICROSECOND": true, "NANOSECOND": true}

// unitArg reads the time unit the planner passes as a string literal.
func unitArg(c *call, i int) (string, error) {
	v, ok := c.literal(i)
	if !ok || v.Kind() != types.KindString {
		return "", typeErrorf("the first argument of %s must be a time unit such as DAY", c.name)
	}
	return strings.ToUpper(v.Str()), nil
}

func newExtract(c *call) (Expr, error) {
	unit, err := unitArg(c, 0)
	if err != nil {
		return nil, err
	}
	return buildExtract(c, unit, c.args[1])
}

func buildExtract(c *call, unit string, x Expr) (Expr, error) {
	t := x.Type()
	switch {
	case t.ID == types.TypeNull:
	case t.ID == types.TypeDate && dateUnits[unit]:
	case t.ID == types.TypeTime && timeUnits[unit]:
	case (t.ID == types.TypeTimestamp || t.ID == types.TypeTimestampLTZ) && (dateUnits[unit] || timeUnits[unit]):
	case t.ID == types.TypeIntervalYearMonth && (unit == "YEAR" || unit == "MONTH"),
		t.ID == types.TypeIntervalDayTime && (unit == "DAY" || timeUnits[unit]):
		return buildExtractInterval(c, unit, x)
	default:
		return nil, typeErrorf("cannot extract %s from %s", unit, typeString(t))
	}
	zone := c.zone()
	ltz := t.ID == types.TypeTimestampLTZ && unit != "EPOCH"
	e := &fnExpr{name: c.name, args: []Expr{x}, t: withNull(types.BigInt, t.NotNull),
		fn: func(a [maxFixedArgs]types.Value) (types.Value, error) {
			ns := tsNanos(a[0], t)
			if ltz {
				ns = instantToWall(ns, zone) // the fields of the session's wall clock
			}
			return types.NewInt(extractField(unit, ns)), nil
		}}
	if c.name == "EXTRACT" {
		e.render = func() string { return "EXTRACT(" + unit + " FROM " + x.String() + ")" }
	}
	return e, nil
}

func extractFn(name, unit, desc string) funcDef {
	return fdef(name, 1, 1, name+"(temporal) -> BIGINT", desc, func(c *call) (Expr, error) {
		return buildExtract(c, unit, c.args[0])
	})
}

func newDateFormat(c *call) (Expr, error) {
	if err := c.want(aAny, aStr); err != nil {
		return nil, err
	}
	t := c.args[0].Type()
	if !aDateTs.accepts(t) && !t.IsString() {
		return nil, argTypeError(c.name, c.args)
	}
	pat, err := patternArg(c, 1, "")
	if err != nil {
		return nil, err
	}
	zone, ltz := c.zone(), t.ID == types.TypeTimestampLTZ
	return c.strictFn(types.String, !t.IsString(), func(a [maxFixedArgs]types.Value) (types.Value, error) {
		p, err := pat(a)
		if err != nil {
			return types.Null, err
		}
		ns := tsNanos(a[0], t)
		if ltz {
			ns = instantToWall(ns, zone)
		}
		if t.IsString() {
			var perr error
			if ns, _, perr = parseTimestamp(a[0].Str()); perr != nil {
				return types.Null, nil
			}
		}
		return types.NewString(p.format(ns)), nil
	}), nil
}

func newToTimestamp(rt types.Type) func(c *call) (Expr, error) {
	return func(c *call) (Expr, error) {
		if err := c.want(aStr); err != nil {
			return nil, err
		}
		pat, err := patternArg(c, 1, "")
		if err != nil {
			return nil, err
		}
		custom := len(c.args) == 2
		return c.strictFn(rt, false, func(a [maxFixedArgs]types.Value) (types.Value, error) {
			var ns int64
			if custom {
				p, err := pat(a)
				if err != nil {
					return types.Null, err
				}
				var ok bool
				if ns, ok = p.parse(a[0].Str()); !ok {
					return types.Null, nil
				}
			} else if rt.ID == types.TypeDate {
				d, err := parseDate(a[0].Str())
				if err != nil {
					return types.Null, nil
				}
				ns = d * nanosPerDay
			} else {
				var err error
				if ns, _, err = parseTimestamp(a[0].Str()); err != nil {
					return types.Null, nil
				}
			}
			if rt.ID == types.TypeDate {
				return types.NewDate(floorDiv(ns, nanosPerDay)), nil
			}
			return types.NewTimestamp(truncateNanos(ns, 3)), nil
		}), nil
	}
}

func newToTimestampLTZ(c *call) (Expr, error) {
	if aNum.accepts(c.args[0].Type()) && !c.args[0].Type().IsString() {
		if err := c.want(aNum, aInt); err != nil {
			return nil, err
		}
		if len(c.args) > 2 {
			return nil, argTypeError(c.name, c.args)
		}
		// The precision is the unit of the number: 10^-p seconds. A
		// literal 6 or 9 gives TIMESTAMP_LTZ(6) / (9), as in Flink.
		rt := types.TimestampLTZ(3)
		if v, ok := c.literal(1); ok && !v.IsNull() && (v.Int() == 6 || v.Int() == 9) {
			rt = types.TimestampLTZ(int(v.Int()))
		}
		return c.strictFn(rt, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
			p := int64(3)
			if len(c.args) == 2 {
				p = a[1].Int()
			}
			var unit int64
			switch p {
			case 0:
				unit = 1e9
			case 3:
				unit = 1e6
			case 6:
				unit = 1e3
			case 9:
				unit = 1
			default:
				return types.Null, runtimeErrorf("TO_TIMESTAMP_LTZ: precision must be 0, 3, 6 or 9, got %d", p)
			}
			if a[0].Kind() == types.KindInt {
				n := a[0].Int()
				if lim := int64(1<<63-1) / unit; n > lim || n < -lim {
					return types.Null, errTimestampRange()
				}
				return types.NewTimestamp(truncateNanos(n*unit, rt.Precision)), nil
			}
			ns := a[0].Float() * float64(unit)
			if ns >= 9.2e18 || ns <= -9.2e18 || ns != ns {
				return types.Null, errTimestampRange()
			}
			return types.NewTimestamp(truncateNanos(int64(ns), rt.Precision)), nil
		}), nil
	}
	if err := c.want(aStr); err != nil {
		return nil, err
	}
	pat, err := patternArg(c, 1, "yyyy-MM-dd HH:mm:ss")
	if err != nil {
		return nil, err
	}
	zone := zoneArg(c, 2)
	custom := len(c.args) >= 2
	return c.strictFn(types.TimestampLTZ(3), false, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		var ns int64
		if custom {
			p, err := pat(a)
			if err != nil {
				return types.Null, err
			}
			var ok bool
			if ns, ok = p.parse(a[0].Str()); !ok {
				return types.Null, nil
			}
		} else {
			var err error
			if ns, _, err = parseTimestamp(a[0].Str()); err != nil {
				return types.Null, nil
			}
		}
		loc, err := zone(a)
		if err != nil {
			return types.Null, err
		}
		return types.NewTimestamp(truncateNanos(wallToInstant(ns, loc), 3)), nil
	}), nil
}

// zoneArg resolves the time zone of args[i] (UTC when absent), once for a
// literal.
func zoneArg(c *call, i int) func(a [maxFixedArgs]types.Value) (*time.Location, error) {
	if i >= len(c.args) {
		return func([maxFixedArgs]types.Value) (*time.Location, error) { return time.UTC, nil }
	}
	if v, ok := c.literal(i); ok && !v.IsNull() {
		loc, err := loadZone(v.Str())
		return func([maxFixedArgs]types.Value) (*time.Location, error) { return loc, err }
	}
	return func(a [maxFixedArgs]types.Value) (*time.Location, error) { return loadZone(a[i].Str()) }
}

// LoadZone resolves a time zone name as the temporal functions do: IANA
// names ('Europe/Berlin'), 'UTC' and fixed offsets 'GMT+08:00' / '+08:00'.
// The window operators align windows in the session zone with it.
func LoadZone(name string) (*time.Location, error) { return loadZone(name) }

// loadZone accepts IANA names ('Europe/Berlin'), 'UTC' and fixed offsets
// 'GMT+08:00' / '+08:00'.
func loadZone(name string) (*time.Location, error) {
	s := strings.TrimPrefix(strings.TrimPrefix(name, "GMT"), "UTC")
	if s != name && s == "" {
		return time.UTC, nil
	}
	if len(s) == 6 && (s[0] == '+' || s[0] == '-') && s[3] == ':' {
		sc := scanner{s[1:]}
		h, _, ok1 := sc.digits(2, 2)
		ok2 := sc.skip(':')
		m, _, ok3 := sc.digits(2, 2)
		if ok1 && ok2 && ok3 {
			off := int((h*60 + m) * 60)
			if s[0] == '-' {
				off = -off
			}
			return time.FixedZone(name, off), nil
		}
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, runtimeErrorf("unknown time zone '%s'", name)
	}
	return loc, nil
}

// wallToInstant interprets wall-clock nanoseconds in loc.
func wallToInstant(ns int64, loc *time.Location) int64 {
	if loc == time.UTC {
		return ns
	}
	w := time.Unix(0, ns).UTC()
	t := time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), loc)
	return t.UnixNano()
}

// instantToWall renders an instant as wall-clock nanoseconds in loc.
func instantToWall(ns int64, loc *time.Location) int64 {
	if loc == time.UTC {
		return ns
	}
	_, off := time.Unix(0, ns).In(loc).Zone()
	return ns + int64(off)*1e9
}

func newFromUnixtime(c *call) (Expr, error) {
	if err := c.want(aNum, aStr); err != nil {
		return nil, err
	}
	pat, err := patternArg(c, 1, "yyyy-MM-dd HH:mm:ss")
	if err != nil {
		return nil, err
	}
	zone := c.zone()
	return c.strictFn(types.String, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		p, err := pat(a)
		if err != nil {
			return types.Null, err
		}
		sec := a[0].Float()
		if a[0].Kind() == types.KindInt {
			sec = float64(a[0].Int())
		}
		if sec > 9.2e9 || sec < -9.2e9 {
			return types.Null, errTimestampRange()
		}
		return types.NewString(p.format(instantToWall(int64(sec)*1e9, zone))), nil
	}), nil
}

func newConvertTZ(c *call) (Expr, error) {
	if err := c.want(aStr); err != nil {
		return nil, err
	}
	from, to := zoneArg(c, 1), zoneArg(c, 2)
	pat, _ := compileDatePattern("yyyy-MM-dd HH:mm:ss")
	return c.strictFn(types.String, false, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		ns, _, err := parseTimestamp(a[0].Str())
		if err != nil {
			return types.Null, nil
		}
		fl, err := from(a)
		if err != nil {
			return types.Null, err
		}
		tl, err := to(a)
		if err != nil {
			return types.Null, err
		}
		return types.NewString(pat.format(instantToWall(wallToInstant(ns, fl), tl))), nil
	}), nil
}

// unitNanos is the length of the fixed-length TIMESTAMPADD/DIFF units;
// months counts the calendar units.
func unitLength(unit string) (nanos, months int64, ok bool) {
	switch unit {
	case "NANOSECOND":
		return 1, 0, true
	case "MICROSECOND":
		return 1e3, 0, true
	case "MILLISECOND":
		return 1e6, 0, true
	case "SECOND":
		return 1e9, 0, true
	case "MINUTE":
		return 60e9, 0, true
	case "HOUR":
		return 3600e9, 0, true
	case "DAY":
		return nanosPerDay, 0, true
	case "WEEK":
		return 7 * nanosPerDay, 0, true
	case "MONTH":
		return 0, 1, true
	case "QUARTER":
		return 0, 3, true
	case "YEAR":
		return 0, 12, true
	}
	return 0, 0, false
}

func newTimestampAdd(c *call) (Expr, error) {
	unit, err := unitArg(c, 0)
	if err != nil {
		return nil, err
	}
	nanos, months, ok := unitLength(unit)
	if !ok {
		return nil, typeErrorf("%s does not support the unit %s", c.name, unit)
	}
	if !aInt.accepts(c.args[1].Type()) || !aTemporal.accepts(c.args[2].Type()) {
		return nil, argTypeError(c.name, c.args)
	}
	t := c.args[2].Type()
	if t.ID == types.TypeNull {
		t = types.Timestamp(3)
	}
	if t.ID == types.TypeDate && nanos > 0 && nanos < nanosPerDay {
		t = types.Timestamp(0) // DATE plus hours is a TIMESTAMP, as in Calcite
	}
	args := c.args
	e := c.strictFn(t, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		n := a[1].Int()
		base := tsNanos(a[2], args[2].Type())
		var r int64
		if months != 0 {
			var ok bool
			if r, ok = addMonthsNanos(base, n*months); !ok {
				return types.Null, errTimestampRange()
			}
		} else {
			d := n * nanos
			if nanos != 0 && d/nanos != n {
				return types.Null, errTimestampRange()
			}
			var ok bool
			if r, ok = addInt64(base, d); !ok {
				return types.Null, errTimestampRange()
			}
		}
		switch t.ID {
		case types.TypeDate:
			return types.NewDate(floorDiv(r, nanosPerDay)), nil
		case types.TypeTime:
			return types.NewTime(floorMod(r, nanosPerDay)), nil
		}
		return types.NewTimestamp(r), nil
	})
	e.render = func() string { return c.name + "(" + unit + ", " + joinExprs(args[1:]) + ")" }
	return e, nil
}

func newTimestampDiff(c *call) (Expr, error) {
	unit, err := unitArg(c, 0)
	if err != nil {
		return nil, err
	}
	nanos, months, ok := unitLength(unit)
	if !ok {
		return nil, typeErrorf("%s does not support the unit %s", c.name, unit)
	}
	if !aDateTs.accepts(c.args[1].Type()) || !aDateTs.accepts(c.args[2].Type()) {
		return nil, argTypeError(c.name, c.args)
	}
	args := c.args
	e := c.strictFn(types.Int, true, func(a [maxFixedArgs]types.Value) (types.Value, error) {
		t1, t2 := tsNanos(a[1], args[1].Type()), tsNanos(a[2], args[2].Type())
		if months == 0 {
			return types.NewInt(wrapInt((t2-t1)/nanos, types.TypeInt)), nil
		}
		diff := subtractMonths(t2, t1)
		return types.NewInt(wrapInt(diff/months, types.TypeInt)), nil
	})
	e.render = func() string { return c.name + "(" + unit + ", " + joinExprs(args[1:]) + ")" }
	return e, nil
}

// floorUnits are the units of FLOOR/CEIL(timepoint TO unit).
func newTimeCeilFloor(c *call, ceil bool) (Expr, error) {
	unit, err := unitArg(c, 1)
	if err != nil {
		return nil, err
	}
	x := c.args[0]
	t := x.Type()
	if !aTemporal.accepts(t) {
		return nil, argTypeError(c.name, c.args)
	}
	if t.ID == types.TypeNull {
		t = types.Timestamp(3)
	}
	switch unit {
	case "MILLENNIUM", "CENTURY", "DECADE", "YEAR", "QUARTER", "MONTH", "WEEK", "DAY",
		"HOUR", "MINUTE", "SECOND", "MILLISECOND":
	default:
		return nil, typeErrorf("%s does not support the unit %s", c.name, unit)
	}
	// A TIMESTAMP_LTZ is rounded on its wall clock in the session zone, as
	// Flink does (FLOOR(ltz TO DAY) is local midnight).
	zone, ltz := c.zone(), t.ID == types.TypeTimestampLTZ
	e := &fnExpr{name: c.name, args: []Expr{x}, t: withNull(t, x.Type().NotNull),
		fn: func(a [maxFixedArgs]types.Value) (types.Value, error) {
			ns := tsNanos(a[0], t)
			if t.ID == types.TypeTime {
				ns = a[0].Int()
			}
			if ltz {
				ns = instantToWall(ns, zone)
			}
			f := floorTime(ns, unit)
			if ceil && f != ns {
				f = floorTime(ceilStep(f, unit), unit)
			}
			switch t.ID {
			case types.TypeDate:
				return types.NewDate(floorDiv(f, nanosPerDay)), nil
			case types.TypeTime:
				return types.NewTime(floorMod(f, nanosPerDay)), nil
			case types.TypeTimestampLTZ:
				return types.NewTimestamp(wallToInstant(f, zone)), nil
			}
			return types.NewTimestamp(f), nil
		}}
	e.render = func() string { return c.name + "(" + x.String() + " TO " + unit + ")" }
	return e, nil
}

// floorTime rounds wall-clock nanoseconds down to a unit; WEEK starts on
// Sunday, as in Calcite.
func floorTime(ns int64, unit string) int64 {
	days := floorDiv(ns, nanosPerDay)
	y, m, _ := civilFromDays(days)
	switch unit {
	case "MILLISECOND":
		return ns - floorMod(ns, 1e6)
	case "SECOND":
		return ns - floorMod(ns, 1e9)
	case "MINUTE":
		return ns - floorMod(ns, 60e9)
	case "HOUR":
		return ns - floorMod(ns, 3600e9)
	case "DAY":
		return days * nanosPerDay
	case "WEEK":
		return (days - isoDayOfWeek(days)%7) * nanosPerDay
	case "MONTH":
		return daysFromCivil(y, m, 1) * nanosPerDay
	case "QUARTER":
		return daysFromCivil(y, (m-1)/3*3+1, 1) * nanosPerDay
	case "YEAR":
		return daysFromCivil(y, 1, 1) * nanosPerDay
	case "DECADE":
		return daysFromCivil(floorDiv(y, 10)*10, 1, 1) * nanosPerDay
	case "CENTURY":
		return daysFromCivil(floorDiv(y-1, 100)*100+1, 1, 1) * nanosPerDay
	case "MILLENNIUM":
		return daysFromCivil(floorDiv(y-1, 1000)*1000+1, 1, 1) * nanosPerDay
	}
	return ns
}

// ceilStep moves a floored value one unit later.
func ceilStep(f int64, unit string) int64 {
	if n, months, ok := unitLength(unit); ok {
		if months == 0 {
			return f + n
		}
		r, _ := addMonthsNanos(f, months)
		return r
	}
	years := map[string]int64{"DECADE": 10, "CENTURY": 100, "MILLENNIUM": 1000}[unit]
	r, _ := addMonthsNanos(f, years*12)
	return r
}

// subtractMonths is Calcite's DateTimeUtils.subtractMonths(t0, t1), which
// Flink's TIMESTAMPDIFF uses: whole months from t1 to t0, where a month
// added to the 31st that lands on a shorter month's last day counts.
func subtractMonths(t0, t1 int64) int64 {
	ms0, ms1 := floorMod(t0, nanosPerDay), floorMod(t1, nanosPerDay)
	d0, d1 := floorDiv(t0, nanosPerDay), floorDiv(t1, nanosPerDay)
	x := subtractMonthsDays(d0, d1)
	if addMonthsDays(d1, x) == d0 && ms0 < ms1 {
		x--
	}
	return x
}

func subtractMonthsDays(d0, d1 int64) int64 {
	if d0 < d1 {
		return -subtractMonthsDays(d1, d0)
	}
	m := (d0 - d1) / 31
	for {
		if addMonthsDays(d1, m) >= d0 || addMonthsDays(d1, m+1) > d0 {
			return m
		}
		m++
	}
}

// buildExtractInterval extracts a field of an interval, truncating toward
// zero like Calcite: EXTRACT(DAY FROM INTERVAL '16979 07:23:33' DAY TO
// SECOND) is 16979 and EXTRACT(HOUR ...) 7.
func buildExtractInterval(c *call, unit string, x Expr) (Expr, error) {
	e := &fnExpr{name: c.name, args: []Expr{x}, t: withNull(types.BigInt, x.Type().NotNull),
		fn: func(a [maxFixedArgs]types.Value) (types.Value, error) {
			n := a[0].Int()
			var r int64
			switch unit {
			case "YEAR":
				r = n / 12
			case "MONTH":
				r = n % 12
			case "DAY":
				r = n / nanosPerDay
			case "HOUR":
				r = n % nanosPerDay / 3600e9
			case "MINUTE":
				r = n % 3600e9 / 60e9
			case "SECOND":
				r = n % 60e9 / 1e9
			case "MILLISECOND":
				r = n % 60e9 / 1e6
			case "MICROSECOND":
				r = n % 60e9 / 1e3
			case "NANOSECOND":
				r = n % 60e9
			}
			return types.NewInt(r), nil
		}}
	if c.name == "EXTRACT" {
		e.render = func() string { return "EXTRACT(" + unit + " FROM " + x.String() + ")" }
	}
	return e, nil
}
