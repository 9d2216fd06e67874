package connector

import (
	"context"
	"errors"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// TestOpenPathError: the hint about relative paths comes only with a missing
// file behind a relative 'path'; a permission error says to check permissions,
// whatever the path (os.Open as root never fails with EACCES, so the message
// function is tested with the error os.Open returns).
func TestOpenPathError(t *testing.T) {
	const relHint = "a relative path is read from the declaring script's folder"
	const permHint = "check the permissions"
	for _, tc := range []struct {
		path, full string
		err        error
		want, not  []string
	}{
		{"/data/in.csv", "/data/in.csv", &fs.PathError{Op: "open", Path: "/data/in.csv", Err: fs.ErrPermission},
			[]string{"stream s: cannot open 'path' = '/data/in.csv': permission denied", permHint}, []string{relHint, "(/data/in.csv)"}},
		{"in.csv", "/scripts/in.csv", &fs.PathError{Op: "open", Path: "/scripts/in.csv", Err: fs.ErrPermission},
			[]string{"'in.csv' (/scripts/in.csv): permission denied", permHint}, []string{relHint}},
		{"in.csv", "/scripts/in.csv", &fs.PathError{Op: "open", Path: "/scripts/in.csv", Err: fs.ErrNotExist},
			[]string{"'in.csv' (/scripts/in.csv): file does not exist", relHint}, []string{permHint}},
		{"/data/in.csv", "/data/in.csv", &fs.PathError{Op: "open", Path: "/data/in.csv", Err: fs.ErrNotExist},
			[]string{"'/data/in.csv': file does not exist"}, []string{relHint, permHint}},
	} {
		err := openPathError("s", tc.path, tc.full, tc.err)
		msg := err.Error()
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s, %v: %q lacks %q", tc.path, tc.err, msg, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(msg, w) {
				t.Errorf("%s, %v: %q has %q", tc.path, tc.err, msg, w)
			}
		}
		if !errors.Is(err, errors.Unwrap(tc.err)) {
			t.Errorf("%s: %v does not wrap its cause", tc.path, err)
		}
	}

	// and through OpenFile, with the error the system returns
	missing := filepath.Join(t.TempDir(), "nope.csv")
	st := newStream(t, kv, "file", "path", missing)
	_, err := OpenFile(context.Background(), st, csvDec(st))
	if err == nil || !errors.Is(err, fs.ErrNotExist) || strings.Contains(err.Error(), relHint) {
		t.Errorf("absolute missing path: %v", err)
	}
}
