package planner

import (
	"os"
	"path/filepath"
	"sort"

	"streamql/catalog"
	"streamql/parser"
)

// JobFile is one file a job reads or writes: a 'file' stream's 'path' as a
// source or a sink, or a --side-dir file (CheckFiles).
type JobFile struct {
	What  string // for messages: "stream s", "sink stream hot", "side output 'x'"
	Path  string // as written (for messages)
	Full  string // resolved against the declaring script's folder
	Write bool   // the job writes it
	Pos   int    // offset of the name in the script, for the error's place
	Fix   string // what to do, for a writer ("" : give it another 'path')
	// Stream is the catalog stream (nil for a side file): one stream written
	// by several branches of a job is one writer
	Stream *catalog.Stream
}

// fileKey names the file at full for comparing: its device and inode when
// it exists (so links and other spellings of one file match), else the clean
// absolute path of a file yet to be created (its folder's links resolved).
// Only regular files and files yet to be created take part: two jobs' worth
// of /dev/null or a terminal are not one file's rows. ok is false otherwise.
func fileKey(full string) (key string, ok bool) {
	if fi, err := os.Stat(full); err == nil {
		if !fi.Mode().IsRegular() {
			return "", false
		}
		if key, ok := fileIdentity(fi); ok {
			return key, true
		}
	}
	abs, err := filepath.Abs(full)
	if err != nil {
		return "", false
	}
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		abs = filepath.Join(dir, filepath.Base(abs))
	}
	return "path " + filepath.Clean(abs), true
}

// streamFile returns st's file as a JobFile when st's connector reads or
// writes the file of a 'path' option (its spec declares one: 'file').
func streamFile(st *catalog.Stream, write bool, what string, pos int) (JobFile, bool) {
	if st == nil || st.Connector == nil || st.File() == nil || st.File().Path == "" {
		return JobFile{}, false
	}
	path := st.File().Path
	full := path
	if !filepath.IsAbs(full) && st.BaseDir != "" {
		full = filepath.Join(st.BaseDir, full)
	}
	return JobFile{What: what, Path: path, Full: full, Write: write, Pos: pos, Stream: st}, true
}

// JobFiles returns the files job j reads and writes through its 'file' streams:
// its sources (the stream and every join's build side), its sinks (INSERT
// INTO, INTO STREAM) and its dead-letter streams ('errors.stream').
func JobFiles(j *Job) []JobFile {
	var out []JobFile
	for _, st := range j.Streams() {
		if f, ok := streamFile(st, false, "stream "+st.Name, 0); ok {
			out = append(out, f)
		}
	}
	for _, b := range append(append([]*Branch{}, j.Branches...), j.Main) {
		if b == nil {
			continue
		}
		if f, ok := streamFile(b.Sink, true, "sink stream "+nameOf(b.Sink), b.SinkPos); ok {
			out = append(out, f)
		}
		srcs := make([]*catalog.Stream, 0, len(b.DeadLetters))
		for src := range b.DeadLetters {
			srcs = append(srcs, src)
		}
		sort.Slice(srcs, func(x, y int) bool { return srcs[x].Name < srcs[y].Name })
		for _, src := range srcs {
			dlq := b.DeadLetters[src]
			if f, ok := streamFile(dlq, true, "dead-letter stream "+dlq.Name, b.SinkPos); ok {
				out = append(out, f)
			}
		}
	}
	return out
}

func nameOf(st *catalog.Stream) string {
	if st == nil {
		return ""
	}
	return st.Name
}

// CheckFiles returns a planning error (*parser.Error, exit status 2) when
// two of files (JobFiles, with the --side-dir files a front end adds) are
// one file and at least one of them is written (issue 30: appending to the
// file being read grows it for ever, truncating it loses the input, two
// writers interleave their rows). A file read twice is fine, and so is one
// sink stream written by several branches. Files are compared by device and
// inode, or by clean path when they do not exist yet (fileKey). The error
// names both and is at the writer's name.
func CheckFiles(files []JobFile) error {
	seen := map[string]int{}
	for k := range files {
		f := &files[k]
		key, ok := fileKey(f.Full)
		if !ok {
			continue
		}
		prev, dup := seen[key]
		if !dup {
			seen[key] = k
			continue
		}
		g := &files[prev]
		if !f.Write && !g.Write || f.Stream != nil && f.Stream == g.Stream && f.Write && g.Write {
			continue
		}
		w, o := f, g
		if !w.Write {
			w, o = g, f
		}
		verb := "reads"
		if o.Write {
			verb = "writes"
		}
		fix := w.Fix
		if fix == "" {
			fix = "give " + w.What + " another 'path'"
		}
		return parser.Errorf(w.Pos, "%s would write %s, the file that %s %s in this job ('%s'): a job cannot write a file it reads or writes elsewhere; %s",
			w.What, w.Path, o.What, verb, o.Path, fix)
	}
	return nil
}
