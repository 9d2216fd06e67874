// Package tests holds streamql's end-to-end tests: the acceptance cases of
// ../shared/cases (same protocol as ../shared/bin/check-cases, with a ratchet of
// cases that must pass), the project's own cases under testdata/cases, and every
// queries/*.sql script against its golden output. Each case runs in-process
// through cli.Run and through the built binary.
package tests
