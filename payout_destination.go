package payd

import (
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// PayoutDestination is where a payout goes, as the request gave it. It
// lives only for the request: the service keeps its masked form, and the
// payout provider receives it in the creation transaction.
type PayoutDestination struct {
	Type          DestinationType
	CardToken     string
	Phone         string
	BankID        string
	AccountNumber string
	BIC           string
	// Given names the fields the request carried (besides type), so that
	// a field of another kind is refused rather than silently dropped.
	Given []string
}

// destinationFields are the fields of each destination kind.
var destinationFields = map[DestinationType][]string{
	DestinationCard:        {"card_token"},
	DestinationSBP:         {"phone", "bank_id"},
	DestinationBankAccount: {"account_number", "bic"},
}

// Formats of destination fields (docs/payouts.md, Destinations).
var (
	cardTokenPattern = regexp.MustCompile(`^[A-Za-z0-9_-]{8,128}$`)
	e164Pattern      = regexp.MustCompile(`^\+[1-9][0-9]{7,14}$`)
	ruPhonePattern   = regexp.MustCompile(`^\+7[0-9]{10}$`)
	sbpBankPattern   = regexp.MustCompile(`^1[0-9]{11}$`)
	ruBICPattern     = regexp.MustCompile(`^04[0-9]{7}$`)
	ruAccountPattern = regexp.MustCompile(`^[0-9]{20}$`)
	kzBICPattern     = regexp.MustCompile(`^[A-Z]{4}KZ[A-Z0-9]{2}([A-Z0-9]{3})?$`)
	kzIBANPattern    = regexp.MustCompile(`^KZ[0-9]{2}[0-9]{3}[0-9A-Z]{13}$`)
)

// Check validates the destination for a shop of region and returns its
// kind (the card_token alias read as card) and its masked form. Every
// refusal is 400 invalid_request naming the field as destination.<field>.
func (d PayoutDestination) Check(region Region) (kind DestinationType, masked string, err error) {
	kind = d.Type
	if kind == DestinationCardToken {
		kind = DestinationCard
	}
	fields, ok := destinationFields[kind]
	switch {
	case d.Type == "":
		return "", "", Invalid("destination.type", "destination.type is required: card, sbp or bank_account")
	case !ok:
		return "", "", Invalid("destination.type", "destination.type must be card, sbp or bank_account")
	case kind == DestinationSBP && region != RegionRU:
		return "", "", Invalid("destination.type", "sbp payouts are available to shops of region ru")
	}
	for _, f := range d.Given {
		if !slices.Contains(fields, f) {
			return "", "", Invalid("destination."+f, "%s is not a field of %s destinations", f, kind)
		}
	}
	switch kind {
	case DestinationCard:
		masked, err = d.checkCard()
	case DestinationSBP:
		masked, err = d.checkSBP()
	default:
		masked, err = d.checkBankAccount(region)
	}
	return kind, masked, err
}

func (d PayoutDestination) checkCard() (string, error) {
	switch {
	case d.CardToken == "":
		return "", Invalid("destination.card_token", "destination.card_token is required")
	case !cardTokenPattern.MatchString(d.CardToken):
		return "", Invalid("destination.card_token", "card_token must be 8..128 characters of A-Z, a-z, 0-9, _ and -; card numbers are never accepted")
	}
	// Tokens end with the card's last four digits (the banks' convention,
	// and the sandbox's): they are all that is ever shown.
	last := d.CardToken[len(d.CardToken)-4:]
	if strings.Trim(last, "0123456789") != "" {
		return "card ****", nil
	}
	return "card ****" + last, nil
}

func (d PayoutDestination) checkSBP() (string, error) {
	switch {
	case d.Phone == "":
		return "", Invalid("destination.phone", "destination.phone is required")
	case !e164Pattern.MatchString(d.Phone):
		return "", Invalid("destination.phone", "phone must be in E.164 form: + and 8..15 digits, such as +79001234567")
	case !ruPhonePattern.MatchString(d.Phone):
		return "", Invalid("destination.phone", "SBP pays to Russian numbers only: +7 and 10 digits")
	case d.BankID == "":
		return "", Invalid("destination.bank_id", "destination.bank_id is required")
	case !sbpBankPattern.MatchString(d.BankID):
		return "", Invalid("destination.bank_id", "bank_id must be the bank's 12-digit SBP member id, such as 100000000111")
	}
	return "+7 *** ***-**-" + d.Phone[len(d.Phone)-2:], nil
}

func (d PayoutDestination) checkBankAccount(region Region) (string, error) {
	if d.AccountNumber == "" {
		return "", Invalid("destination.account_number", "destination.account_number is required")
	}
	if d.BIC == "" {
		return "", Invalid("destination.bic", "destination.bic is required")
	}
	if region == RegionKZ {
		switch {
		case !kzIBANPattern.MatchString(d.AccountNumber):
			return "", Invalid("destination.account_number", "account_number must be a Kazakh IBAN: KZ, 2 check digits, 3-digit bank code and 13 characters")
		case !ibanValid(d.AccountNumber):
			return "", Invalid("destination.account_number", "account_number fails the IBAN check digits")
		case !kzBICPattern.MatchString(d.BIC):
			return "", Invalid("destination.bic", "bic must be a SWIFT code of a Kazakh bank: 8 or 11 characters, KZ in place 5-6")
		}
	} else {
		switch {
		case !ruBICPattern.MatchString(d.BIC):
			return "", Invalid("destination.bic", "bic must be 9 digits beginning with 04")
		case !ruAccountPattern.MatchString(d.AccountNumber):
			return "", Invalid("destination.account_number", "account_number must be 20 digits")
		case !ruAccountKeyValid(d.BIC, d.AccountNumber):
			return "", Invalid("destination.account_number", "account_number does not match the bic (control digit)")
		}
	}
	return "account ****" + d.AccountNumber[len(d.AccountNumber)-4:], nil
}

// ruAccountKeyValid checks the control digit of an account at a credit
// institution (Bank of Russia rules): the last three digits of the BIC
// followed by the 20 digits of the account, weighted 7, 1, 3 in turn, sum
// to a multiple of ten.
func ruAccountKeyValid(bic, account string) bool {
	digits := bic[6:] + account
	weights := [3]int{7, 1, 3}
	sum := 0
	for i, c := range digits {
		sum += int(c-'0') * weights[i%3] % 10
	}
	return sum%10 == 0
}

// ibanValid checks an IBAN's check digits (ISO 13616, mod 97).
func ibanValid(iban string) bool {
	var b strings.Builder
	for _, c := range iban[4:] + iban[:4] {
		if c >= 'A' && c <= 'Z' {
			b.WriteString(strconv.Itoa(int(c-'A') + 10))
		} else {
			b.WriteRune(c)
		}
	}
	n, ok := new(big.Int).SetString(b.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}
