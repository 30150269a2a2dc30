package webpage

import (
	"strconv"
	"strings"
)

// numberFormat is how a language writes an amount.
type numberFormat struct {
	group, decimal string
	// signs writes the currency's sign after the number ("1 500,00 ₽");
	// without it the ISO code follows ("1,500.00 RUB").
	signs bool
}

// The separators of CLDR for these languages: Russian and Kazakh group
// thousands with a no-break space (U+00A0) and write a decimal comma;
// English groups with a comma and keeps the ISO code after the number, as
// the pages wrote it before.
var numberFormats = map[string]numberFormat{
	"ru": {group: "\u00a0", decimal: ",", signs: true},
	"kk": {group: "\u00a0", decimal: ",", signs: true},
	"en": {group: ",", decimal: "."},
}

var currencySigns = map[string]string{"RUB": "₽", "KZT": "₸", "USD": "$", "EUR": "€"}

// Amount writes minor units of currency (two fraction digits, as every
// currency of the contract has) for a reader of the page's language:
// "1 500,00 ₽" and "15 000,00 ₸" in Russian and Kazakh, with no-break
// spaces, and "1,500.00 RUB" in English. Integers all the way: no float
// ever holds an amount.
func (l Locale) Amount(minor int64, currency string) string {
	f := numberFormats[l.Lang()]
	var b strings.Builder
	u := uint64(minor)
	if minor < 0 {
		b.WriteByte('-')
		u = -u
	}
	units := strconv.FormatUint(u/100, 10)
	for i, d := range units {
		if i > 0 && (len(units)-i)%3 == 0 {
			b.WriteString(f.group)
		}
		b.WriteRune(d)
	}
	b.WriteString(f.decimal)
	cents := u % 100
	b.WriteByte(byte('0' + cents/10))
	b.WriteByte(byte('0' + cents%10))
	if sign, ok := currencySigns[currency]; ok && f.signs {
		b.WriteString("\u00a0" + sign)
	} else {
		b.WriteString("\u00a0" + currency)
	}
	return b.String()
}
