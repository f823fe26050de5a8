package ptf

import (
	"errors"
	"math"
	"time"
)

// Errors returned by the SDK calls of a Context. They are values: a
// function may test them with errors.Is and carry on, or return them (or
// an error wrapping them) to fail the call.
var (
	// ErrTimersNotSupported is returned when registering a timer in a call
	// that cannot have timers (Flink's message): functions without a
	// set-semantic table, with pass-through columns or with updating input.
	ErrTimersNotSupported = errors.New("Timers are not supported in the current PTF declaration. " +
		"Note that only PTFs that take set semantic tables support timers. " +
		"Also timers are not available for advanced traits such as supporting pass-through columns or updates.")
	// ErrEmptyTimerName is returned by RegisterOnTime for the name "".
	ErrEmptyTimerName = errors.New("ptf: timer names must not be empty; use RegisterOnTimeUnnamed for unnamed timers")
	// ErrTimerOutOfRange is returned for a timer time the engine cannot
	// represent: before MinTime or after MaxNanoTime, except MaxTime itself.
	ErrTimerOutOfRange = errors.New("ptf: timer time out of range")
	// ErrUnknownState is returned for a state entry the function did not
	// declare.
	ErrUnknownState = errors.New("Unknown state entry")
)

// MaxTime is the largest time a timer can be registered at: Java's
// Long.MAX_VALUE milliseconds, the time of Flink's final watermark. A
// timer at MaxTime fires when the input ends (at the maximum watermark),
// and the watermark at the end of a bounded input reads as MaxTime.
var MaxTime = time.UnixMilli(math.MaxInt64).UTC()

// MinTime and MaxNanoTime bound the other times Eddy represents (in
// nanoseconds since the epoch, years 1677 to 2262).
var (
	MinTime     = time.Unix(0, math.MinInt64).UTC()
	MaxNanoTime = time.Unix(0, math.MaxInt64).UTC()
)
