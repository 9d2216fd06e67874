package expr

// MustLiteral exports mustLiteral to the tests.
var MustLiteral = mustLiteral

// HasKernel reports whether f has a kernel (built-in by name, or a user
// function's Impl), for the tests of package expr_test.
func HasKernel(f *Function) bool {
	_, err := prepareOf(f)
	return err == nil
}

// testFails is the record of failed calls of the row and batch functions
// the tests prepare themselves (a job's Context).
var testFails = NewContext()
