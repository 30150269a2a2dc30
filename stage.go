package payd

import (
	"fmt"
	"strings"
)

// BuiltStage is the latest stage this build implements. A service may be
// started at any stage up to it; the operations of later stages answer
// `501 not_implemented` naming their stage.
const BuiltStage = StageM5

// String names the stage as `payd serve --stage` takes it: v1 for the
// contract's first delivery (M1), then M2 and M5.
func (s Stage) String() string {
	switch s {
	case 0, StageM1:
		return "v1"
	case StageM2:
		return "M2"
	case StageM5:
		return "M5"
	}
	return fmt.Sprintf("M%d", int(s))
}

// LaterStage is the 501 of an operation of stage need, named by what
// ("payouts arrive in stage M5"), on a service running at stage have. Below
// need it names the switch that serves it: the stage is the service's
// setting, not the build's.
func LaterStage(have, need Stage, what string) *Error {
	if have >= need {
		return &Error{Code: CodeNotImplemented, Message: "not implemented yet at stage " + have.String() + ": " + what}
	}
	return &Error{Code: CodeNotImplemented, Message: fmt.Sprintf(
		"not enabled at this service's stage %s: %s; the service serves it when started with --stage %s (make run STAGE=%s)",
		have, what, need, need)}
}

// ParseStage reads a stage name: "v1" (also "M1"), "M2" or "M5", in any
// case; empty means v1. A stage the build does not implement yet is
// refused, so that its routes never become silent 404s.
func ParseStage(name string) (Stage, error) {
	var st Stage
	switch strings.ToUpper(strings.TrimSpace(name)) {
	case "", "V1", "M1":
		st = StageM1
	case "M2":
		st = StageM2
	case "M5":
		st = StageM5
	default:
		return 0, fmt.Errorf("unknown stage %q: use v1, M2 or M5", name)
	}
	if st > BuiltStage {
		return 0, fmt.Errorf("stage %s is not built yet: this build goes up to %s", st, BuiltStage)
	}
	return st, nil
}
