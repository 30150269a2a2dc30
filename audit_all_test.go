package payd

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"testing"
)

// TestAuditActionAllListsEveryAction checks the list against the
// constants of type AuditAction in the package's files, so that an action
// added without its place in the list (and so without its words on the
// audit page) fails here.
func TestAuditActionAllListsEveryAction(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	all := AuditActionAll()
	n := 0
	for _, path := range files {
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(node ast.Node) bool {
			vs, ok := node.(*ast.ValueSpec)
			if !ok {
				return true
			}
			if id, ok := vs.Type.(*ast.Ident); !ok || id.Name != "AuditAction" {
				return true
			}
			for _, name := range vs.Names {
				n++
				found := false
				for _, a := range all {
					if a == constValue(vs, name) {
						found = true
					}
				}
				if !found {
					t.Errorf("%s is not in AuditActionAll", name.Name)
				}
			}
			return true
		})
	}
	if n != len(all) || len(slices.Compact(slices.Sorted(slices.Values(all)))) != len(all) {
		t.Errorf("%d constants, %d in AuditActionAll (each once)", n, len(all))
	}
}

func constValue(vs *ast.ValueSpec, name *ast.Ident) AuditAction {
	for i, n := range vs.Names {
		if n == name {
			lit := vs.Values[i].(*ast.BasicLit)
			return AuditAction(lit.Value[1 : len(lit.Value)-1])
		}
	}
	return ""
}
