package storetest_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/paydhq/payd"
)

// TestEveryTxMethodHasACase fails for each method of payd.Tx that the suite
// never calls, so a store method cannot be added, or its SQL changed,
// without a case that both databases must pass.
//
// It reads the suite's own source (the non-test files of this package,
// which are what a backend runs through Run) and collects the names of
// every selector call, x.Name(...). A method counts as covered when some
// call bears its name; the names of payd.Tx are specific enough (noun
// first, PaymentGetByOrderID) that no other call in the suite shares one.
func TestEveryTxMethodHasACase(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	called := map[string]bool{}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if call, ok := n.(*ast.CallExpr); ok {
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					called[sel.Sel.Name] = true
				}
			}
			return true
		})
	}
	if len(called) == 0 {
		t.Fatal("no calls found in the suite's source; is the test running in the storetest directory?")
	}

	txType := reflect.TypeFor[payd.Tx]()
	if txType.NumMethod() == 0 {
		t.Fatal("payd.Tx has no methods")
	}
	var missing []string
	for m := range txType.Methods() {
		if !called[m.Name] {
			missing = append(missing, m.Name)
		}
	}
	for _, name := range missing {
		t.Errorf("payd.Tx.%s has no case in storetest", name)
	}
	if len(missing) > 0 {
		t.Logf("%d of %d Tx methods have no case; add one to the storetest file of their area", len(missing), txType.NumMethod())
	}
}
