package payd

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// attemptPaths are every path to a provider attempt in the module, as
// "caller → callee", and what each does about the pre-check. A new path
// fails TestAttemptPathsAreListed until it is added here, with its reason.
var attemptPaths = map[string]string{
	// The one place that talks to a provider: it refuses a payment whose
	// shop has the pre-check on and has not allowed it (precheckGate), and
	// every candidate of the cascade goes by that one decision.
	"payd.startAttempt → CreateAttempt": "gate",
	// The create path of POST /payments and of the payment link page, QR:
	// only for a shop without the pre-check; a shop with it gets a
	// QRAttemptArgs job instead. (A link's payment is always a redirect.)
	"payd.createPayment → startAttempt": "no pre-check",
	// The hosted page and the embedded form (ChooseMethod,
	// ChooseEmbeddedMethod): authorizeRequest before the attempt
	// transaction.
	"payd.chooseMethod → startAttempt": "asks",
	// The QR job: authorizeRequest before the attempt transaction.
	"payd.StartQRAttempt → startAttempt": "asks",
}

// TestAttemptPathsAreListed finds every call of startAttempt and of a
// provider's CreateAttempt outside tests and checks the list above names
// them all.
func TestAttemptPathsAreListed(t *testing.T) {
	t.Parallel()
	var found []string
	fset := token.NewFileSet()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				call, ok := n.(*ast.CallExpr)
				if !ok {
					return true
				}
				if sel, ok := call.Fun.(*ast.SelectorExpr); ok {
					if name := sel.Sel.Name; name == "startAttempt" || name == "CreateAttempt" {
						found = append(found, f.Name.Name+"."+fn.Name.Name+" → "+name)
					}
				}
				return true
			})
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(found)
	found = slices.Compact(found)
	var want []string
	for path := range attemptPaths {
		want = append(want, path)
	}
	slices.Sort(want)
	if d := cmp.Diff(want, found); d != "" {
		t.Fatalf("paths to a provider attempt mismatch (-want +got):\n%s", d)
	}
}

// countingProvider takes every attempt and counts them.
type countingProvider struct {
	Provider
	n int
}

func (p *countingProvider) Name() string { return "counting" }

func (p *countingProvider) CreateAttempt(context.Context, Tx, AttemptRequest) (*AttemptResult, error) {
	p.n++
	return &AttemptResult{ProviderPaymentID: "ppid"}, nil
}

// TestStartAttemptGate: with the shop's pre-check on, no provider is asked
// for a payment the shop has not allowed.
func TestStartAttemptGate(t *testing.T) {
	t.Parallel()
	on := &Shop{Settings: ShopSettings{AuthorizeRequestWebhook: true}}
	off := &Shop{}
	cases := []struct {
		name     string
		shop     *Shop
		precheck *Precheck
		attempts int
	}{
		{"PrecheckOff", off, nil, 1},
		{"ErrNotAsked", on, nil, 0},
		{"ErrBeingAsked", on, &Precheck{EventID: "evt_1"}, 0},
		{"ErrDenied", on, &Precheck{EventID: "evt_1", Decision: PrecheckDeny}, 0},
		{"Allowed", on, &Precheck{EventID: "evt_1", Decision: PrecheckAllow}, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			pr := &countingProvider{}
			s := NewService(Config{Clock: &TestClock{}, Providers: []Provider{pr}})
			pay := &Payment{ID: "pay_1", Status: PaymentPending, Precheck: tc.precheck}
			err := s.startAttempt(t.Context(), nil, tc.shop, pay, MethodSBP, []string{"counting"})
			if pr.n != tc.attempts {
				t.Fatalf("%d attempts, want %d (err %v)", pr.n, tc.attempts, err)
			}
			if tc.attempts == 0 && err != ErrPrecheckBusy {
				t.Fatalf("err = %v, want ErrPrecheckBusy", err)
			}
		})
	}
}
