package client_test

import (
	"go/parser"
	"go/token"
	"testing"
)

// TestGeneratedFileHasNoPackageDoc: doc.go is the package's only doc
// comment. The generator's own ("provides primitives to interact with the
// openapi HTTP API") would be shown by go doc after it; the header of
// client/oapi-codegen.yaml leaves it out.
func TestGeneratedFileHasNoPackageDoc(t *testing.T) {
	t.Parallel()
	f, err := parser.ParseFile(token.NewFileSet(), "openapi.gen.go", nil, parser.PackageClauseOnly|parser.ParseComments)
	if err != nil {
		t.Fatal(err)
	}
	if f.Doc != nil {
		t.Fatalf("openapi.gen.go documents the package:\n%s", f.Doc.Text())
	}
}
