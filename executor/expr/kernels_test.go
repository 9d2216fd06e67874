package expr

import (
	"testing"

	"streamql/catalog/functions"
)

// TestDeclarationsHaveKernels: the function table's declarations
// (catalog/functions) and this package's kernels match by name: a function
// the planner binds from the table (not Rule) has a kernel, and every kernel
// belongs to a declaration (init checks the other way too).
func TestDeclarationsHaveKernels(t *testing.T) {
	for k := range functions.Functions {
		f := &functions.Functions[k]
		if _, err := prepareOf(f); err != nil && !f.Rule {
			t.Errorf("%s is bound from the table but has no kernel", f.Name)
		}
	}
	for name := range kernels {
		if f := functions.Lookup(name); f == nil || f.Name != name {
			t.Errorf("kernel %s has no declaration", name)
		}
	}
	if _, err := prepareOf(&functions.Function{Name: "NO_SUCH"}); err == nil {
		t.Error("a function without kernel prepared")
	}
}
