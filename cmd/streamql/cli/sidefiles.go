package cli

import (
	"fmt"

	"streamql/cmd/streamql/render"
	"streamql/internal/session"
	"streamql/parser"
)

// sideFileOutputs returns, for each output of job written to its own
// --side-dir file (a side output that is neither the main query, a sink stream
// nor the late output: render.NewSink's rule), that file's path.
func (s *Session) sideFileOutputs(job *session.Job) map[int]string {
	if s.SideDir == "" {
		return nil
	}
	out := map[int]string{}
	for k, o := range job.Outputs {
		if o.Late || o.Sink || job.HasMain && k == 0 {
			continue
		}
		if path, ok := s.sideFile(o.Name); ok {
			out[k] = path
		}
	}
	return out
}

// sideFile returns the --side-dir file of side output name, where the sink
// writes it (render.SideFilePath); false for a name that cannot be a file
// there, which the sink refuses with its own error when the job starts.
func (s *Session) sideFile(name string) (string, bool) {
	path, err := render.SideFilePath(s.SideDir, name, render.Ext(s.Format))
	return path, err == nil
}

// checkJobFiles returns a planning error when a --side-dir file of job (a
// side output's, the late output's or the errors output's) is a file the job
// reads or writes through a stream (planner.CheckFiles: issue 30, a side file
// over the job's input would truncate it).
func (s *Session) checkJobFiles(job *session.Job) error {
	files := job.Files()
	if s.SideDir != "" {
		names := []string{job.Stream.Shared().ErrorsSide}
		if names[0] == "" {
			names[0] = "errors"
		}
		for k, o := range job.Outputs {
			if !o.Sink && (!job.HasMain || k > 0) {
				names = append(names, o.Name)
			}
		}
		seen := map[string]bool{}
		for _, name := range names {
			path, ok := s.sideFile(name)
			if !ok || seen[path] {
				continue // (one file per side output name: one writer)
			}
			seen[path] = true
			files = append(files, session.JobFile{What: "side output '" + name + "'", Path: path, Full: path, Write: true, Pos: job.SideNamePos(name), Fix: "rename the side output, or choose another --side-dir"})
		}
	}
	if err := session.CheckFiles(files); err != nil {
		return err
	}
	// at the first side output's name: side files are what add up
	return checkOpenFiles(len(files), job.SidePos)
}

// spareFiles is the open files a job needs besides its own files: stdin,
// stdout, stderr, the runtime's, the terminal, a socket or two.
const spareFiles = 32

// checkOpenFiles returns a planning error (*parser.Error at offset pos)
// before a job starts when its n files
// (sources, sinks and --side-dir files, all open at once while it runs) and
// spareFiles would pass the process's limit on open files (RLIMIT_NOFILE,
// `ulimit -n`), so a job with thousands of side outputs does not fail
// half-way with "too many open files" (issue 30). The error says how many
// it needs and how to raise the limit.
func checkOpenFiles(n, pos int) error {
	limit, hard, ok := openFileLimit()
	if !ok || uint64(n+spareFiles) <= limit {
		return nil
	}
	raise := fmt.Sprintf("raise it with `ulimit -n %d` before running streamql", n+spareFiles)
	if uint64(n+spareFiles) > hard {
		raise = fmt.Sprintf("the hard limit is %d, so ask for a higher one (limits.conf, systemd's LimitNOFILE) or send fewer side outputs to --side-dir", hard)
	}
	return parser.Errorf(pos, "this job opens %d files at once (its sources, sinks and --side-dir files) and needs about %d open files, but the limit on open files is %d (ulimit -n): %s", n, n+spareFiles, limit, raise)
}

// checkSideFiles returns a planning error (*parser.Error, exit status 2) when
// job would append to a --side-dir file that an earlier job of this run wrote
// with other columns (SPEC 4: a later job that writes the same side output
// appends to it, same columns, or an error). The error is at the side name of
// the job's first branch writing that output, and comes before the job reads
// anything.
func (s *Session) checkSideFiles(job *session.Job) error {
	if err := s.checkJobFiles(job); err != nil {
		return err
	}
	for k, path := range s.sideFileOutputs(job) {
		old, ok := s.Files.Columns(path)
		if !ok || old == job.Outputs[k].Schema() {
			continue
		}
		// (every side output has a branch)
		return parser.Errorf(job.Outputs[k].SidePos, "side output '%s' has columns %s but an earlier job of this run wrote its file %s with columns %s: give the side output another name, or the same columns",
			job.Outputs[k].Name, job.Outputs[k].Schema(), path, old)
	}
	return nil
}
