package expr

// MustLiteral exports mustLiteral to the tests.
var MustLiteral = mustLiteral
