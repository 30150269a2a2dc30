package operator

import (
	"time"

	"github.com/paydhq/payd/internal/ledger"
	"github.com/paydhq/payd/money"
)

// entryJSON is a ledger entry with its postings. Its members have always
// been named as the ledger's Go fields (ID, At, Kind, …), and are kept so;
// they are spelled out here so that renaming a field of the ledger does
// not rename them.
type entryJSON struct {
	ID       string           `json:"ID"`
	At       time.Time        `json:"At"`
	Kind     ledger.EntryKind `json:"Kind"`
	RefType  string           `json:"RefType"`
	RefID    string           `json:"RefID"`
	Postings []postingJSON    `json:"Postings"`
}

// postingJSON moves Amount (minor units, signed) into Account.
type postingJSON struct {
	Account accountJSON `json:"Account"`
	Amount  int64       `json:"Amount"`
}

type accountJSON struct {
	Owner    string         `json:"Owner"`
	Test     bool           `json:"Test"`
	Currency money.Currency `json:"Currency"`
	Bucket   ledger.Bucket  `json:"Bucket"`
	Sub      string         `json:"Sub"`
}

func entryView(e *ledger.Entry) entryJSON {
	return entryJSON{ID: e.ID, At: e.At, Kind: e.Kind, RefType: e.RefType, RefID: e.RefID,
		Postings: views(e.Postings, func(p ledger.Posting) postingJSON {
			a := p.Account
			return postingJSON{Account: accountJSON{Owner: a.Owner, Test: a.Test, Currency: a.Currency, Bucket: a.Bucket, Sub: a.Sub},
				Amount: p.Amount}
		})}
}

// balanceView writes each bucket's sum as the contract writes money,
// {"value": "5968.24", "currency": "RUB"}, signed since a bucket may be
// negative, so that it reads like the objects around it.
func balanceView(b map[money.Currency]map[ledger.Bucket]int64) map[money.Currency]map[ledger.Bucket]money.Signed {
	out := make(map[money.Currency]map[ledger.Bucket]money.Signed, len(b))
	for c, buckets := range b {
		out[c] = make(map[ledger.Bucket]money.Signed, len(buckets))
		for bucket, minor := range buckets {
			out[c][bucket] = money.Signed{Minor: minor, Currency: c}
		}
	}
	return out
}
