package client_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/paydhq/payd/client"
)

// TestEveryOperationHasAMethod: each operation of the document (one
// generated XWithResponse method each) has its hand-written method X on
// Client, so that an operation added to the contract is not forgotten here.
func TestEveryOperationHasAMethod(t *testing.T) {
	raw := reflect.TypeFor[*client.ClientWithResponses]()
	ours := reflect.TypeFor[*client.Client]()
	n := 0
	for m := range raw.Methods() {
		name, ok := strings.CutSuffix(m.Name, "WithResponse")
		if !ok || strings.HasSuffix(name, "WithBody") {
			continue
		}
		n++
		if _, ok := ours.MethodByName(name); !ok {
			t.Errorf("operation %s has no method on client.Client", name)
		}
	}
	if n < 36 {
		t.Fatalf("only %d operations found in the generated layer", n)
	}
}
