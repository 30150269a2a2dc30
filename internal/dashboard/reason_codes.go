package dashboard

// reasonCode is what a card scheme's dispute reason code means, in plain
// words (a catalogue key), with the scheme that defines it.
type reasonCode struct{ Scheme, Meaning string }

// reasonCodes are the common reason codes of Visa (Visa Claims
// Resolution: 10 fraud, 11 authorization, 12 processing errors, 13
// consumer disputes) and Mastercard (four digits), as the schemes publish
// them. A code not listed is shown as it came, with a plain fallback.
var reasonCodes = map[string]reasonCode{
	"10.4":   {"Visa", "The cardholder says they did not make or allow this online payment (fraud, card not present)."},
	"11.2":   {"Visa", "The payment went through although the card's bank declined it."},
	"11.3":   {"Visa", "The payment went through without the authorization the card's bank requires."},
	"12.5":   {"Visa", "The cardholder was charged another amount than agreed."},
	"12.6.1": {"Visa", "The cardholder was charged more than once for the same purchase."},
	"12.6.2": {"Visa", "The cardholder paid for the same purchase by other means as well."},
	"13.1":   {"Visa", "The cardholder says the goods or services were not received."},
	"13.2":   {"Visa", "The cardholder cancelled a recurring payment and was charged after that."},
	"13.3":   {"Visa", "The cardholder says the goods were not as described or were defective."},
	"13.5":   {"Visa", "The cardholder says the terms of the sale were misrepresented."},
	"13.6":   {"Visa", "The cardholder was promised a refund that has not arrived."},
	"13.7":   {"Visa", "The cardholder cancelled or returned the order and was not refunded."},
	"4808":   {"Mastercard", "The payment went through without the authorization the card's bank requires."},
	"4834":   {"Mastercard", "A processing error: charged twice, another amount than agreed, or paid by other means as well."},
	"4837":   {"Mastercard", "The cardholder says they did not make or allow this payment."},
	"4841":   {"Mastercard", "The cardholder cancelled a recurring payment and was charged after that."},
	"4853":   {"Mastercard", "The cardholder disputes the purchase: not received, not as described, defective, or a promised refund not made."},
	"4855":   {"Mastercard", "The cardholder says the goods or services were not received."},
	"4860":   {"Mastercard", "The cardholder was promised a refund that has not arrived."},
	"4863":   {"Mastercard", "The cardholder does not recognize the payment on their statement."},
}

// reasonUnknown is said of a code the table does not hold.
const reasonUnknown = "payd does not know this code. The bank that raised the dispute can say what it means; the kind of dispute and the deadline stand either way."
