package udf

import (
	"fmt"
	"reflect"
	"time"

	"github.com/cockroachdb/apd/v3"
	"github.com/eddy-sql/eddy/types"
)

// The Go types of typed parameters and results, and their SQL types:
//
//	bool                 BOOLEAN NOT NULL
//	int8, int16, int32   TINYINT, SMALLINT, INT NOT NULL
//	int64, int           BIGINT NOT NULL
//	float32, float64     FLOAT, DOUBLE NOT NULL
//	string               STRING NOT NULL
//	[]byte               BYTES NOT NULL
//	time.Time            TIMESTAMP(9) NOT NULL (a wall-clock time, read as UTC)
//	time.Duration        INTERVAL DAY TO SECOND(3) NOT NULL
//	*apd.Decimal         DECIMAL(38, 18) (nil is NULL)
//	*T for the above     the same type, nullable (nil is NULL)
//	types.Value          Any as an argument; a result needs a declared type
//
// Declare another SQL type with Overload.WithArgs and Overload.Returns:
// the values are cast to it before the call (VARCHAR(10) for a string,
// DECIMAL(10, 2) for a *apd.Decimal).
var goSQLTypes = map[reflect.Type]types.Type{
	reflect.TypeFor[bool]():          types.Boolean,
	reflect.TypeFor[int8]():          types.TinyInt,
	reflect.TypeFor[int16]():         types.SmallInt,
	reflect.TypeFor[int32]():         types.Int,
	reflect.TypeFor[int64]():         types.BigInt,
	reflect.TypeFor[int]():           types.BigInt,
	reflect.TypeFor[float32]():       types.Float,
	reflect.TypeFor[float64]():       types.Double,
	reflect.TypeFor[string]():        types.String,
	reflect.TypeFor[[]byte]():        types.Bytes,
	reflect.TypeFor[time.Time]():     types.Timestamp(9),
	reflect.TypeFor[time.Duration](): types.Interval,
}

var (
	decimalGoType = reflect.TypeFor[*apd.Decimal]()
	valueGoType   = reflect.TypeFor[types.Value]()
)

// goType returns the declared type of Go type T.
func goType[T any]() (ArgType, error) {
	rt := reflect.TypeFor[T]()
	switch {
	case rt == valueGoType:
		return ArgType{Any: true}, nil
	case rt == decimalGoType:
		return ArgType{Type: types.Decimal(38, 18)}, nil
	}
	if t, ok := goSQLTypes[rt]; ok {
		return ArgType{Type: t.NonNull()}, nil
	}
	if rt.Kind() == reflect.Pointer {
		if t, ok := goSQLTypes[rt.Elem()]; ok {
			return ArgType{Type: t}, nil
		}
	}
	return ArgType{}, fmt.Errorf("Go type %s has no SQL type: use bool, the integer and float types, string, []byte, time.Time, time.Duration, *apd.Decimal, pointers to those, or types.Value", rt)
}

// fromValue converts a SQL value (already cast to T's SQL type) to T. A
// NULL becomes the zero T (nil for pointers).
func fromValue[T any](v types.Value) T {
	var out T
	null := v.IsNull()
	switch p := any(&out).(type) {
	case *types.Value:
		*p = v
	case *bool:
		*p = v.Bool()
	case *int8:
		*p = int8(v.Int())
	case *int16:
		*p = int16(v.Int())
	case *int32:
		*p = int32(v.Int())
	case *int64:
		*p = v.Int()
	case *int:
		*p = int(v.Int())
	case *float32:
		*p = float32(v.Float())
	case *float64:
		*p = v.Float()
	case *string:
		*p = v.Str()
	case *[]byte:
		if !null {
			*p = v.Bytes()
		}
	case *time.Time:
		if !null {
			*p = v.Time()
		}
	case *time.Duration:
		*p = v.Duration()
	case **apd.Decimal:
		if !null {
			*p = decimalOf(v)
		}
	case **bool:
		*p = ptrIf(!null, v.Bool())
	case **int8:
		*p = ptrIf(!null, int8(v.Int()))
	case **int16:
		*p = ptrIf(!null, int16(v.Int()))
	case **int32:
		*p = ptrIf(!null, int32(v.Int()))
	case **int64:
		*p = ptrIf(!null, v.Int())
	case **int:
		*p = ptrIf(!null, int(v.Int()))
	case **float32:
		*p = ptrIf(!null, float32(v.Float()))
	case **float64:
		*p = ptrIf(!null, v.Float())
	case **string:
		*p = ptrIf(!null, v.Str())
	case **[]byte:
		*p = ptrIf(!null, v.Bytes())
	case **time.Time:
		*p = ptrIf(!null, v.Time())
	case **time.Duration:
		*p = ptrIf(!null, v.Duration())
	}
	return out
}

func ptrIf[T any](ok bool, x T) *T {
	if !ok {
		return nil
	}
	return &x
}

// decimalOf returns a DECIMAL value's number (integers too).
func decimalOf(v types.Value) *apd.Decimal {
	if d := v.Decimal(); d != nil {
		return d
	}
	return apd.New(v.Int(), 0)
}

// toValue converts a Go result to a SQL value; nil pointers are NULL.
func toValue[T any](x T) types.Value {
	switch r := any(x).(type) {
	case types.Value:
		return r
	case bool:
		return types.NewBool(r)
	case int8:
		return types.NewInt(int64(r))
	case int16:
		return types.NewInt(int64(r))
	case int32:
		return types.NewInt(int64(r))
	case int64:
		return types.NewInt(r)
	case int:
		return types.NewInt(int64(r))
	case float32:
		return types.NewFloat(float64(r))
	case float64:
		return types.NewFloat(r)
	case string:
		return types.NewString(r)
	case []byte:
		return types.NewBytes(r)
	case time.Time:
		return types.NewTimestampTime(r)
	case time.Duration:
		return types.NewInterval(r)
	case *apd.Decimal:
		if r == nil {
			return types.Null
		}
		return types.NewDecimal(r)
	}
	rv := reflect.ValueOf(x)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return types.Null
		}
		return toValueAny(rv.Elem().Interface())
	}
	return types.Null
}

// toValueAny is toValue for a dynamically typed value.
func toValueAny(x any) types.Value {
	switch r := x.(type) {
	case nil:
		return types.Null
	case types.Value:
		return r
	case bool:
		return toValue(r)
	case int8:
		return toValue(r)
	case int16:
		return toValue(r)
	case int32:
		return toValue(r)
	case int64:
		return toValue(r)
	case int:
		return toValue(r)
	case float32:
		return toValue(r)
	case float64:
		return toValue(r)
	case string:
		return toValue(r)
	case []byte:
		return toValue(r)
	case time.Time:
		return toValue(r)
	case time.Duration:
		return toValue(r)
	case *apd.Decimal:
		return toValue(r)
	}
	rv := reflect.ValueOf(x)
	if rv.Kind() == reflect.Pointer {
		if rv.IsNil() {
			return types.Null
		}
		return toValueAny(rv.Elem().Interface())
	}
	panic(fmt.Sprintf("udf: Go value of type %T has no SQL value", x))
}
