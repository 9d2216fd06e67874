package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// linksOut returns a problem for each entry of the case folder dir's
// expected/ folder (and for expected/ itself) that is a symbolic link
// leading out of dir (issue 30: `streamql test` never reads or writes through
// a link out of the case folder, so --update cannot overwrite a file
// elsewhere and a diff cannot print one). A link inside the folder is fine.
func linksOut(dir string) []string {
	root, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return nil // the run reports the folder
	}
	exp := filepath.Join(dir, "expected")
	check := func(path, shown string) string {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&os.ModeSymlink == 0 {
			return ""
		}
		to, err := filepath.EvalSymlinks(path)
		if err != nil { // dangling: where it would be created
			target, rerr := os.Readlink(path)
			if rerr != nil {
				return ""
			}
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(path), target)
			}
			to = filepath.Clean(target)
			if d, derr := filepath.EvalSymlinks(filepath.Dir(to)); derr == nil {
				to = filepath.Join(d, filepath.Base(to))
			}
		}
		if rel, err := filepath.Rel(root, to); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return ""
		}
		return fmt.Sprintf("%s is a symbolic link out of the case folder, and streamql test neither reads nor writes through one: make it a file of the case", shown)
	}
	if p := check(exp, "expected/"); p != "" {
		return []string{p}
	}
	var problems []string
	entries, _ := os.ReadDir(exp)
	for _, e := range entries {
		if p := check(filepath.Join(exp, e.Name()), "expected/"+e.Name()); p != "" {
			problems = append(problems, p)
		}
	}
	return problems
}

// writeReplacing writes text to path by writing a new file beside it and
// renaming it into place (--update): a link at path is replaced, never
// written through, and a reader never sees half a file.
func writeReplacing(path, text string) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(f.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}
