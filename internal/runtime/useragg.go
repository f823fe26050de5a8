package runtime

import (
	"fmt"

	"github.com/eddy-sql/eddy/internal/jobgraph"
	"github.com/eddy-sql/eddy/types"
)

// userAggFunc runs a user-defined aggregate function: its accumulator is
// ext.user, created on the first row. A panic in the function becomes an
// error that fails the statement. An error of Value (which the aggFunc
// interface cannot return) is kept in err for the operator to report.
type userAggFunc struct {
	name string
	fn   jobgraph.UserAggregate
	err  error
}

// guard calls f, turning a panic into an error.
func (u *userAggFunc) guard(what string, f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("aggregate function %s panicked in %s: %v", u.name, what, r)
		}
	}()
	if err := f(); err != nil {
		return fmt.Errorf("aggregate function %s: %s: %w", u.name, what, err)
	}
	return nil
}

// userAcc is a user-defined aggregate's accumulator in an accState:
// the function's value (acc) with its encoding (enc), re-encoded after
// every change so that encoding for state never fails; or, restored from
// state and until the function first uses it, the stored bytes (raw).
type userAcc struct {
	acc any
	enc []byte
	raw []byte
}

// bytes returns the encoding to store.
func (a *userAcc) bytes() []byte {
	if a.acc == nil {
		return a.raw
	}
	return a.enc
}

// acc returns the accumulator of s: new, decoded, or the one in use.
func (u *userAggFunc) acc(s *accState) (*userAcc, error) {
	x := s.x()
	switch {
	case x.user == nil:
		a := &userAcc{}
		err := u.guard("CreateAccumulator", func() error {
			var err error
			a.acc, err = u.fn.CreateAccumulator()
			if err == nil && a.acc == nil {
				err = fmt.Errorf("it returned a nil accumulator")
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		if err := u.encode(a); err != nil {
			return nil, err
		}
		x.user = a
	case x.user.acc == nil:
		err := u.guard("DecodeAccumulator", func() error {
			var err error
			x.user.acc, err = u.fn.DecodeAccumulator(x.user.raw)
			if err == nil && x.user.acc == nil {
				err = fmt.Errorf("it returned a nil accumulator")
			}
			return err
		})
		if err != nil {
			return nil, err
		}
		x.user.enc, x.user.raw = x.user.raw, nil
	}
	return x.user, nil
}

// encode stores a's current encoding.
func (u *userAggFunc) encode(a *userAcc) error {
	return u.guard("EncodeAccumulator", func() error {
		b, err := u.fn.EncodeAccumulator(a.acc)
		a.enc = b
		return err
	})
}

// change runs f on the accumulator of s, then re-encodes it.
func (u *userAggFunc) change(s *accState, what string, f func(acc any) error) error {
	a, err := u.acc(s)
	if err != nil {
		return err
	}
	if err := u.guard(what, func() error { return f(a.acc) }); err != nil {
		return err
	}
	return u.encode(a)
}

func (u *userAggFunc) add(s *accState, args []types.Value) error {
	return u.change(s, "Accumulate", func(acc any) error { return u.fn.Accumulate(acc, args) })
}

func (u *userAggFunc) retract(s *accState, args []types.Value) error {
	return u.change(s, "Retract", func(acc any) error { return u.fn.Retract(acc, args) })
}

// merge merges src's accumulator into dst's (the function's Merge).
func (u *userAggFunc) merge(dst, src *accState) error {
	if src.ext == nil || src.ext.user == nil {
		return nil
	}
	other, err := u.acc(src)
	if err != nil {
		return err
	}
	return u.change(dst, "Merge", func(acc any) error { return u.fn.Merge(acc, other.acc) })
}

func (u *userAggFunc) value(s *accState) types.Value {
	acc, err := u.acc(s)
	if err != nil {
		u.err = err
		return types.Null
	}
	var v types.Value
	if err := u.guard("Value", func() error {
		var err error
		v, err = u.fn.Value(acc.acc)
		return err
	}); err != nil {
		u.err = err
		return types.Null
	}
	return v
}

// takeErr returns and clears the error of the last value call.
func (u *userAggFunc) takeErr() error {
	err := u.err
	u.err = nil
	return err
}
