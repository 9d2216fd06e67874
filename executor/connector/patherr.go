package connector

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
)

// openPathError is the error of a stream whose 'path' cannot be opened (SPEC 1:
// a relative 'path' is resolved against the declaring script's folder). stream
// is the stream's name, path the option as written, full the path opened and
// err what os.Open returned. The message names the stream, the path and the
// cause, and adds what to do: for a missing file behind a relative path, where
// relative paths are read from; for a permission error, to check the
// permissions (never the relative-path hint, which could not help). The
// returned error wraps err's cause, so errors.Is(err, fs.ErrPermission) holds.
func openPathError(stream, path, full string, err error) error {
	cause := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		cause = pe.Err
	}
	where := "'" + path + "'"
	if full != path {
		where += " (" + full + ")"
	}
	hint := ""
	switch {
	case errors.Is(err, fs.ErrPermission):
		hint = "; check the permissions of the file and of its folders"
	case errors.Is(err, fs.ErrNotExist) && !filepath.IsAbs(path):
		hint = "; a relative path is read from the declaring script's folder"
	}
	return fmt.Errorf("stream %s: cannot open 'path' = %s: %w%s", stream, where, cause, hint)
}
