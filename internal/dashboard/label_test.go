package dashboard

import (
	"slices"
	"strings"
	"testing"

	"github.com/paydhq/payd"
	"github.com/paydhq/payd/internal/webpage"
)

// TestEveryValueHasALabelInEveryLanguage checks each kind the pages label
// against its list in package payd: every value has words, the words are
// in the catalogue in every language of the pages, and no words are kept
// for a value the list does not have. A value added to a kind's list, or
// a translation left out, fails here rather than show as it is.
func TestEveryValueHasALabelInEveryLanguage(t *testing.T) {
	if len(labels) < 15 {
		t.Fatalf("only %d kinds have labels", len(labels))
	}
	for _, k := range labels {
		if len(k.values) == 0 {
			t.Errorf("%s: its list is empty", k.typ)
		}
		for _, v := range k.values {
			text, ok := k.words[v]
			if !ok || text == "" {
				t.Errorf("%s %q has no label", k.typ, v)
				continue
			}
			for _, lang := range payd.Locales() {
				if !webpage.Translated(lang, text) {
					t.Errorf("%s %q: its label %q has no text in %s", k.typ, v, text, lang)
				}
			}
		}
		for v := range k.words {
			if !slices.Contains(k.values, v) {
				t.Errorf("%s %q has a label but is not in the kind's list", k.typ, v)
			}
		}
	}
}

// TestLabelRefusesWhatIsNoKind checks that label fails, rather than show
// the value, for a value of no labelled kind (a plain string among them:
// what a template passes when it names a value literally); and that the
// words of one kind are not looked up for another's value spelled alike.
func TestLabelRefusesWhatIsNoKind(t *testing.T) {
	l := webpage.For("ru")
	for _, v := range []any{"succeeded", payd.Permission("read"), nil, 3} {
		if got, err := label(l, v); err == nil {
			t.Errorf("label(%#v) = %q, want an error", v, got)
		}
	}
	a, err := label(l, payd.PaymentSucceeded)
	if err != nil {
		t.Fatal(err)
	}
	b, err := label(l, payd.DeliveryStateSucceeded)
	if err != nil {
		t.Fatal(err)
	}
	if a == b || a == "succeeded" || b == "succeeded" {
		t.Errorf("payment succeeded reads %q, delivery succeeded %q: want each kind's own words", a, b)
	}
	// A value outside its kind's list (a newer version's) is shown as it
	// is, never hidden.
	if got, err := label(l, payd.PaymentStatus("on_hold")); err != nil || got != "on_hold" {
		t.Errorf("an unknown payment status reads %q, %v", got, err)
	}
}

// TestTemplatesNameNoKind checks that no template names a kind or a value
// as a string to label: it passes the typed value, or a destination type
// through destination, which refuses a name that is not one.
func TestTemplatesNameNoKind(t *testing.T) {
	names, err := templateFS.ReadDir("templates")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range names {
		src, err := templateFS.ReadFile("templates/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(string(src), "\n") {
			for rest := line; ; {
				i := strings.Index(rest, "{{label ")
				if i < 0 {
					break
				}
				rest = rest[i+len("{{label "):]
				args := strings.Fields(rest[:strings.Index(rest, "}}")])
				if len(args) != 2 && !(len(args) == 3 && args[1] == "(destination") {
					t.Errorf("%s: {{label %s}}: want the locale and one typed value", e.Name(), strings.Join(args, " "))
				}
				if strings.HasPrefix(args[1], `"`) {
					t.Errorf("%s: {{label %s}} names a value as a string", e.Name(), strings.Join(args, " "))
				}
			}
		}
	}
	if _, err := destination("crad"); err == nil {
		t.Error(`destination("crad") is not refused`)
	}
	for _, d := range payd.DestinationTypeAll() {
		if got, err := destination(string(d)); got != d || err != nil {
			t.Errorf("destination(%q) = %q, %v", d, got, err)
		}
	}
}

// TestChoices: a filter's options keep the chosen value selected, and
// show each value's label in the page's language, or the value itself.
func TestChoices(t *testing.T) {
	l := webpage.For("ru")
	got, err := choices(l, payd.RefundStatusAll(), "succeeded", true)
	if err != nil || len(got) != len(payd.RefundStatusAll()) {
		t.Fatalf("choices = %v, %v", got, err)
	}
	for i, c := range got {
		want, _ := label(l, payd.RefundStatusAll()[i])
		if c.Value != string(payd.RefundStatusAll()[i]) || c.Text != want || c.Selected != (c.Value == "succeeded") {
			t.Errorf("option %d = %+v; want the label %q and only succeeded selected", i, c, want)
		}
	}
	if got[0].Text == got[0].Value {
		t.Errorf("the Russian label of %q is the value itself", got[0].Value)
	}
	plain, _ := choices(l, payd.EventTypeAll(), "nope", false)
	for _, c := range plain {
		if c.Text != c.Value || c.Selected {
			t.Errorf("unlabelled option %+v; want its value, not selected", c)
		}
	}
	type unlabelled string
	if _, err := choices(l, []unlabelled{"x"}, "", true); err == nil {
		t.Error("a kind without labels was shown")
	}
}
