package ledger

import (
	"errors"
	"testing"

	"github.com/paydhq/payd/money"
)

func acct(b Bucket, sub string) Account {
	return Account{Owner: "mer_1", Test: true, Currency: money.RUB, Bucket: b, Sub: sub}
}

func TestValidate(t *testing.T) {
	t.Parallel()
	ok := Entry{Postings: append(Move(acct(ProviderClearing, ""), acct(Pending, "pay_1"), 1000), Move(acct(Pending, "pay_1"), acct(Fees, ""), 28)...)}
	if err := ok.Validate(); err != nil {
		t.Fatalf("balanced entry: %v", err)
	}
	bad := Entry{Postings: []Posting{{Account: acct(Pending, ""), Amount: 10}}}
	if err := bad.Validate(); !errors.Is(err, ErrUnbalanced) {
		t.Fatalf("unbalanced entry: %v", err)
	}
	if err := (&Entry{}).Validate(); !errors.Is(err, ErrEmpty) {
		t.Fatalf("empty entry: %v", err)
	}
	usd := acct(Available, "")
	usd.Currency = money.USD
	mixed := Entry{Postings: []Posting{{Account: acct(Available, ""), Amount: 10}, {Account: usd, Amount: -10}}}
	if err := mixed.Validate(); !errors.Is(err, ErrCurrencies) {
		t.Fatalf("two currencies: %v", err)
	}
}

func TestKeyRoundTrip(t *testing.T) {
	t.Parallel()
	for _, a := range []Account{acct(Pending, "pay_01"), acct(Available, ""), {Owner: ServiceOwner, Currency: money.KZT, Bucket: Fees}} {
		b, err := ParseKey(a.Key())
		if err != nil || b != a {
			t.Fatalf("ParseKey(%q) = %+v, %v", a.Key(), b, err)
		}
	}
	if _, err := ParseKey("x:y"); err == nil {
		t.Fatal("malformed key accepted")
	}
}

func TestMoveAndBalances(t *testing.T) {
	t.Parallel()
	if Move(acct(Pending, ""), acct(Available, ""), 0) != nil {
		t.Fatal("a zero move has postings")
	}
	bal := Balances(append(Move(acct(Pending, ""), acct(Available, ""), 70), Move(acct(Available, ""), acct(PendingRefunds, ""), 20)...))
	if bal[acct(Pending, "").Key()] != -70 || bal[acct(Available, "").Key()] != 50 || bal[acct(PendingRefunds, "").Key()] != 20 {
		t.Fatalf("balances = %v", bal)
	}
}
