package dashboard

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
	"github.com/paydhq/payd/money"
)

// TestEveryCodeHasWords checks that each code of the contract (the
// constants of payd's error.go) has words of its own, so that a refusal
// whose wording the catalogue lacks is still said in the page's language.
func TestEveryCodeHasWords(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../../error.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	ast.Inspect(f, func(node ast.Node) bool {
		vs, ok := node.(*ast.ValueSpec)
		if !ok || vs.Type == nil || len(vs.Values) != 1 {
			return true
		}
		if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "ErrorCode" {
			return true
		}
		code, _ := strconv.Unquote(vs.Values[0].(*ast.BasicLit).Value)
		n++
		if _, ok := codeTexts[payd.ErrorCode(code)]; !ok {
			t.Errorf("code %s has no words", code)
		}
		return true
	})
	if n < 20 {
		t.Fatalf("found only %d codes in error.go", n)
	}
}

// TestSayInThePagesLanguage checks that a refusal shows in the page's
// language with its values written as the page writes them, and that the
// English Message never shows on a Russian or Kazakh page.
func TestSayInThePagesLanguage(t *testing.T) {
	above := payd.Errorf(payd.CodeRefundExceedsCaptured, "the refund is above the refundable amount %s", payd.Sum{Minor: 130000, Currency: money.RUB})
	if above.Message != "the refund is above the refundable amount 1300.00" {
		t.Errorf("the API's message changed: %q", above.Message)
	}
	state := payd.Errorf(payd.CodeInvalidState, "a payment in status %s cannot become %s", payd.PaymentPending, payd.PaymentSucceeded)
	unknown := payd.Invalid("metadata", "metadata keys must be 1..%d characters and %s", 64, "more")
	for _, c := range []struct {
		lang string
		err  *payd.Error
		want string
	}{
		{"ru", above, "Сумма возврата больше суммы, доступной к возврату: 1\u00a0300,00\u00a0₽."},
		{"kk", above, "Қайтару сомасы қайтаруға қолжетімді сомадан көп: 1\u00a0300,00\u00a0₽."},
		{"en", above, "the refund is above the refundable amount 1,300.00\u00a0RUB"},
		{"ru", payd.NotFound("payment"), "Платёж не найден."},
		{"ru", state, "Платёж в статусе «" + webpage.For("ru").T("Pending") + "» не может стать «" + webpage.For("ru").T("Succeeded") + "»."},
		{"kk", unknown, webpage.For("kk").T("This value is not accepted.")},
		{"en", unknown, unknown.Message},
		{"ru", payd.Invalid("amount.value", "%s", said("Введите сумму")), "Введите сумму"},
	} {
		if got := say(webpage.For(c.lang), c.err); got != c.want {
			t.Errorf("%s say(%q) = %q, want %q", c.lang, c.err.Message, got, c.want)
		}
	}
}
