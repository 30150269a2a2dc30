package dashboard

import (
	"fmt"
	"reflect"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

// labels are the words the pages show for the values of the domain's
// kinds (payd.PaymentStatus, payd.Role...), as keys of the catalogue
// (English), by the kind's type: a template asks with the value itself,
// {{label $.L .Status}}, so that it cannot name a kind that is not the
// value's. Each page group keeps its own kinds beside its pages; a test
// checks that every value of each kind's list has words in every
// language.
var labels = mergeLabels(coreLabels, moneyLabels, developerLabels, storyLabels, auditLabels)

// labelKind is the words of one kind.
type labelKind struct {
	typ reflect.Type
	// values is the kind's list of values (its ...All function).
	values []string
	// words are the English words of each value.
	words map[string]string
}

// kindLabels is the words of kind K, whose every value all lists.
func kindLabels[K ~string](all func() []K, words map[K]string) labelKind {
	k := labelKind{typ: reflect.TypeFor[K](), words: make(map[string]string, len(words))}
	for _, v := range all() {
		k.values = append(k.values, string(v))
	}
	for v, w := range words {
		k.words[string(v)] = w
	}
	return k
}

// mergeLabels joins the groups' kinds; a kind named by two groups is a
// mistake that would silently show one group's words on the other's
// pages, so it stops the program at start (and every test).
func mergeLabels(groups ...[]labelKind) map[reflect.Type]labelKind {
	out := map[reflect.Type]labelKind{}
	for _, g := range groups {
		for _, k := range g {
			if _, dup := out[k.typ]; dup {
				panic("dashboard: label kind " + k.typ.String() + " is named twice")
			}
			out[k.typ] = k
		}
	}
	return out
}

// coreLabels are the kinds of the payments pages and the users'.
var coreLabels = []labelKind{
	kindLabels(payd.PaymentStatusAll, map[payd.PaymentStatus]string{
		payd.PaymentPending: "Pending", payd.PaymentWaitingForCapture: "Waiting for capture",
		payd.PaymentSucceeded: "Succeeded", payd.PaymentCanceled: "Canceled",
	}),
	kindLabels(payd.RefundStatusAll, map[payd.RefundStatus]string{
		payd.RefundPending: "Pending", payd.RefundSucceeded: "Succeeded", payd.RefundCanceled: "Canceled",
	}),
	kindLabels(payd.MethodTypeAll, map[payd.MethodType]string{
		payd.MethodBankCard: "Bank card", payd.MethodSBP: "SBP (Faster Payments)", payd.MethodKZQR: "QR in your bank's app",
		payd.MethodInstallments: "Installments",
	}),
	kindLabels(payd.RoleAll, map[payd.Role]string{
		payd.RoleAdmin: "Administrator", payd.RoleSupport: "Support", payd.RoleDeveloper: "Developer", payd.RoleViewer: "Viewer",
	}),
	kindLabels(payd.WebhookDeliveryStateAll, map[payd.WebhookDeliveryState]string{
		payd.DeliveryStatePending: "Pending", payd.DeliveryStateSucceeded: "Delivered", payd.DeliveryStateFailed: "Failed",
		payd.DeliveryStateSkipped: "Skipped", payd.DeliveryStateResent: "Replaced by a resend",
	}),
}

// label is the page's word for v, a value of one of the kinds of labels.
// A value of any other type is an error, which fails the page (and its
// test) rather than show the value as it is; a value its kind's list
// lacks (written by a newer version) is shown as it is, so that it is
// never hidden.
func label(l webpage.Locale, v any) (string, error) {
	k, ok := labels[reflect.TypeOf(v)]
	if !ok {
		return "", fmt.Errorf("dashboard: no labels for %T (%v)", v, v)
	}
	s := reflect.ValueOf(v).String()
	if text, ok := k.words[s]; ok {
		return l.T(text), nil
	}
	return s, nil
}

// pageWords is label for the rows of one page, each value looked up once:
// a list asks for the same few statuses on every row. A value of two
// kinds is two keys, its type being part of the key.
func pageWords(l webpage.Locale) func(any) (string, error) {
	words := map[any]string{}
	return func(value any) (string, error) {
		if w, ok := words[value]; ok {
			return w, nil
		}
		w, err := label(l, value)
		words[value] = w
		return w, err
	}
}

// destination reads a destination kind a template names, such as
// {{label $.L (destination "card")}}: a name that is not one is an error
// that fails the page.
func destination(name string) (payd.DestinationType, error) {
	for _, d := range payd.DestinationTypeAll() {
		if string(d) == name {
			return d, nil
		}
	}
	return "", fmt.Errorf("dashboard: %q is not a destination type", name)
}

// choice is one option of a filter's select.
type choice struct {
	Value, Text string
	Selected    bool
}

// choices are the options of a select of values, the one equal to chosen
// selected, each shown by its label (label) or, when not labelled, as it
// is. Made here rather than in the template, where every option cost two
// reflective calls to compare it and one to label it.
func choices[T ~string](l webpage.Locale, values []T, chosen string, labelled bool) ([]choice, error) {
	out := make([]choice, len(values))
	for i, v := range values {
		out[i] = choice{Value: string(v), Text: string(v), Selected: string(v) == chosen}
		if labelled {
			text, err := label(l, v)
			if err != nil {
				return nil, err
			}
			out[i].Text = text
		}
	}
	return out, nil
}
