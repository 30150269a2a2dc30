package operator_test

import (
	"os"
	"testing"

	"github.com/paydhq/payd/internal/paydtest"
)

// The package's services share emptied schemas (paydtest.Main).
func TestMain(m *testing.M) { os.Exit(paydtest.Main(m)) }
